"""Scratch memory one run lends its attention layers for their (B, H, Tq, Tk) scores, so each layer writes over the
last one's instead of a fresh tensor.

Why: a GPT-2-sized layer at 1,024 tokens computes 50 MB of float32 scores. Written into freshly allocated memory,
the product pays for the kernel's first touch of every page: 24 ms against 11 into a tensor already in hand
(measured on two cores), and the run asked for a fresh 50 MB at every one of its 12 layers. When nothing keeps a
layer's scores, masked scores or weights beyond that layer (no gradient will read them, and its hook points record
copies or nothing: `transformer.engine.records.may_keep`), they are dead once the weighted sum of values is taken,
and the next layer may write over them.

Lent only inside `lending()` (`transformer.engine.decoding.trace_text` wraps each run in it; the engine computes
attention inside it) and freed when it ends: a buffer per thread for the life of the server would hold 50 MB for
every session that once read a long text. Small tensors are never lent (`LEND_ELEMENTS`): the allocator hands
those back from memory it already holds.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator

import torch
from torch import Tensor

from transformer.engine.attend import engaged
from transformer.engine.steps import lent_by, scratch

LEND_ELEMENTS = 2**20
"""Elements from which a tensor is lent rather than allocated: 4 MB of float32, where a fresh allocation starts to
come from new pages (glibc maps blocks above 32 MB afresh; PyTorch's own allocator keeps nothing on the CPU)."""


class Workspace:
    """One growing buffer per purpose and dtype; a lent tensor is valid until the next `take` of that purpose."""

    def __init__(self) -> None:
        self._buffers: dict[tuple[str, torch.dtype], Tensor] = {}

    def take(self, purpose: str, shape: tuple[int, ...], dtype: torch.dtype) -> Tensor:
        """A contiguous tensor of `shape` and `dtype`, its contents undefined, over the buffer kept for `purpose`."""
        n = math.prod(shape)
        buffer = self._buffers.get((purpose, dtype))
        if buffer is None or buffer.numel() < n:
            self._buffers.pop((purpose, dtype), None)  # the smaller one goes before the larger one is made
            buffer = self._buffers[(purpose, dtype)] = torch.empty(n, dtype=dtype)
        return buffer[:n].view(shape)

    def lend(self, purpose: str, shape: tuple[int, ...], dtype: torch.dtype) -> Tensor | None:
        """`take`, or None for a small tensor (`LEND_ELEMENTS`): the allocator hands those back from memory it holds."""
        return None if math.prod(shape) < LEND_ELEMENTS else self.take(purpose, shape, dtype)


@contextlib.contextmanager
def lending() -> Iterator[Workspace]:
    """Lend scratch memory to the calls made inside (in this context only); it is freed when the block ends."""
    workspace = Workspace()
    with lent_by(workspace), engaged():
        yield workspace


__all__ = ["LEND_ELEMENTS", "Workspace", "lending", "scratch"]  # `scratch` is `transformer.engine.steps.scratch`
