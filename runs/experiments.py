"""The Masks page's experiments as plain values: what the user switched on → per-call interventions.

An `InterventionChoice` is what the widgets return; `specs` turns it into hashable
`InterventionSpec`s for `run_text(..., interventions=...)` (cacheable per choice). They change
one call's computation, never the shared model.
"""

from __future__ import annotations

from dataclasses import dataclass

from transformer.checkpoint import ModelBundle
from transformer.hook_names import attn_module
from transformer.interventions import InterventionSpec
from viz.trace import TraceData


@dataclass(frozen=True)
class InterventionChoice:
    """What the user switched on (plain values; `specs` turns them into interventions)."""

    no_causal: bool = False
    causal_layer: int | None = None  # None: every decoder layer
    blocked: tuple[int, ...] = ()  # key positions to hide
    block_in: tuple[str, ...] = ()  # attention kinds where they are hidden
    ablate: tuple[str, int, int] | None = None  # (kind, layer, head) whose output is zeroed

    def specs(self, n_layers: int) -> tuple[InterventionSpec, ...]:
        """Every decoder/encoder layer is addressed by name, so each spec is hashable and cacheable."""
        out: list[InterventionSpec] = []
        if self.no_causal:
            layers = range(n_layers) if self.causal_layer is None else [self.causal_layer]
            out += [InterventionSpec("no_causal", attn_module("decoder", i)) for i in layers]
        if self.blocked:
            out += [InterventionSpec("block_keys", attn_module(kind, i), keys=self.blocked)
                    for kind in self.block_in for i in range(n_layers)]
        if self.ablate is not None:
            kind, layer, head = self.ablate
            out.append(InterventionSpec("zero_output", attn_module(kind, layer), head=head))
        return tuple(out)

    def touches(self, kind: str) -> bool:
        """Whether an edited mask lives in attention `kind` (so its pattern shows the edit)."""
        return (self.no_causal and kind == "decoder") or (bool(self.blocked) and kind in self.block_in)


def hideable_tokens(bundle: ModelBundle, trace: TraceData) -> tuple[str, ...]:
    """The input positions a user may hide: the source, or a decoder-only model's prompt (<bos> + text).

    A teacher-forced decoder-only run read the whole text, so all of it is the prompt; a decoding
    run's generated tokens are not input and cannot be hidden.
    """
    if bundle.config.is_encoder_decoder:
        return trace.src_tokens
    if trace.teacher_forced:
        return trace.tgt_tokens
    return trace.tgt_tokens[: len(trace.tgt_tokens) - len(trace.output_tokens)]


def hideable_kinds(bundle: ModelBundle) -> list[str]:
    """Where hidden tokens can be hidden: cross and encoder attention, or a decoder-only model's self-attention."""
    return ["cross", "encoder"] if bundle.config.is_encoder_decoder else ["decoder"]

