"""Root-mean-square layer normalization (Zhang & Sennrich, 2019), as Llama and Qwen use it in place of LayerNorm.

LayerNorm subtracts each token's mean, divides by its standard deviation, then scales and shifts. RMSNorm keeps
only the division, by the root mean square, and the scale:

    RMSNorm(x) = gain · x / sqrt(mean(x²) + eps)        (no mean subtracted, no bias)

One statistic per token instead of two, and the direction of x is kept (LayerNorm's centring moves it). The
LayerNorm page shows both on the reader's text.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from transformer.hooks import HookPoint


class RMSNorm(nn.Module):
    """y = gain · x / sqrt(mean(x²) + eps) over the last dimension, computed in float32 (as the checkpoints were
    trained: a bfloat16 mean of squares loses the small features) and returned in x's dtype."""

    def __init__(self, d_model: int, eps: float = 1e-6, hooks: bool = True) -> None:
        """`hooks=False`: no hook points (Qwen3's per-head q/k norms, inside attention, whose input the attention's
        own `hook_q`/`hook_k` neighbours already show)."""
        super().__init__()
        self.gain = nn.Parameter(torch.ones(d_model))
        self.eps = eps
        self.hook_in = HookPoint() if hooks else None  # (B, T, d_model)
        self.hook_out = HookPoint() if hooks else None  # (B, T, d_model)

    def forward(self, x: Tensor) -> Tensor:
        if self.hook_in is not None:
            x = self.hook_in(x)
        y = self.reference(x)
        return y if self.hook_out is None else self.hook_out(y)

    def reference(self, x: Tensor) -> Tensor:
        """The formula (the computation itself: it is four operations): (..., d) → (..., d)."""
        x32 = x.float()
        rms_inverse = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + self.eps)  # (..., 1)
        return self.gain * (x32 * rms_inverse).to(x.dtype)
