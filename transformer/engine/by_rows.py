"""A large layer's attention inside bfloat16 arithmetic, a block of query rows at a time.

Computed whole, a layer's (B, H, Tq, Tk) float32 scores go through memory at every step (the product, the mask,
the softmax, the kept float16 copy, the bfloat16 copy for weights·V): some 400 MB of traffic for a GPT-2-sized
layer at 1,024 tokens. A block of rows (`ROW_BLOCK_BYTES`) takes every step while it is in cache. The engine
(`transformer.engine.attend`) takes this road where `takes_rows` says so.
"""

from __future__ import annotations

import torch
from torch import Tensor

from transformer.attention import MultiHeadAttention
from transformer.engine.records import edited, observed
from transformer.engine.steps import apply_mask, attention_scores, masked_softmax, scores_dtype, weighted_values

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

    The steps are the engine's own (`transformer.engine.steps`: `attention_scores`, `apply_mask`, `masked_softmax`,
    `weighted_values`), on each block's rows: every row's weights are its softmax over the keys it may read, in
    float32, as the whole matrix's are. Only the order in which a row's exponentials are summed may differ, which
    moves a weight by float32 rounding (the tests compare within 1e-6), far inside bfloat16's products.

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


def takes_rows(attention: MultiHeadAttention, q: Tensor, tk: int) -> bool:
    """Whether a call computes its weights a block of query rows at a time (`attention_by_rows`): inside bfloat16
    arithmetic, without autograd or dropout, on a large layer whose scores nobody records or edits and whose
    weights no intervention edits (they may be recorded: the blocks write them whole)."""
    b, h, tq, _ = q.shape
    return (
        scores_dtype(q) != q.dtype
        and not torch.is_grad_enabled()
        and not (attention.dropout.training and attention.dropout.p > 0)
        and b * h * tq * tk >= BY_ROWS_CELLS
        and not observed(attention.hook_scores)
        and not observed(attention.hook_masked_scores)
        and not edited(attention.hook_pattern)
    )
