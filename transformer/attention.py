"""Scaled dot-product attention and multi-head attention (paper §3.2, Figure 2).

    Attention(Q, K, V) = softmax(Q Kᵀ / sqrt(d_k)) V

The steps are separate functions so that `MultiHeadAttention` can put a hook point between each
(scores, mask, masked scores, pattern) while `scaled_dot_product_attention` stays the plain
composition that oracle tests compare with PyTorch's own.

This file is the paper and nothing else. Runs that need speed (a long input, bfloat16 arithmetic, lent memory,
a key/value cache) hand the steps after the projections to the engine through one seam, `run_by`: a per-call
context, as `transformer.hooks.capture` is, so concurrent calls never see each other's. The engine
(`transformer.engine.attend`) computes the same steps with the same hook points, and the contract test
(`tests/transformer/test_engine_contract.py`) holds it to this file's numbers.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Protocol

import torch
from torch import Tensor, nn

from transformer.dropout import Dropout
from transformer.hooks import HookPoint


def attention_scores(q: Tensor, k: Tensor) -> Tensor:
    """Q Kᵀ / sqrt(d_k): dividing keeps the dot products' variance near 1 whatever d_k is.

    Shape: q (..., Tq, d_k), k (..., Tk, d_k) → (..., Tq, Tk).
    """
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])


def apply_mask(scores: Tensor, allowed: Tensor | None) -> Tensor:
    """Set disallowed scores to the dtype's most negative finite value (not -inf: no NaN rows)."""
    if allowed is None:
        return scores
    return scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)


def masked_softmax(masked_scores: Tensor, allowed: Tensor | None) -> Tensor:
    """Softmax over keys, with disallowed keys at exactly 0.

    With at least one allowed key, exp(min - max) underflows to 0 already; zeroing again makes a
    fully masked row all zeros (it attends to nothing) rather than a uniform row over masked keys.
    """
    pattern = masked_scores.softmax(dim=-1)
    return pattern if allowed is None else pattern.masked_fill(~allowed, 0.0)


