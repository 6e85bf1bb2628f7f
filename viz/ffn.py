"""The position-wise feed-forward network, seen per token: the 4× expansion, which units fire, and how
much it adds to the residual stream next to attention.

FFN(x) = max(0, x W1 + b1) W2 + b2 (paper §3.3) widens every token's d_model vector to d_ff (4× in
the paper) and back. After the ReLU most hidden units of a token are exactly 0; the ones that fire
are what this token's FFN "looks up". Each sublayer (attention, cross-attention, FFN) adds its
output to the residual stream; the norms of those outputs show which part changed a token most.

Pure NumPy over captured arrays (hook name → array with the batch dimension; batch item 0 is shown):
    {stack}.layers.{l}.feed_forward.hook_hidden        (B, T, d_ff) after ReLU
    {stack}.layers.{l}.sublayer.{i}.hook_sublayer_out  (B, T, d_model) what sublayer i adds
    {stack}.layers.{l}.sublayer.{i}.hook_resid         (B, T, d_model) the stream after sublayer i
    {stack}.layers.{l}.sublayer.{i}.norm.hook_in/out   (B, T, d_model) that sublayer's LayerNorm
    {src,tgt}_pos.hook_out                              (B, T, d_model) embeddings + PE: where the stream starts
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from hook_names import hook_name, layer_module, stack_input, sublayer_module

SELF_ATTN, CROSS_ATTN, FEED_FORWARD = "self_attn", "cross_attn", "feed_forward"


def _hidden(stack: str, layer: int) -> str:
    return hook_name(layer_module(stack, layer, FEED_FORWARD), "hidden")


def sublayer_kinds(arrays: Mapping[str, np.ndarray], stack: str, layer: int = 0) -> tuple[str, ...]:
    """What each sublayer of a layer is, in order: (self_attn, feed_forward), or with cross_attn between."""
    has_three = hook_name(sublayer_module(stack, layer, 2), "sublayer_out") in arrays
    return (SELF_ATTN, CROSS_ATTN, FEED_FORWARD) if has_three else (SELF_ATTN, FEED_FORWARD)


def n_layers(arrays: Mapping[str, np.ndarray], stack: str) -> int:
    """How many layers of `stack` were captured (their feed-forward hidden units)."""
    n = 0
    while _hidden(stack, n) in arrays:
        n += 1
    return n


def _item(arrays: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    if name not in arrays:
        raise KeyError(f"{name!r} was not captured")
    return np.asarray(arrays[name])[0]


@dataclass(frozen=True)
class FeedForwardView:
    """One layer's FFN on every token of one sequence.

    Attributes:
        stack / layer: which FFN ("encoder" or "decoder", 0-based layer).
        tokens: (T,) labels.
        hidden: (T, d_ff) activations after the ReLU.
        firing: (T, d_ff) bool, hidden > 0: the units that fire.
        fraction_firing: (T,) share of the d_ff units firing for each token.
        top_units: (T, k) the k most active units of each token, most active first.
        output: (T, d_model) what the FFN adds to the residual stream.
        expansion: d_ff / d_model (4 in the paper).
    """

    stack: str
    layer: int
    tokens: tuple[str, ...]
    hidden: np.ndarray
    firing: np.ndarray
    fraction_firing: np.ndarray
    top_units: np.ndarray
    output: np.ndarray
    expansion: float

    @property
    def d_ff(self) -> int:
        return int(self.hidden.shape[1])

    @property
    def d_model(self) -> int:
        return int(self.output.shape[1])

    def fired(self, token: int) -> int:
        """How many of the d_ff units fire for token `token`."""
        return int(self.firing[token].sum())

    @property
    def mean_firing(self) -> float:
        """The share of units firing, averaged over the tokens."""
        return float(self.fraction_firing.mean())

    @property
    def never_firing(self) -> int:
        """Units that fire for no token of this sequence."""
        return int((~self.firing.any(axis=0)).sum())


def feed_forward_view(
    arrays: Mapping[str, np.ndarray], stack: str, layer: int, tokens: Sequence[str], k: int = 8
) -> FeedForwardView:
    """The FFN of `stack` layer `layer` from captured arrays (see the module docstring for the names)."""
    hidden = _item(arrays, _hidden(stack, layer)).astype(np.float32)  # (T, d_ff)
    ffn_index = sublayer_kinds(arrays, stack, layer).index(FEED_FORWARD)
    output = _item(arrays, hook_name(sublayer_module(stack, layer, ffn_index), "sublayer_out")).astype(np.float32)  # (T, d_model)
    if len(tokens) != hidden.shape[0]:
        raise ValueError(f"{len(tokens)} token labels for {hidden.shape[0]} positions")
    firing = hidden > 0
    k = max(0, min(k, hidden.shape[1]))
    top = np.argsort(-hidden, axis=1, kind="stable")[:, :k]  # (T, k)
    return FeedForwardView(
        stack=stack,
        layer=layer,
        tokens=tuple(tokens),
        hidden=hidden,
        firing=firing,
        fraction_firing=firing.mean(axis=1),
        top_units=top,
        output=output,
        expansion=hidden.shape[1] / output.shape[1],
    )


@dataclass(frozen=True)
class ResidualContributions:
    """How much each sublayer adds to the residual stream, per layer and token.

    Attributes:
        stack: "encoder" or "decoder".
        kinds: the sublayers of a layer in order, e.g. ("self_attn", "feed_forward").
        tokens: (T,) labels.
        start: (T, d_model) the stream before layer 0 (embeddings + positional encoding).
        outputs: (L, S, T, d_model) what sublayer s of layer l adds (after dropout, before any LayerNorm).
        norms: (L, S, T) L2 norms of `outputs`: the size of each contribution.
        stream_norms: (L, S, T) L2 norm of the residual stream after each sublayer.
        norm_position: "pre" or "post", from the model's config.
    """

    stack: str
    kinds: tuple[str, ...]
    tokens: tuple[str, ...]
    start: np.ndarray
    outputs: np.ndarray
    norms: np.ndarray
    stream_norms: np.ndarray
    norm_position: str

    def share(self, kind: str) -> np.ndarray:
        """(L, T) this kind's norm as a share of the layer's summed contribution norms (0..1)."""
        total = self.norms.sum(axis=1)  # (L, T)
        return np.divide(self.norms[:, self.kinds.index(kind)], total, out=np.zeros_like(total), where=total > 0)


def residual_contributions(
    arrays: Mapping[str, np.ndarray], stack: str, tokens: Sequence[str], norm_position: str
) -> ResidualContributions:
    """Each sublayer's output and the stream after it, for every layer of `stack`.

    Pre-norm: stream after sublayer = stream before + sublayer output, so the final stream (before the
    stack's last LayerNorm) is `start + outputs.sum((0, 1))`. Post-norm: LayerNorm follows each addition,
    so what adds up is the norm's input: `norm.hook_in = stream before + sublayer output`, and the
    stream after is that sum normalized.
    """
    layers = n_layers(arrays, stack)
    if layers == 0:
        raise KeyError(f"no {stack} layers were captured")
    kinds = sublayer_kinds(arrays, stack)
    start = _item(arrays, stack_input(stack)).astype(np.float32)  # (T, d_model)
    outputs = np.stack(
        [
            np.stack([_item(arrays, hook_name(sublayer_module(stack, layer, i), "sublayer_out")) for i in range(len(kinds))])
            for layer in range(layers)
        ]
    ).astype(np.float32)  # (L, S, T, d_model)
    streams = np.stack(
        [
            np.stack([_item(arrays, hook_name(sublayer_module(stack, layer, i), "resid")) for i in range(len(kinds))])
            for layer in range(layers)
        ]
    ).astype(np.float32)  # (L, S, T, d_model)
    if len(tokens) != start.shape[0]:
        raise ValueError(f"{len(tokens)} token labels for {start.shape[0]} positions")
    if norm_position not in ("pre", "post"):
        raise ValueError(f"norm_position must be 'pre' or 'post', got {norm_position!r}")
    return ResidualContributions(
        stack=stack,
        kinds=kinds,
        tokens=tuple(tokens),
        start=start,
        outputs=outputs,
        norms=np.linalg.norm(outputs, axis=-1),
        stream_norms=np.linalg.norm(streams, axis=-1),
        norm_position=norm_position,
    )
