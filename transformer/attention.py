"""Scaled dot-product attention and multi-head attention (paper §3.2, Figure 2).

    Attention(Q, K, V) = softmax(Q Kᵀ / sqrt(d_k)) V

The steps are separate functions so that `MultiHeadAttention` can put a hook point between each
(scores, mask, masked scores, pattern) while `scaled_dot_product_attention` stays the plain
composition that oracle tests compare with PyTorch's own.
"""

from __future__ import annotations

import math
from typing import Protocol

import torch
from torch import Tensor, nn

from transformer.dropout import Dropout
from transformer.engine.precision import scores_in_float32
from transformer.engine.workspace import scratch
from transformer.hooks import HookPoint


def scores_dtype(q: Tensor) -> torch.dtype:
    """The dtype `attention_scores(q, k)` computes in: float32 for lower-precision queries inside bfloat16
    arithmetic (`transformer.engine.precision.scores_in_float32`), else the queries' own."""
    return torch.float32 if q.dtype != torch.float32 and scores_in_float32() else q.dtype


def attention_scores(q: Tensor, k: Tensor, lent: bool = False) -> Tensor:
    """Q Kᵀ / sqrt(d_k): dividing keeps the dot products' variance near 1 whatever d_k is.

    Shape: q (..., Tq, d_k), k (..., Tk, d_k) → (..., Tq, Tk).

    Inside `transformer.engine.precision.arithmetic("bfloat16")` the bfloat16 queries and keys are multiplied in float32
    (autocast off for this product): a score's rounding would become a factor on its weight after the softmax.
    `lent`: written into the scratch memory the run lends, where it lends some (`transformer.engine.workspace`); the
    caller promises that nothing keeps these scores beyond its layer. The same numbers, bit for bit.
    """
    if scores_dtype(q) != q.dtype:
        with torch.autocast(q.device.type, enabled=False):
            return attention_scores(q.float(), k.float(), lent)
    same_batch = q.shape[:-2] == k.shape[:-2]  # (torch.broadcast_shapes took 25 µs, a tenth of a small model's layer)
    out = scratch("scores", (*q.shape[:-1], k.shape[-2]), q.dtype) if lent and same_batch else None
    product = q @ k.transpose(-2, -1) if out is None else torch.matmul(q, k.transpose(-2, -1), out=out)  # (..., Tq, Tk)
    return product.div_(math.sqrt(q.shape[-1]))  # divided in place: a fresh product, or lent memory


def _overwritable(x: Tensor, in_place: bool) -> bool:
    """Whether `x` may be overwritten: the caller says nothing else holds it, no gradient will read it, and its
    elements are its own (not a broadcast view, whose one element stands for many: a slice of the caller's own
    tensor is fine, and is written where it lies)."""
    return in_place and not x.requires_grad and all(stride or size == 1 for stride, size in zip(x.stride(), x.shape, strict=True))


def apply_mask(scores: Tensor, allowed: Tensor | None, in_place: bool = False) -> Tensor:
    """Set disallowed scores to the dtype's most negative finite value (not -inf: no NaN rows).

    `in_place`: the scores are the caller's own fresh tensor, which nothing records: they are masked where they
    are. Each layer of a GPT-2-sized model at 1,024 tokens has 50 MB of scores, and writing a new tensor of that
    size costs more in the kernel's first touch of its pages than in the arithmetic (measured: 15 ms, against 1 ms
    to write over one already in hand).
    """
    if allowed is None:
        return scores
    if _overwritable(scores, in_place):
        return scores.masked_fill_(~allowed, torch.finfo(scores.dtype).min)
    return scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)


def masked_softmax(masked_scores: Tensor, allowed: Tensor | None, in_place: bool = False) -> Tensor:
    """Softmax over keys, with disallowed keys at exactly 0.

    With at least one allowed key, exp(min - max) underflows to 0 already; zeroing again makes a
    fully masked row all zeros (it attends to nothing) rather than a uniform row over masked keys.
    So the weights are zeroed only where some row is fully masked: the zeroing is a pass over every weight
    (3.5 ms a layer for a GPT-2-sized model at 1,024 tokens), the check one over the mask alone.
    `in_place`: the weights overwrite the masked scores (see `apply_mask`; the same numbers, bit for bit).
    """
    if _overwritable(masked_scores, in_place) and masked_scores.is_contiguous():  # softmax writes whole rows over itself
        pattern = torch.softmax(masked_scores, dim=-1, out=masked_scores)
    else:
        pattern = masked_scores.softmax(dim=-1)
    if allowed is None or (not pattern.requires_grad and bool(allowed.any(dim=-1).all())):
        return pattern
    if pattern.requires_grad:  # softmax's backward reads its output: zero a copy
        return pattern.masked_fill(~allowed, 0.0)
    return pattern.masked_fill_(~allowed, 0.0)  # a fresh tensor (or the scores' own), zeroed where it is


