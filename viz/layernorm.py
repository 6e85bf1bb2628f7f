"""LayerNorm statistics of one run: where each LayerNorm sits, and what it does to every token.

LayerNorm(x) = g ⊙ (x − μ) / sqrt(σ² + ε) + b, with μ and σ taken over one token's own d_model
features. So whatever a sublayer did to a token's scale, the output starts again from mean 0 and
standard deviation 1 (before the learned gain g and bias b). The residual stream — the running
sum every sublayer reads from and adds to — behaves differently in post-norm (the paper: the norm
is on the stream, so its size is reset after every sublayer) and pre-norm (the norm only feeds the
sublayer, so the stream keeps growing). Names follow the hook points: `...sublayer.N.norm.hook_in`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from hook_names import STACKS, hook_name, layer_module, norm_module, parse, stack_input, sublayer_module

SUBLAYER_KINDS = ("self_attn", "cross_attn", "feed_forward")  # module order inside a layer


@dataclass(frozen=True)
class NormSite:
    """One LayerNorm of the model: in layer `layer`'s sublayer `sublayer`, or the stack's final norm."""

    stack: str  # "encoder" | "decoder"
    layer: int | None  # None: the final LayerNorm after the stack (pre-norm models only)
    sublayer: int | None
    kind: str  # "self_attn" | "cross_attn" | "feed_forward" | "final"

    @property
    def prefix(self) -> str:
        return norm_module(self.stack, self.layer, self.sublayer or 0)

    @property
    def hook_in(self) -> str:
        return hook_name(self.prefix, "in")

    @property
    def hook_out(self) -> str:
        return hook_name(self.prefix, "out")

    @property
    def resid(self) -> str | None:
        """The residual stream after this sublayer (None for the final norm: its output is the stack's)."""
        if self.layer is None:
            return None
        return hook_name(sublayer_module(self.stack, self.layer, self.sublayer or 0), "resid")

    @property
    def gain(self) -> str:
        """Parameter names of the learned gain and bias in the model's state dict."""
        return f"{self.prefix}.gain"

    @property
    def bias(self) -> str:
        return f"{self.prefix}.bias"


def norm_sites(hook_names: Sequence[str], stack: str | None = None) -> list[NormSite]:
    """Every LayerNorm in forward order (encoder first), read from the model's hook names."""
    sites = []
    parsed = [parse(name) for name in hook_names]
    for hook in parsed:
        if hook.hook != "in" or not hook.module.endswith("norm") or hook.stack is None or stack not in (None, hook.stack):
            continue
        if hook.layer is None:  # the stack's final norm, "encoder.norm.hook_in" (not BERT's "src_pos.norm" over the embeddings)
            if hook.module == norm_module(hook.stack, None):
                sites.append(NormSite(hook.stack, None, None, "final"))
            continue
        sub = int(hook.module.split(".")[-2])  # "<stack>.layers.<i>.sublayer.<sub>.norm"
        present = [
            k
            for k in SUBLAYER_KINDS
            if any(
                p.stack == hook.stack and p.layer == hook.layer and p.module == layer_module(hook.stack, hook.layer, k)
                for p in parsed
            )
        ]
        sites.append(NormSite(hook.stack, hook.layer, sub, present[sub]))
    return sites


def stacks(hook_names: Sequence[str]) -> list[str]:
    """The stacks this model has, in forward order."""
    return [s for s in STACKS if hook_name(norm_module(s, 0, 0), "in") in hook_names]


def capture_names(hook_names: Sequence[str], stack: str | None = None) -> tuple[str, ...]:
    """Hook names the LayerNorm views need: each norm's input and output, residual stream, stack input."""
    wanted = [stack_input(s) for s in stacks(hook_names) if stack in (None, s)]
    for site in norm_sites(hook_names, stack):
        wanted += [site.hook_in, site.hook_out] + ([site.resid] if site.resid else [])
    return tuple(wanted)


def token_stats(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and (biased, like LayerNorm) standard deviation over the last axis: (..., d) → (...), (...)."""
    x64 = x.astype(np.float64)
    return x64.mean(axis=-1), x64.std(axis=-1)


def remove_affine(y: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """(y − b) / g: a LayerNorm output before its gain and bias (should have mean 0, std 1 per token)."""
    return (y.astype(np.float64) - bias) / np.where(gain == 0, 1.0, gain)


@dataclass(frozen=True)
class StackStats:
    """Per-site, per-token LayerNorm statistics and residual-stream norms of one stack (batch item 0).

    `stream_points` are the places the residual stream is measured: the stack's input (embeddings + PE),
    after every sublayer, and after the final norm when there is one.
    """

    stack: str
    sites: tuple[NormSite, ...]
    in_mean: np.ndarray  # (S, T)
    in_std: np.ndarray  # (S, T)
    out_mean: np.ndarray  # (S, T)
    out_std: np.ndarray  # (S, T)
    stream_points: tuple[str, ...]  # "input", then site prefixes
    stream_norm: np.ndarray  # (R, T) L2 norm of each token's residual vector

    @classmethod
    def compute(cls, arrays: Mapping[str, np.ndarray], hook_names: Sequence[str], stack: str) -> StackStats:
        sites = tuple(norm_sites(hook_names, stack))
        in_mean, in_std = token_stats(np.stack([arrays[s.hook_in][0] for s in sites]))  # (S, T)
        out_mean, out_std = token_stats(np.stack([arrays[s.hook_out][0] for s in sites]))
        points, streams = ["input"], [arrays[stack_input(stack)][0]]
        for site in sites:
            name = site.resid or site.hook_out
            points.append(site.prefix)
            streams.append(arrays[name][0])
        norm = np.linalg.norm(np.stack(streams).astype(np.float64), axis=-1)  # (R, T)
        return cls(stack, sites, in_mean, in_std, out_mean, out_std, tuple(points), norm)

    def last_stream_norm(self, norm_position: str) -> float:
        """Mean residual-stream norm at the stack's last sublayer: the last point (post-norm), or the
        point before the final LayerNorm (pre-norm, where the stream itself is never normalized)."""
        return float(self.stream_norm[-1 if norm_position == "post" else -2].mean())
