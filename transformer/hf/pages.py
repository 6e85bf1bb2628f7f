"""Hand back the memory of a pretrained model's weights that the conversion copied rather than kept.

`transformers` reads a float32 safetensors file as a memory map: each weight is a view of the file's pages, resident
once read. The conversion keeps most weights as they are (the same tensors), but copies some: the renumbered
vocabulary (`VocabMap.gather_each`: the project's four special rows first) is a new matrix, and reading the old one
to build it made its pages resident. They stay counted in the process's memory for as long as any weight of the file
is in use, that is for the model's whole life, though nothing reads them again: on a Qwen2.5-0.5B-sized folder the
file's 1.93 GB resident after a run held 0.54 GB of the old embedding beside its 0.54 GB copy (the heads page's
server then peaked at 4.14 GB against the issue's 4 GB). `release_pages` tells the kernel those pages are not needed
(`madvise(MADV_DONTNEED)`): a file's pages are dropped and read again from the file if ever touched, so nothing is
lost; only whole pages inside each tensor are released, never a neighbour's.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
from collections.abc import Iterable

from torch import Tensor

MADV_DONTNEED = 4  # <sys/mman.h> on Linux


def release_pages(tensors: Iterable[Tensor]) -> int:
    """Release the whole pages of each tensor's memory; the bytes released (0 where `madvise` is unavailable).

    Only for tensors nothing will read again as they are (the caller drops them): a file's pages come back from the
    file if read, but anonymous memory comes back zeroed."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        madvise = libc.madvise
    except (OSError, AttributeError):
        return 0
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    page, released = mmap.PAGESIZE, 0
    for tensor in tensors:
        start = tensor.data_ptr()  # a weight may be a view into one storage of the whole file: its own bytes only
        first, last = -(-start // page) * page, (start + tensor.numel() * tensor.element_size()) // page * page
        if last > first and madvise(first, last - first, MADV_DONTNEED) == 0:
            released += last - first
    return released


def copied_away(theirs: Iterable[Tensor], ours: Iterable[Tensor]) -> list[Tensor]:
    """The tensors of `theirs` whose memory none of `ours` uses (not the same tensor, nor a view into it): what the
    conversion copied (contiguous tensors, as a checkpoint's weights are)."""
    spans = [(t.data_ptr(), t.data_ptr() + t.numel() * t.element_size()) for t in ours]

    def used(t: Tensor) -> bool:
        start, end = t.data_ptr(), t.data_ptr() + t.numel() * t.element_size()
        return any(a < end and start < b for a, b in spans)

    unique = {t.data_ptr(): t for t in theirs if t.is_contiguous()}  # a tied weight once
    return [t for t in unique.values() if not used(t)]
