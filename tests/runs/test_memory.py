"""The process's memory settings (`runs.memory`): glibc's free pages handed back on request, and the heap keeping
freed blocks for reuse; both report whether they took effect."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

import numpy as np
import pytest

from runs.memory import keep_freed_memory, return_freed_memory


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="utf-8") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))


@pytest.mark.skipif(not sys.platform.startswith("linux") or not ctypes.util.find_library("c"), reason="glibc only")
def test_freed_heap_pages_go_back_to_the_kernel():
    assert keep_freed_memory(mmap_threshold=16 << 20)  # 8 MB blocks from the heap, kept when freed
    blocks = [np.ones(8 << 20, dtype=np.uint8) for _ in range(24)]  # 192 MB, touched
    keep = np.ones(1 << 10, dtype=np.uint8)  # a later block above them: the heap's top is not free
    held = _rss_kib()
    del blocks
    assert return_freed_memory()
    assert _rss_kib() < held - 100_000  # at least 100 MB of the 192 back
    assert keep.sum() == 1 << 10