def scaled_dot_product_attention(q: Tensor, k: Tensor, v: Tensor, allowed: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """The paper's Attention(Q, K, V), returning the output and the attention weights.

    Args:
        q: (..., Tq, d_k); k: (..., Tk, d_k); v: (..., Tk, d_v).
        allowed: boolean, broadcastable to (..., Tq, Tk); True where a query may attend to a key.
    Returns:
        output (..., Tq, d_v) and pattern (..., Tq, Tk), each row summing to 1 (0 if fully masked).
    """
    pattern = masked_softmax(apply_mask(attention_scores(q, k), allowed), allowed)
    return pattern @ v, pattern


class Engine(Protocol):
    """What takes over a call's attention inside `run_by` (`transformer.engine.attend.ENGINE`)."""

    def attend(self, attention: MultiHeadAttention, q: Tensor, key: Tensor, value: Tensor, allowed: Tensor | None) -> Tensor:
        """Each head's weighted sum of values (B, H, Tq, d_k), as `MultiHeadAttention.attend` computes it, from
        the queries (B, H, Tq, d_k) and the keys' and values' inputs (B, Tk', d_model): the keys and values come
        from `attention.project_keys_values` (or a key/value cache that calls it), every hook point is passed."""
        ...

    def first_position(self, attention: MultiHeadAttention) -> int:
        """The position of this call's first new token: how many earlier positions a key/value cache already holds
        for `attention` (0 outside incremental decoding). Rotary positions turn q and k from there."""
        ...


_ENGINE: ContextVar[Engine | None] = ContextVar("attention_atlas_engine", default=None)


def first_position(attention: MultiHeadAttention) -> int:
    """The position of the current call's first new token (`Engine.first_position`; 0 without an engine)."""
    engine = _ENGINE.get()
    return 0 if engine is None else engine.first_position(attention)


@contextlib.contextmanager
def run_by(engine: Engine | None) -> Iterator[None]:
    """The seam: attention calls made inside this block (in this context only) are computed by `engine`
    (None: by the paper's steps below)."""
    token = _ENGINE.set(engine)
    try:
        yield
    finally:
        _ENGINE.reset(token)


class MultiHeadAttention(nn.Module):
    """h heads attending in parallel to different learned projections (paper §3.2.2).

        MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O,  head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)

    Each of W^Q, W^K, W^V is one (d_model → d_model) matmul for all heads at once, split into
    h slices of d_k afterwards. A variant (rotary positions, grouped keys and values, normalized queries and keys)
    overrides `project_queries` and `project_keys_values`; the engine calls them too.
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        assert d_model % n_heads == 0, "TransformerConfig validates this"
        self.n_heads = n_heads
        self.d_k = d_model // n_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = Dropout(dropout)
        self.hook_q = HookPoint()  # (B, H, Tq, d_k)
        self.hook_k = HookPoint()  # (B, H, Tk, d_k)
        self.hook_v = HookPoint()  # (B, H, Tk, d_k)
        self.hook_scores = HookPoint()  # (B, H, Tq, Tk)  Q Kᵀ / sqrt(d_k), before masking
        self.hook_mask = HookPoint()  # (B, 1, Tq, Tk)  bool, True = may attend
        self.hook_masked_scores = HookPoint()  # (B, H, Tq, Tk)
        self.hook_pattern = HookPoint()  # (B, H, Tq, Tk)  softmax: rows sum to 1
        self.hook_z = HookPoint()  # (B, H, Tq, d_k)  each head's weighted sum of values
        self.hook_out = HookPoint()  # (B, Tq, d_model) after W^O

    def _split_heads(self, x: Tensor) -> Tensor:
        b, t, _ = x.shape
        return x.view(b, t, self.n_heads, self.d_k).transpose(1, 2)  # (B, H, T, d_k)

    def project_queries(self, query: Tensor) -> Tensor:
        """Q W^Q split into heads: (B, Tq, d_model) → (B, H, Tq, d_k)."""
        return self.hook_q(self._split_heads(self.w_q(query)))

    def project_keys_values(self, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """K W^K and V W^V split into heads: (B, Tk, d_model) each → (B, H, Tk, d_k) each."""
        k = self.hook_k(self._split_heads(self.w_k(key)))  # (B, H, Tk, d_k)
        v = self.hook_v(self._split_heads(self.w_v(value)))  # (B, H, Tk, d_k)
        return k, v

    def forward(self, query: Tensor, key: Tensor, value: Tensor, allowed: Tensor | None = None) -> Tensor:
        """
        Args:
            query: (B, Tq, d_model); key, value: (B, Tk, d_model).
            allowed: boolean, broadcastable to (B, 1, Tq, Tk).
        Returns:
            (B, Tq, d_model).
        """
        q = self.project_queries(query)  # (B, H, Tq, d_k)
        engine = _ENGINE.get()
        if engine is not None:  # the seam: a run the engine takes over (`run_by`)
            z = engine.attend(self, q, key, value, allowed)
        else:
            k, v = self.project_keys_values(key, value)  # (B, H, Tk, d_k) each
            z = self.attend(q, k, v, allowed)
        return self.combine_heads(self.hook_z(z))

    def attend(self, q: Tensor, k: Tensor, v: Tensor, allowed: Tensor | None) -> Tensor:
        """Attention(Q, K, V) for every head, a hook point after each step: (B, H, Tq, d_k) each → (B, H, Tq, d_k)."""
        b, _, tq, _ = q.shape
        scores = self.hook_scores(attention_scores(q, k))  # (B, H, Tq, Tk)
        allowed = self.hook_mask(full_mask(allowed, b, tq, k.shape[2], q.device))  # (B, 1, Tq, Tk)
        masked = self.hook_masked_scores(apply_mask(scores, allowed))  # (B, H, Tq, Tk)
        pattern = self.hook_pattern(masked_softmax(masked, allowed))  # (B, H, Tq, Tk)
        return self.dropout(pattern) @ v  # (B, H, Tq, d_k)

    def combine_heads(self, z: Tensor) -> Tensor:
        """The heads' weighted sums (B, H, Tq, d_k), concatenated and projected by W^O → (B, Tq, d_model)."""
        b, _, tq, _ = z.shape
        concat = z.transpose(1, 2).reshape(b, tq, -1)  # (B, Tq, H * d_k)
        return self.hook_out(self.w_o(concat))  # (B, Tq, d_model)


def full_mask(allowed: Tensor | None, b: int, tq: int, tk: int, device: torch.device) -> Tensor:
    """`allowed` (broadcastable; None: every key) as one full (B, 1, Tq, Tk) matrix per sentence: what `hook_mask`
    shows and what an intervention edits."""
    if allowed is None:
        allowed = torch.ones(1, 1, 1, 1, dtype=torch.bool, device=device)
    return allowed.expand(b, 1, tq, tk)