def weighted_values(weights: Tensor, v: Tensor, lent: bool = False) -> Tensor:
    """weights @ V: each query's sum of the values, weighted by its row. (..., Tq, Tk) @ (..., Tk, d_v) → (..., Tq, d_v).

    Inside bfloat16 arithmetic autocast rounds the float32 weights to bfloat16 for this product, into a fresh tensor
    (25 MB for a GPT-2-sized layer at 1,024 tokens, and its first touch costs more than the rounding). `lent`: they
    are rounded into the run's lent memory instead (`transformer.engine.workspace`), the same numbers, bit for bit.
    """
    device = weights.device.type
    if lent and torch.is_autocast_enabled(device) and weights.dtype != (low := torch.get_autocast_dtype(device)):
        rounded = scratch("weights", tuple(weights.shape), low)
        if rounded is not None:
            return rounded.copy_(weights) @ v
    return weights @ v


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


BY_ROWS_CELLS = 2**20
"""Attention cells (B·H·Tq·Tk) from which a layer inside bfloat16 arithmetic is computed a block of query rows at a
time (`attention_by_rows`); below it the whole matrix is a few megabytes and stays in cache anyway."""
ROW_BLOCK_BYTES = 6 * 2**20
"""About the float32 scores of one block of query rows, every head's: 128 rows of a GPT-2-sized layer at 1,024
keys, few enough to stay in cache through the block's steps."""


def _key_span(allowed: Tensor) -> tuple[int, int]:
    """(first, reach) for a block's `allowed` (..., R, Tk): `reach` is 1 + the last key any query may attend to (at
    least 1; the keys after it are masked for every row of the block), `first` the first key below `reach` that some
    query may not attend to (`reach` when there is none). Keys before `first` need no mask: under a causal mask
    that is every key before the block's first row, most of a late block's keys."""
    rows = allowed.reshape(-1, allowed.shape[-1])  # (B·R, Tk)
    keys = rows.any(dim=0).nonzero()  # (n, 1) the keys some row may read
    reach = int(keys[-1]) + 1 if len(keys) else 1
    barred = (~rows[:, :reach].all(dim=0)).nonzero()  # (m, 1) the keys some row may not read
    return (int(barred[0]) if len(barred) else reach), reach


