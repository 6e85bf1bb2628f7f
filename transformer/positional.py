"""Token embeddings and positional encodings (paper §3.4, §3.5).

Attention itself is blind to order (permuting the keys permutes nothing in the output but the
order), so position must be added to the token embeddings.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor, nn

from transformer.dropout import Dropout
from transformer.hooks import HookPoint
from transformer.layernorm import LayerNorm


def sinusoidal_encoding(max_len: int, d_model: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d_model)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)).

    Wavelengths form a geometric progression from 2π to 10000·2π, and for any offset k,
    PE(pos + k) is a linear function (a rotation per sin/cos pair) of PE(pos).

    Returns:
        (max_len, d_model) in `dtype`, computed in float64 and rounded once. An odd d_model gets a
        final sine column.
    """
    position = torch.arange(max_len, dtype=torch.float64)[:, None]  # (T, 1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))  # (ceil(d/2),)
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term[: d_model // 2])
    return pe.to(dtype)


def split_sinusoidal_encoding(max_len: int, d_model: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """The same sines and cosines, laid out as Marian (and XLM) do: every sine first, then every cosine.

    Column i < ceil(d/2) is PE(pos, 2i) of `sinusoidal_encoding`, column ceil(d/2) + i is PE(pos, 2i+1):
    a permutation of the paper's columns, so attention sees the same geometry.
    """
    pe = sinusoidal_encoding(max_len, d_model, torch.float64)
    return torch.cat([pe[:, 0::2], pe[:, 1::2]], dim=1).to(dtype)  # (T, d_model)


SINUSOID_TABLES: dict[str, Callable[..., Tensor]] = {
    "sinusoidal": sinusoidal_encoding,
    "sinusoidal-split": split_sinusoidal_encoding,
}


class Embeddings(nn.Module):
    """Learned token embeddings multiplied by sqrt(d_model) (paper §3.4).

    The scale brings embeddings (initialized small) to the magnitude of the positional encoding's
    ±1 values, so neither drowns the other when they are added. Models trained without it (GPT-2,
    BERT) pass `scale=False`; BERT also adds one learned "token type" vector (sentence A) to every
    token (`token_type=True`): the app always reads one sentence, so type 0 is the only one used.
    """

    def __init__(self, vocab_size: int, d_model: int, scale: bool = True, token_type: bool = False) -> None:
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model
        self.scale = math.sqrt(d_model) if scale else 1.0
        self.token_type = nn.Parameter(torch.zeros(d_model)) if token_type else None
        self.hook_tokens = HookPoint()  # (B, T, d_model), after scaling (and the token-type vector)

    def forward(self, ids: Tensor) -> Tensor:
        x = self.lut(ids) * self.scale  # (B, T, d_model)
        if self.token_type is not None:
            x = x + self.token_type
        return self.hook_tokens(x)


class PositionalEncoding(nn.Module):
    """Adds sinusoidal, learned, or no position information to the scaled embeddings.

    With `norm_eps` (BERT) a LayerNorm follows the sum, so the residual stream starts normalized.
    """

    def __init__(self, kind: str, max_len: int, d_model: int, dropout: float, norm_eps: float | None = None) -> None:
        super().__init__()
        self.kind = kind
        self.max_len = max_len
        self.d_model = d_model
        if kind == "learned":  # small, as GPT-2 does; `Transformer` leaves it out of its Xavier init
            self.learned = nn.Parameter(torch.randn(max_len, d_model) * 0.02)
        elif kind in SINUSOID_TABLES:
            self.register_buffer("sinusoid", SINUSOID_TABLES[kind](max_len, d_model), persistent=False)
        self.norm = LayerNorm(d_model, norm_eps) if norm_eps is not None else None
        self.dropout = Dropout(dropout)
        self.hook_pe = HookPoint()  # (1, T, d_model): the encoding added (zeros for kind="none")
        self.hook_out = HookPoint()  # (B, T, d_model): embeddings + PE, the start of the residual stream

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> PositionalEncoding:
        """After `.double()`, `.half()`, `.to(device)`: recompute the sinusoid in the new dtype.

        Casting the float32 table up would keep float32's rounding inside a float64 model; the
        formula is cheap, so the table is exact in whatever dtype the model now uses.
        """
        module = super()._apply(fn, recurse)
        if self.kind in SINUSOID_TABLES:
            table = self.sinusoid
            self.sinusoid = SINUSOID_TABLES[self.kind](self.max_len, self.d_model, dtype=table.dtype).to(table.device)
        return module

    def table(self, like: Tensor | None = None) -> Tensor:
        """The full (max_len, d_model) table of position vectors (for kind="none", zeros like `like`)."""
        if self.kind == "learned":
            return self.learned
        if self.kind in SINUSOID_TABLES:
            return self.sinusoid
        if like is not None:
            return like.new_zeros(self.max_len, self.d_model)
        return torch.zeros(self.max_len, self.d_model)

    def forward(self, x: Tensor, start: int = 0) -> Tensor:
        """x: (B, T, d_model) at positions start .. start + T - 1 (start > 0: incremental decoding)."""
        t = start + x.shape[1]
        if t > self.max_len:
            raise ValueError(f"sequence of {t} tokens is longer than the model's maximum of {self.max_len}")
        pe = self.table(x)[start:t][None]  # (1, T, d_model)
        x = x + self.hook_pe(pe)
        if self.norm is not None:
            x = self.norm(x)
        return self.hook_out(self.dropout(x))
