"""Position-wise feed-forward network (paper §3.3): FFN(x) = max(0, x W1 + b1) W2 + b2.

The same two-layer MLP is applied to every position separately; it is where most of a layer's
parameters live (d_model × d_ff twice).
"""

from __future__ import annotations

from torch import Tensor, nn

from transformer.hooks import HookPoint


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        self.hook_hidden = HookPoint()  # (B, T, d_ff) after ReLU

    def forward(self, x: Tensor) -> Tensor:
        hidden = self.hook_hidden(self.w_1(x).relu())  # (B, T, d_ff)
        return self.w_2(self.dropout(hidden))  # (B, T, d_model)