def attention_by_rows(q: Tensor, k: Tensor, v: Tensor, allowed: Tensor, pattern: Tensor | None = None) -> Tensor:
    """Attention inside bfloat16 arithmetic, a block of query rows at a time: the weighted sums of values, and the
    weights written into `pattern` (B, H, Tq, Tk) when it is given (where they are recorded, in its dtype).

    Why: computed whole, a layer's (B, H, Tq, Tk) float32 scores go through memory at every step (the product, the
    mask, the softmax, the kept float16 copy, the bfloat16 copy for weights·V): some 400 MB of traffic for a
    GPT-2-sized layer at 1,024 tokens. A block of rows (`ROW_BLOCK_BYTES`) takes every step while it is in cache.
    And a block's keys stop at the last one any of its rows may read (`_key_span`): under a causal mask the later
    keys are masked for the whole block, get exactly 0 weight, and are neither multiplied nor exponentiated. The
    1,022-token run of a GPT-2-sized model went from 0.77 to 0.63 s (two cores).

    The steps are this module's own (`attention_scores`, `apply_mask`, `masked_softmax`, `weighted_values`), on
    each block's rows: every row's weights are its softmax over the keys it may read, in float32, as the whole
    matrix's are. Only the order in which a row's exponentials are summed may differ, which moves a weight by
    float32 rounding (the tests compare within 1e-6), far inside bfloat16's products.

    Args:
        q: (B, H, Tq, d_k); k: (B, H, Tk, d_k); v: (B, H, Tk, d_v), bfloat16 (autocast's products).
        allowed: (B, 1, Tq, Tk) boolean, True where a query may attend to a key.
    """
    b, h, tq, _ = q.shape
    tk = k.shape[-2]
    device = q.device.type
    with torch.autocast(device, enabled=False):
        q, k = q.float(), k.float()  # the scores in float32, as `attention_scores` computes them
    z: Tensor | None = None  # (B, H, Tq, d_v) in the dtype of the products
    rows_per_block = max(1, ROW_BLOCK_BYTES // (4 * b * h * tk))
    for start in range(0, tq, rows_per_block):
        rows = slice(start, min(start + rows_per_block, tq))
        ok = allowed[:, :, rows]  # (B, 1, R, Tk)
        first, reach = _key_span(ok)
        ok = ok[..., :reach]
        with torch.autocast(device, enabled=False):
            scores = attention_scores(q[:, :, rows], k[:, :, :reach], lent=True)  # (B, H, R, reach)
            apply_mask(scores[..., first:], ok[..., first:], in_place=True)  # the keys before `first` are all allowed
            weights = masked_softmax(scores, ok, in_place=True)
        if pattern is not None:
            pattern[:, :, rows, :reach] = weights
            pattern[:, :, rows, reach:] = 0
        block = weighted_values(weights, v[:, :, :reach], lent=True)  # (B, H, R, d_v)
        if z is None:
            z = block.new_empty((b, h, tq, block.shape[-1]))
        z[:, :, rows] = block
    assert z is not None  # tq >= 1
    return z


class KeyValueStore(Protocol):
    """Where a decoding step's keys and values come from when earlier steps computed some of them
    (`transformer.engine.kv_cache`: self-attention appends the new positions' keys, cross-attention
    projects the encoder's output once)."""

    def keys_values(self, attention: MultiHeadAttention, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """(B, H, Tk, d_k) keys and values of every position a query of this step may read."""
        ...


class MultiHeadAttention(nn.Module):
    """h heads attending in parallel to different learned projections (paper §3.2.2).

        MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O,  head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)

    Each of W^Q, W^K, W^V is one (d_model → d_model) matmul for all heads at once, split into
    h slices of d_k afterwards.
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

    def project_keys_values(self, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """K W^K and V W^V split into heads: (B, Tk, d_model) each → (B, H, Tk, d_k) each."""
        k = self.hook_k(self._split_heads(self.w_k(key)))  # (B, H, Tk, d_k)
        v = self.hook_v(self._split_heads(self.w_v(value)))  # (B, H, Tk, d_k)
        return k, v

    def forward(
        self, query: Tensor, key: Tensor, value: Tensor, allowed: Tensor | None = None, past: KeyValueStore | None = None
    ) -> Tensor:
        """
        Args:
            query: (B, Tq, d_model); key, value: (B, Tk', d_model).
            allowed: boolean, broadcastable to (B, 1, Tq, Tk).
            past: during incremental decoding, the store that holds the keys and values of positions
                earlier steps read (`transformer.engine.kv_cache`); it returns Tk >= Tk' keys. None: Tk = Tk'.
        Returns:
            (B, Tq, d_model).
        """
        b, tq, _ = query.shape
        q = self.hook_q(self._split_heads(self.w_q(query)))  # (B, H, Tq, d_k)
        if past is None:
            k, v = self.project_keys_values(key, value)  # (B, H, Tk, d_k) each
        else:
            k, v = past.keys_values(self, key, value)  # (B, H, Tk, d_k) each, earlier positions' included
        tk = k.shape[2]
        if allowed is None:
            allowed = torch.ones(1, 1, 1, 1, dtype=torch.bool, device=query.device)
        if self._by_rows(q, tk):
            allowed = self.hook_mask(allowed.expand(b, 1, tq, tk))  # (B, 1, Tq, Tk)
            dtype = self.hook_pattern.records_as(torch.float32)  # None: nobody records the weights
            pattern = None if dtype is None else self.hook_pattern.recording_buffer((b, self.n_heads, tq, tk), dtype)
            z = attention_by_rows(q, k, v, allowed, pattern)
            if pattern is not None:
                self.hook_pattern(pattern)  # (B, H, Tq, Tk), recorded where it was built
            return self._output(self.hook_z(z))
        dtype = scores_dtype(q)
        # Each step overwrites the last one's tensor where nothing keeps it (see `apply_mask`): the masked scores are
        # the scores themselves only when those were not kept (masked in place). Where none of the three is kept and
        # no gradient will read them, they are written over the previous layer's (`transformer.engine.workspace`).
        keeps = [hook.may_keep(dtype) for hook in (self.hook_scores, self.hook_masked_scores, self.hook_pattern)]
        lent = not torch.is_grad_enabled() and not any(keeps)
        scores = self.hook_scores(attention_scores(q, k, lent))  # (B, H, Tq, Tk)
        allowed = self.hook_mask(allowed.expand(b, 1, tq, tk))  # (B, 1, Tq, Tk)
        masked = self.hook_masked_scores(apply_mask(scores, allowed, in_place=not keeps[0]))
        pattern = self.hook_pattern(masked_softmax(masked, allowed, in_place=not keeps[1]))
        return self._output(self.hook_z(weighted_values(self.dropout(pattern), v, lent)))

    def _by_rows(self, q: Tensor, tk: int) -> bool:
        """Whether this call computes its weights a block of query rows at a time (`attention_by_rows`): inside
        bfloat16 arithmetic, without autograd or dropout, on a large layer whose scores nobody records or edits and
        whose weights no intervention edits (they may be recorded: the blocks write them whole)."""
        b, h, tq, _ = q.shape
        return (
            scores_dtype(q) != q.dtype
            and not torch.is_grad_enabled()
            and not (self.dropout.training and self.dropout.p > 0)
            and b * h * tq * tk >= BY_ROWS_CELLS
            and not self.hook_scores.observed()
            and not self.hook_masked_scores.observed()
            and not self.hook_pattern.edited()
        )

    def _output(self, z: Tensor) -> Tensor:
        """The heads' weighted sums (B, H, Tq, d_k), concatenated and projected by W^O → (B, Tq, d_model)."""
        b, _, tq, _ = z.shape
        concat = z.transpose(1, 2).reshape(b, tq, -1)  # (B, Tq, H * d_k)
        return self.hook_out(self.w_o(concat))  # (B, Tq, d_model)
