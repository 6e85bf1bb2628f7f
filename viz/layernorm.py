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

STACK_INPUT = {"encoder": "src_pos.hook_out", "decoder": "tgt_pos.hook_out"}  # embeddings + PE
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
        if self.layer is None:
            return f"{self.stack}.norm"
        return f"{self.stack}.layers.{self.layer}.sublayer.{self.sublayer}.norm"

    @property
    def hook_in(self) -> str:
        return f"{self.prefix}.hook_in"

    @property
    def hook_out(self) -> str:
        return f"{self.prefix}.hook_out"

    @property
    def resid(self) -> str | None:
        """The residual stream after this sublayer (None for the final norm: its output is the stack's)."""
        return None if self.layer is None else f"{self.stack}.layers.{self.layer}.sublayer.{self.sublayer}.hook_resid"

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
    for name in hook_names:
        if not name.endswith("norm.hook_in") or (stack is not None and not name.startswith(f"{stack}.")):
            continue
        parts = name.split(".")
        if parts[1] != "layers":  # "encoder.norm.hook_in"
            sites.append(NormSite(parts[0], None, None, "final"))
            continue
        here, layer, sub = parts[0], int(parts[2]), int(parts[4])
        inside = f"{here}.layers.{layer}."
        present = [k for k in SUBLAYER_KINDS if any(n.startswith(f"{inside}{k}.") for n in hook_names)]
        sites.append(NormSite(here, layer, sub, present[sub]))
    return sites


def stacks(hook_names: Sequence[str]) -> list[str]:
    """The stacks this model has, in forward order."""
    return [s for s in ("encoder", "decoder") if f"{s}.layers.0.sublayer.0.norm.hook_in" in hook_names]


def capture_names(hook_names: Sequence[str], stack: str | None = None) -> tuple[str, ...]:
    """Hook names the LayerNorm views need: each norm's input and output, residual stream, stack input."""
    wanted = [STACK_INPUT[s] for s in stacks(hook_names) if stack in (None, s)]
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
        points, streams = ["input"], [arrays[STACK_INPUT[stack]][0]]
        for site in sites:
            name = site.resid or site.hook_out
            points.append(site.prefix)
            streams.append(arrays[name][0])
        norm = np.linalg.norm(np.stack(streams).astype(np.float64), axis=-1)  # (R, T)
        return cls(stack, sites, in_mean, in_std, out_mean, out_std, tuple(points), norm)
