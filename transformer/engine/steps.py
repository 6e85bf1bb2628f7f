"""The paper's attention steps as the engine computes them: the same numbers as `transformer.attention`'s, bit
for bit in float32, with less memory traffic.

- The scores are written into scratch memory the run lends (`lent`, `transformer.engine.workspace`) where nothing
  keeps them beyond their layer.
- The mask and the softmax overwrite the tensor they are given (`in_place`) where nothing else holds it. Each layer
  of a GPT-2-sized model at 1,024 tokens has 50 MB of scores, and writing a new tensor of that size costs more in
  the kernel's first touch of its pages than in the arithmetic (measured: 15 ms, against 1 ms to write over one
  already in hand).
- Inside bfloat16 arithmetic (`transformer.engine.precision`) the scores are computed in float32 from the rounded
  queries and keys: a score's rounding would become a factor on its weight after the softmax.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Protocol

import torch
from torch import Tensor

_SCORES_IN_FLOAT32: ContextVar[bool] = ContextVar("scores_in_float32", default=False)


class Lender(Protocol):
    """Scratch memory a run lends (`transformer.engine.workspace.Workspace`)."""

    def lend(self, purpose: str, shape: tuple[int, ...], dtype: torch.dtype) -> Tensor | None:
        """A lent tensor for `purpose` (the previous one of `purpose` is dead), or None: allocate as usual."""
        ...


_LENDER: ContextVar[Lender | None] = ContextVar("attention_atlas_workspace", default=None)


def scores_in_float32() -> bool:
    """Whether attention scores are computed in float32 from lower-precision queries and keys (inside
    `transformer.engine.precision.arithmetic("bfloat16")`); training's own bfloat16 autocast leaves them as
    autocast makes them."""
    return _SCORES_IN_FLOAT32.get()


@contextlib.contextmanager
def float32_scores() -> Iterator[None]:
    """`scores_in_float32()` inside this block (in this context only)."""
    token = _SCORES_IN_FLOAT32.set(True)
    try:
        yield
    finally:
        _SCORES_IN_FLOAT32.reset(token)


@contextlib.contextmanager
def lent_by(lender: Lender) -> Iterator[None]:
    """`scratch` lends from `lender` inside this block (in this context only)."""
    token = _LENDER.set(lender)
    try:
        yield
    finally:
        _LENDER.reset(token)


def scratch(purpose: str, shape: tuple[int, ...], dtype: torch.dtype) -> Tensor | None:
    """A lent tensor for `purpose`, or None where nothing is lent here or the tensor is small
    (`transformer.engine.workspace.LEND_ELEMENTS`): the caller then allocates as usual. The caller promises that
    the previous tensor of `purpose` is dead."""
    lender = _LENDER.get()
    return None if lender is None else lender.lend(purpose, shape, dtype)


def scores_dtype(q: Tensor) -> torch.dtype:
    """The dtype `attention_scores(q, k)` computes in: float32 for lower-precision queries inside bfloat16
    arithmetic (`transformer.engine.precision.scores_in_float32`), else the queries' own."""
    return torch.float32 if q.dtype != torch.float32 and scores_in_float32() else q.dtype


def attention_scores(q: Tensor, k: Tensor, lent: bool = False) -> Tensor:
    """Q Kᵀ / sqrt(d_k) (`transformer.attention.attention_scores`). Shape: q (..., Tq, d_k), k (..., Tk, d_k) → (..., Tq, Tk).

    Inside `arithmetic("bfloat16")` the bfloat16 queries and keys are multiplied in float32 (autocast off for this
    product). `lent`: written into the scratch memory the run lends, where it lends some; the caller promises that
    nothing keeps these scores beyond its layer. The same numbers, bit for bit.
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
    """Disallowed scores set to the dtype's most negative finite value (`transformer.attention.apply_mask`).
    `in_place`: the scores are the caller's own fresh tensor, which nothing records: they are masked where they are.

    Otherwise (the scores are recorded) the masked copy is written in one pass by `torch.where`: `masked_fill`
    copies, then fills, and reading the copy again cost 2.5× as long (a (1, 14, 512, 512) layer: 5.6 ms against
    2.3 ms, the first touch of the fresh tensor included)."""
    if allowed is None:
        return scores
    if _overwritable(scores, in_place):
        return scores.masked_fill_(~allowed, torch.finfo(scores.dtype).min)
    return torch.where(allowed, scores, torch.finfo(scores.dtype).min)


def masked_softmax(masked_scores: Tensor, allowed: Tensor | None, in_place: bool = False) -> Tensor:
    """Softmax over keys, disallowed keys at exactly 0 (`transformer.attention.masked_softmax`).

    The weights are zeroed only where some row is fully masked (elsewhere exp(min - max) is 0 already): the zeroing
    is a pass over every weight (3.5 ms a layer for a GPT-2-sized model at 1,024 tokens), the check one over the
    mask alone. `in_place`: the weights overwrite the masked scores (see `apply_mask`).
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
    """weights @ V: (..., Tq, Tk) @ (..., Tk, d_v) → (..., Tq, d_v).

    Inside bfloat16 arithmetic autocast rounds the float32 weights to bfloat16 for this product, into a fresh tensor
    (25 MB for a GPT-2-sized layer at 1,024 tokens, and its first touch costs more than the rounding). `lent`: they
    are rounded into the run's lent memory instead, the same numbers, bit for bit.
    """
    device = weights.device.type
    if lent and torch.is_autocast_enabled(device) and weights.dtype != (low := torch.get_autocast_dtype(device)):
        rounded = scratch("weights", tuple(weights.shape), low)
        if rounded is not None:
            return rounded.copy_(weights) @ v
    return weights @ v
