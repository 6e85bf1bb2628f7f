"""The feed-forward page's numbers: one captured run with every FFN's hidden units and every
sublayer's contribution to the residual stream, and the model's parameters counted by part.

`viz.ffn` turns the arrays into view-models; this module picks the hook names, runs the model once
and measures the parameter share from the model itself (never a number from the paper).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hook_names import hook_name, layer_module, norm_module, pos_module, sublayer_module
from runs.text_run import run_text
from transformer.storage.checkpoint import ModelBundle
from viz.ffn import FeedForwardView, ResidualContributions, feed_forward_view, residual_contributions
from viz.trace import TraceData

PARTS = ("embeddings", "attention", "feed_forward", "layernorm", "generator")
"""Parameter groups, in the order the page lists them."""


def stacks(bundle: ModelBundle) -> tuple[str, ...]:
    """The stacks that have feed-forward layers: ("encoder", "decoder"), ("decoder",) or ("encoder",) (BERT)."""
    config = bundle.config
    return tuple(stack for stack, has in (("encoder", config.has_encoder), ("decoder", config.has_decoder)) if has)


def n_sublayers(bundle: ModelBundle, stack: str) -> int:
    """Sublayers per layer: self-attention and FFN, plus cross-attention in an encoder-decoder's decoder."""
    return 3 if stack == "decoder" and bundle.config.is_encoder_decoder else 2


def ffn_names(bundle: ModelBundle) -> tuple[str, ...]:
    """Hook names the page needs: FFN hidden units, every sublayer's output, stream and norm output, stream start."""
    names = []
    for stack in stacks(bundle):
        names.append(hook_name(pos_module(stack), "out"))
        for layer in range(bundle.config.n_layers):
            names.append(hook_name(layer_module(stack, layer, "feed_forward"), "hidden"))
            for sub in range(n_sublayers(bundle, stack)):
                names += [
                    hook_name(sublayer_module(stack, layer, sub), "sublayer_out"),
                    hook_name(sublayer_module(stack, layer, sub), "resid"),
                    hook_name(norm_module(stack, layer, sub), "out"),
                ]
    return tuple(names)


@dataclass(frozen=True)
class ParameterShare:
    """Parameters counted by part (`PARTS`), measured from the model's own tensors (shared ones once)."""

    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def share(self, part: str) -> float:
        return self.counts.get(part, 0) / max(self.total, 1)


def _part(name: str) -> str:
    if ".feed_forward." in name:
        return "feed_forward"
    if "_attn." in name:
        return "attention"
    if ".norm." in name:
        return "layernorm"
    if name.startswith("generator"):
        return "generator"
    return "embeddings"


def parameter_share(bundle: ModelBundle) -> ParameterShare:
    """Every parameter of the model in one of `PARTS` (named_parameters lists a tied weight once)."""
    counts = dict.fromkeys(PARTS, 0)
    for name, param in bundle.model.named_parameters():
        counts[_part(name)] += param.numel()
    return ParameterShare(counts)


@dataclass(frozen=True)
class FeedForwardRun:
    """One run of the model on a text, seen through its feed-forward layers.

    Attributes:
        trace: the run (tokens, output; arrays of `ffn_names`).
        views: stack → one `FeedForwardView` per layer.
        inputs: stack → (L, T, d_model) what each FFN reads (after its LayerNorm in a pre-norm model;
            the stream after the previous sublayer, already normalised, in a post-norm one).
        contributions: stack → each sublayer's output size per layer and token.
        parameters: the model's parameters by part.
    """

    trace: TraceData
    views: dict[str, tuple[FeedForwardView, ...]]
    inputs: dict[str, np.ndarray]
    contributions: dict[str, ResidualContributions]
    parameters: ParameterShare

    @property
    def stacks(self) -> tuple[str, ...]:
        return tuple(self.views)

    def tokens(self, stack: str) -> tuple[str, ...]:
        return self.trace.src_tokens if stack == "encoder" else self.trace.tgt_tokens

    def raw_bytes(self, stack: str) -> tuple[str, ...]:
        """The raw bytes (hex) of `tokens(stack)`, for a hover beside a byte-level piece's label; () for none."""
        return self.trace.src_hex if stack == "encoder" else self.trace.tgt_hex

    def ffn_input(self, stack: str, layer: int, token: int) -> np.ndarray:
        """(d_model,) what the FFN of `stack` layer `layer` reads at position `token`."""
        return self.inputs[stack][layer, token]


def feed_forward_run(bundle: ModelBundle, text: str) -> FeedForwardRun:
    """Run `bundle` on `text` once (as every page does: `run_text`) and build the FFN view-models."""
    trace = run_text(bundle, text, names=ffn_names(bundle))
    arrays, norm_position = trace.arrays, bundle.config.norm_position
    views, inputs, contributions = {}, {}, {}
    for stack in stacks(bundle):
        tokens = trace.src_tokens if stack == "encoder" else trace.tgt_tokens
        layers = range(bundle.config.n_layers)
        views[stack] = tuple(feed_forward_view(arrays, stack, layer, tokens) for layer in layers)
        ffn = n_sublayers(bundle, stack) - 1  # the FFN is a layer's last sublayer
        if norm_position == "pre":
            read = [hook_name(norm_module(stack, layer, ffn), "out") for layer in layers]
        else:
            read = [hook_name(sublayer_module(stack, layer, ffn - 1), "resid") for layer in layers]
        inputs[stack] = np.stack([arrays[name][0] for name in read]).astype(np.float32)  # (L, T, d_model)
        contributions[stack] = residual_contributions(arrays, stack, tokens, norm_position)
    return FeedForwardRun(trace, views, inputs, contributions, parameter_share(bundle))
