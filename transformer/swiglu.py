"""The SwiGLU feed-forward network (Shazeer, 2020, "GLU Variants Improve Transformer"), as Llama and Qwen use it.

The paper's FFN(x) = max(0, x W_1 + b_1) W_2 + b_2 has one path through the hidden layer. SwiGLU has two: a
gate, passed through SiLU, multiplies an "up" projection element by element, then W_2 brings it back down:

    FFN_SwiGLU(x) = (SiLU(x W_1) ⊙ x W_3) W_2          SiLU(z) = z · σ(z)

(W_1, W_3, W_2 are Meta's Llama names; a checkpoint's gate_proj, up_proj, down_proj.) Three matrices instead of
two, so d_ff is usually about 8/3 · d_model rather than 4 · d_model for the same parameter count.
"""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn

from transformer.dropout import Dropout
from transformer.hooks import HookPoint


class SwiGLUFeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, bias: bool = False) -> None:
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff, bias=bias)  # the gate (gate_proj)
        self.w_3 = nn.Linear(d_model, d_ff, bias=bias)  # up (up_proj)
        self.w_2 = nn.Linear(d_ff, d_model, bias=bias)  # down (down_proj)
        self.dropout = Dropout(dropout)
        self.hook_gate = HookPoint()  # (B, T, d_ff) SiLU(x W_1): how much of each hidden unit passes
        self.hook_hidden = HookPoint()  # (B, T, d_ff) the gate times x W_3: what W_2 reads

    def forward(self, x: Tensor) -> Tensor:
        gate = self.hook_gate(F.silu(self.w_1(x)))  # (B, T, d_ff)
        hidden = self.hook_hidden(gate * self.w_3(x))  # (B, T, d_ff)
        return self.w_2(self.dropout(hidden))  # (B, T, d_model)
