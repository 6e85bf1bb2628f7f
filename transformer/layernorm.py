"""Layer normalization (Ba et al., 2016), as used around every sublayer in the paper.

Each token is normalized over its own d_model features, so its statistics never depend on the
other sentences in a batch or on padding — unlike BatchNorm, whose per-feature statistics shift
with batch composition and sequence length (the app's LayerNorm page shows both).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from transformer.hooks import HookPoint


class LayerNorm(nn.Module):
    """y = gain * (x - mean) / sqrt(var + eps) + bias, over the last dimension.

    Uses the biased variance, like `torch.nn.LayerNorm`. (The Annotated Transformer divides by
    std + eps with the unbiased std; the difference is small but would break the oracle test.)
    """

    def __init__(self, d_model: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.gain = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))
        self.eps = eps
        self.hook_in = HookPoint()  # (B, T, d_model)
        self.hook_out = HookPoint()  # (B, T, d_model)

    def forward(self, x: Tensor) -> Tensor:
        x = self.hook_in(x)
        mean = x.mean(dim=-1, keepdim=True)  # (B, T, 1)
        var = x.var(dim=-1, keepdim=True, unbiased=False)  # (B, T, 1)
        return self.hook_out(self.gain * (x - mean) / torch.sqrt(var + self.eps) + self.bias)
