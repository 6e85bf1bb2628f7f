"""The Masks page's experiments as plain values: what the user switched on → per-call interventions.

An `InterventionChoice` is what the widgets return; `specs` turns it into hashable
`InterventionSpec`s for `run_text(..., interventions=...)` (cacheable per choice). They change
one call's computation, never the shared model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hook_names import attn_module
from transformer.interventions import InterventionSpec
from transformer.probes.importance import HeadImportance, HeadScore
from transformer.storage.checkpoint import ModelBundle
from viz.trace import TraceData

Head = tuple[str, int, int]  # (attention kind, layer, head)


@dataclass(frozen=True)
class InterventionChoice:
    """What the user switched on (plain values; `specs` turns them into interventions)."""

    no_causal: bool = False
    causal_layer: int | None = None  # None: every decoder layer
    blocked: tuple[int, ...] = ()  # key positions to hide
    block_in: tuple[str, ...] = ()  # attention kinds where they are hidden
    ablate: Head | None = None  # (kind, layer, head) whose output is zeroed

    def specs(self, n_layers: int) -> tuple[InterventionSpec, ...]:
        """Every decoder/encoder layer is addressed by name, so each spec is hashable and cacheable."""
        out: list[InterventionSpec] = []
        if self.no_causal:
            layers = range(n_layers) if self.causal_layer is None else [self.causal_layer]
            out += [InterventionSpec("no_causal", attn_module("decoder", i)) for i in layers]
        if self.blocked:
            out += [
                InterventionSpec("block_keys", attn_module(kind, i), keys=self.blocked)
                for kind in self.block_in
                for i in range(n_layers)
            ]
        if self.ablate is not None:
            out.append(ablation_spec(self.ablate))
        return tuple(out)

    def touches(self, kind: str) -> bool:
        """Whether an edited mask lives in attention `kind` (so its pattern shows the edit)."""
        return (self.no_causal and kind == "decoder") or (bool(self.blocked) and kind in self.block_in)


def hideable_tokens(bundle: ModelBundle, trace: TraceData) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The input positions a user may hide: the source, or a decoder-only model's prompt (<bos> + text), as their
    tokens and their raw bytes (hex, "e4 bd"; "" where a label is the text; () where the run has none).

    A teacher-forced decoder-only run read the whole text, so all of it is the prompt; a decoding
    run's generated tokens are not input and cannot be hidden.
    """
    if bundle.config.has_encoder:
        return trace.src_tokens, trace.src_hex
    prompt = len(trace.tgt_tokens) if trace.teacher_forced else len(trace.tgt_tokens) - len(trace.output_tokens)
    return trace.tgt_tokens[:prompt], trace.tgt_hex[:prompt]


def hideable_kinds(bundle: ModelBundle) -> list[str]:
    """Where hidden tokens can be hidden: cross and encoder attention, or a decoder-only model's self-attention."""
    if bundle.config.is_encoder_only:
        return ["encoder"]
    return ["cross", "encoder"] if bundle.config.is_encoder_decoder else ["decoder"]


def ablation_spec(head: Head) -> InterventionSpec:
    """Zero one head's output (its contribution to W^O): later layers and the output lose what it wrote."""
    kind, layer, index = head
    return InterventionSpec("zero_output", attn_module(kind, layer), head=index)


@dataclass(frozen=True)
class AblationDefault:
    """The head the ablation experiment starts on, and how it was chosen.

    `changes_output`: removing it changes this sentence's output (checked by running it). When none
    of the `checked` candidates (every head) does, `head` is the one that matters most on held-out
    sentences (or None without an importance table) and the page says so.
    """

    head: Head | None
    changes_output: bool
    checked: int
    score: HeadScore | None = None  # its row of the model's importance table


def ablation_candidates(importance: HeadImportance | None, kinds: Sequence[str]) -> tuple[HeadScore, ...]:
    """Every head of `kinds` in the order worth trying: those whose removal changed a held-out output, most
    telling first, then the rest by how much their removal lowers the right output's log-probability (none
    without a table)."""
    if importance is None:
        return ()
    important = [s for s in importance.important() if s.kind in kinds]
    rest = sorted((s for s in importance.heads if s.kind in kinds and s not in important), key=lambda s: -s.logprob_drop)
    return (*important, *rest)


def telling_head(
    candidates: Sequence[HeadScore], baseline: TraceData, run: Callable[[InterventionSpec], TraceData]
) -> AblationDefault:
    """The first candidate (in the given order) whose ablation changes `baseline`'s output.

    Every candidate is tried until one changes it, so a head that changes this sentence is never missed
    (the table ranks heads on held-out sentences, and a sentence may need one ranked lower). `run(spec)`
    runs the sentence under one intervention (the page passes its cached run), so a second look at the
    same sentence costs nothing and a head the user then picks is already run. Worst case, no head changes
    the output and every head is run once: for the default model (translate-en-zh, 24 heads) on its longest
    held-out sentences (11-12 words) that no head changes, the 24 greedy decodes took 0.9-1.1 s on one CPU
    thread of a busy 2-core machine, once per sentence (then cached).
    """
    checked = 0
    for score in candidates:
        checked += 1
        head = (score.kind, score.layer, score.head)
        if run(ablation_spec(head)).output_tokens != baseline.output_tokens:
            return AblationDefault(head, True, checked, score)
    first = candidates[0] if candidates else None
    return AblationDefault(None if first is None else (first.kind, first.layer, first.head), False, checked, first)
