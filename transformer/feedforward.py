"""Position-wise feed-forward network (paper §3.3): FFN(x) = max(0, x W1 + b1) W2 + b2.

The same two-layer MLP is applied to every position separately; it is where most of a layer's
parameters live (d_model × d_ff twice). The paper's ReLU is one choice of activation; pretrained
families use smoother ones (BERT GELU, GPT-2 GELU's tanh form, Marian SiLU), chosen by the config.
"""

from __future__ import annotations

from collections.abc import Callable

import torch.nn.functional as F
from torch import Tensor, nn

from transformer.dropout import Dropout
from transformer.hooks import HookPoint

ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {
    "relu": F.relu,  # the paper: max(0, x)
    "gelu": F.gelu,  # x Φ(x), exact (BERT)
    "gelu_new": lambda x: F.gelu(x, approximate="tanh"),  # GPT-2's tanh approximation of GELU
    "silu": F.silu,  # x σ(x), "swish" (Marian)
}


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu") -> None:
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = Dropout(dropout)
        self.activation = ACTIVATIONS[activation]
        self.hook_hidden = HookPoint()  # (B, T, d_ff) after the activation

    def forward(self, x: Tensor) -> Tensor:
        hidden = self.hook_hidden(self.activation(self.w_1(x)))  # (B, T, d_ff)
        return self.w_2(self.dropout(hidden))  # (B, T, d_model)
