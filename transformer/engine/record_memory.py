"""Memory for a long run's records, written again by the next long run once nothing holds the last one's.

A GPT-2-sized run at 1,024 tokens records 300 MB of attention weights (`capture(room=)`: a (H, S, S) tensor a
layer, 25 MB). The heap keeps freed blocks of up to 16 MB for reuse (`runs.memory.keep_freed_memory` says why
not more), so each run's records were fresh memory from the kernel, zeroed a page at a time on its first write:
some 75,000 page faults and 0.1-0.2 s of processor time a run, and handing it back cost more. The app shows one
long run at a time: before the next one starts, `ui.caches.release_for` lets go of the last one's large results.
So the next run's records can go where the last run's were: the memory is already the process's, and writing it
costs only the writing.

Lent again only when nothing else holds it: a tensor is kept here as an alias of its memory, and lent only while
that alias is the memory's one user (no tensor, view or NumPy array of it is alive: not the last trace, not a
figure's array, not another session's page). Only the latest capture that made room for its records keeps
them (`capture(room=)`), so at most one run's worth of memory outlives its run, and a run of a small model (whose
records are all small) lets it go.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import torch
from torch import Tensor

KEPT_BYTES = 4 * 2**20
"""The smallest record kept for the next run (a GPT-2-sized layer's is 25 MB; a shipped model's few kilobytes are
fresh memory at no cost worth saving)."""

_LOCK = threading.Lock()  # sessions run on threads of one process
_kept: list[Tensor] = []  # aliases of the latest long capture's records


def _storage_users(tensor: Tensor) -> int | None:
    """How many tensors (and NumPy arrays) use `tensor`'s memory, counting `tensor` itself; None where this
    PyTorch cannot say (then nothing is lent again)."""
    count = getattr(torch._C, "_storage_Use_Count", None)
    if count is None:
        return None
    storage = tensor.untyped_storage()
    return int(count(storage._cdata)) - 1  # less the `storage` object just made to ask


def lend(shape: tuple[int, ...], dtype: torch.dtype) -> Tensor:
    """A tensor of `shape` and `dtype`, contents undefined (as `torch.empty`): kept memory of that shape nobody
    uses any more where there is some, else fresh. Kept memory nobody uses, of another shape or dtype, is let go
    first: this run would not write it, and the next one keeps this run's (a float32 run's 600 MB of records were
    otherwise allocated beside a bfloat16 run's 300)."""
    lent = None
    with _LOCK:
        kept = []
        for alias in _kept:
            fits = alias.shape == shape and alias.dtype == dtype
            if _storage_users(alias) != 1:
                kept.append(alias)  # still read somewhere: not ours to write, nor to free
            elif fits and lent is None:
                lent = alias
            elif fits:
                kept.append(alias)  # for this run's next record
        _kept[:] = kept
    return torch.empty(shape, dtype=dtype) if lent is None else lent


def keep(records: Iterable[Tensor]) -> None:
    """Keep the large ones of a finished capture's `records` for the next run to write over once they are free,
    instead of whatever was kept before."""
    aliases = [t.detach() for t in records if t.nbytes >= KEPT_BYTES]  # its own handle on the memory, no copy
    with _LOCK:
        _kept[:] = aliases


def kept_bytes() -> int:
    """The bytes kept for the next run (whether or not something still uses them)."""
    with _LOCK:
        return sum(t.nbytes for t in _kept)
