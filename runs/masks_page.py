"""Everything the Masks page (views/masks.py) draws, in the page's phases.

The page is a walk through five sections, and the widgets of each section depend on the run above
it (the sentence picker opens on the most padded row; what may be hidden is the chosen sentence's
input; the causal experiment needs that sentence's target). So the numbers come in phases, each one
call, each only when its section asks:

1. `masks_batch`: the sentences' real runs as one padded batch, and its masks;
2. `masks_sentence`: the chosen sentence as the padded batch runs it (one head's scores), its own run,
   what may be hidden and the causal experiment's target;
3. `masks_causal`: the causal mask lifted (two generations and two teacher-forced passes, so only when
   switched on), with the numbers the page states about it;
4. the intervention run itself is `ui.caches.get_trace(..., interventions=specs)`, the page's ordinary run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from runs.causal_view import CausalSummary, CausalTarget, causal_target, run_causal, summarize
from runs.experiments import hideable_tokens
from runs.sentence_batch import mask_batch
from transformer.probes.causal import CausalExperiment
from transformer.storage.checkpoint import ModelBundle, attention_kinds
from viz.masks import MaskBatch
from viz.trace import TraceData

Head = tuple[str, int, int]  # (kind, layer, head)


@dataclass(frozen=True)
class MasksBatch:
    """Phase 1: the padded batch and each sentence's own run (decoding only: no activations kept)."""

    view: MaskBatch
    traces: tuple[TraceData, ...]


@dataclass(frozen=True)
class MasksSentence:
    """Phase 2: the chosen sentence and head."""

    scores: TraceData  # the sentence as the padded batch runs it, recording one module's scores
    before: TraceData  # the sentence's own run, recording the same, without interventions
    baseline: TraceData  # the sentence's own run without activations: what an ablation must change
    hideable: tuple[str, ...]  # the input positions a user may hide
    hideable_hex: tuple[str, ...]  # their raw bytes (hex; "" where a label is the text; () where the run has none)
    heads: tuple[Head, ...]  # every head of every attention kind (the ablation picker's options)
    target: CausalTarget | None  # what the teacher-forced pass without the causal mask reads


@dataclass(frozen=True)
class MasksCausal:
    """Phase 3: the causal mask lifted, and what the page says about it."""

    experiment: CausalExperiment
    summary: CausalSummary


def masks_batch(bundle: ModelBundle, traces: Sequence[TraceData]) -> MasksBatch:
    """The padded batch of `traces` (one run per sentence, `names=()`)."""
    return MasksBatch(view=mask_batch(bundle, traces), traces=tuple(traces))


def masks_sentence(bundle: ModelBundle, batch: MasksBatch, row: int, scores: TraceData, before: TraceData) -> MasksSentence:
    """Sentence `row` of `batch`: `scores` is its batch row, `before` its own run (both recording the
    chosen module's scores, `viz.masked_scores.score_hook_names`)."""
    config = bundle.config
    hideable, hideable_hex = hideable_tokens(bundle, before)
    return MasksSentence(
        scores=scores,
        before=before,
        baseline=batch.traces[row],
        hideable=hideable,
        hideable_hex=hideable_hex,
        heads=tuple((k, i, h) for k in attention_kinds(bundle) for i in range(config.n_layers) for h in range(config.n_heads)),
        target=causal_target(bundle, before),
    )


def masks_causal(bundle: ModelBundle, text: str, target: str, layers: tuple[int, ...] | None) -> MasksCausal:
    """`runs.causal_view.run_causal` (the mask lifted in `layers`, None: every decoder layer) and its summary."""
    experiment = run_causal(bundle, text, target, layers)
    return MasksCausal(experiment=experiment, summary=summarize(experiment))
