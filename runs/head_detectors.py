"""Head detector scores for the heads page: one layer × head table per attention kind.

The positional and token scores are computed on a repeated random sequence (`transformer.probes.detector_inputs`):
there an induction head has something to find, and a head cannot score by grammar. Cross-attention's
source alignment needs sentences with a gold alignment, so it is measured on the model's own task's
held-out examples, teacher-forced (as in training). Both are per model, not per text: the page caches
the table once per model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from hook_names import act_name
from runs.reference import model_task
from transformer.hooks import capture
from transformer.probes.detector_inputs import DECODER_CROSS, detector_inputs
from transformer.probes.head_scores import (
    DETECTOR_SCORE_NAMES,
    SOURCE_ALIGNMENT,
    HeadScores,
    head_scores,
    names_for,
    source_alignment_score,
)
from transformer.storage.checkpoint import ModelBundle
from transformer.training.evaluate import alignment_sets, make_batch

ALIGNMENT_EXAMPLES = 40  # held-out sentences for the source-alignment score: enough for a stable mean, under a second
HALF = 20  # length of the random half of the repeated sequence


@dataclass(frozen=True)
class DetectorTable:
    """Scores per attention kind ("encoder", "decoder", "cross"), and what they were measured on.

    Attributes:
        scores: kind → HeadScores (S, L, H).
        half: the repeated sequence's half length n (the sequence is x1..xn x1..xn).
        tokens: kind → the query tokens of the repeated sequence (for a caption).
        alignment_examples: how many held-out sentences scored source alignment (0: not measured).
    """

    scores: dict[str, HeadScores]
    half: int
    tokens: dict[str, tuple[str, ...]]
    alignment_examples: int

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self.scores)


@torch.no_grad()
def source_alignment(bundle: ModelBundle, n: int = ALIGNMENT_EXAMPLES, seed: int = 0) -> tuple[np.ndarray | None, int]:
    """(L, H) mean cross-attention weight on each target token's gold source word over `n` held-out
    examples of the model's task, and how many examples had an alignment; (None, 0) without one."""
    task = model_task(bundle)
    if task is None or not bundle.config.is_encoder_decoder:
        return None, 0
    examples = [e for e in task.examples(n, "heldout", seed) if alignment_sets(e)]
    if not examples:
        return None, 0
    layers = range(bundle.config.n_layers)
    names = [act_name("cross", layer, "pattern") for layer in layers]
    batch = make_batch(bundle, examples)
    with capture(bundle.model, names) as cache:
        bundle.model(batch.src, batch.tgt_in)
    patterns = torch.stack([cache[name] for name in names], dim=1).numpy()  # (B, L, H, Tt, Ts)
    per_example = []
    for b, example in enumerate(examples):
        per_example.append(source_alignment_score(patterns[b], alignment_sets(example)))  # row j predicts target token j
    return np.nanmean(np.stack(per_example), axis=0), len(examples)


def detector_table(bundle: ModelBundle, half: int = HALF, seed: int = 0) -> DetectorTable:
    """Every detector score that means something for each attention kind of `bundle`: self-attention gets
    them all, cross-attention only those of `CROSS_SCORE_NAMES` (first token and source alignment; issue 10 §3)."""
    inputs = detector_inputs(bundle, half=half, seed=seed)
    scores: dict[str, HeadScores] = {}
    tokens: dict[str, tuple[str, ...]] = {}
    alignment, n_aligned = source_alignment(bundle)
    for kind in ("encoder", "decoder", "cross"):
        if kind not in inputs.patterns:
            continue
        patterns = inputs.patterns[kind]  # (L, H, Tq, Tk)
        ids = None if kind == DECODER_CROSS else inputs.ids[kind]
        # between two languages a query's index says nothing about a key's: only the sink and the alignment
        table = head_scores(patterns, ids, names=names_for(DETECTOR_SCORE_NAMES, kind))
        if kind == DECODER_CROSS and alignment is not None:  # measured on the task's sentences, not this sequence
            scores_with = np.concatenate([table.scores, alignment[None]])
            table = HeadScores((*table.names, SOURCE_ALIGNMENT), scores_with, table.n_keys)
        scores[kind] = table
        tokens[kind] = tuple(inputs.tokens[kind])
    return DetectorTable(scores, inputs.half, tokens, n_aligned)
