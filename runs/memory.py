"""Process-wide memory settings of the app: freed heap memory kept for reuse (captured runs do not page-fault
fresh memory each call), and the imported modules' objects kept out of the garbage collector's way."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import sys
from collections.abc import Iterator


def _libc() -> ctypes.CDLL:
    """The C library, for glibc's malloc settings (OSError where there is none to load)."""
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")


def keep_freed_memory(mmap_threshold: int = 16 << 20, trim_threshold: int = 1 << 30, top_pad: int = 1 << 30) -> bool:
    """Ask glibc to keep freed blocks up to `mmap_threshold` bytes in the heap for reuse (Linux only).

    Why: a capture keeps every recorded tensor alive, so the next call cannot reuse their buffers,
    and by default glibc hands freed multi-MB blocks back to the kernel; every captured call then
    page-faults fresh memory (measured on the base config at T=256: 43k page faults a call, 1.39× a
    plain forward; with this, 0 faults and 1.07×). Blocks above 16 MB still come from (and go back to) the
    kernel: a GPT-2-sized run's 25 MB layers, kept in the heap, left holes the next layers did not fit, and the
    server peaked 0.16 GB higher (2.00 GB against 1.84). Process-wide, so the app does it once (in
    `ui.caches`), and the `transformer` package never does. Returns False where mallopt is
    unavailable (not glibc).

    `top_pad`: when freed memory at the heap's top passes `trim_threshold`, glibc hands it back but keeps this
    much. Without it, dropping a large run's records (a Qwen2.5-0.5B-shaped model recording every hook point at 512
    tokens: 2.4 GB) handed all of it back, and the next such run page-faulted it afresh: 1.45× a plain
    `transformers` forward against 1.19× (benchmarks/README §17). The memory kept is what the last large run
    touched, so the process's peak does not grow; it stays resident between runs.
    """
    try:
        libc = _libc()
        m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3  # from <malloc.h>
        return (
            bool(libc.mallopt(m_mmap_threshold, mmap_threshold))
            and bool(libc.mallopt(m_trim_threshold, trim_threshold))
            and bool(libc.mallopt(m_top_pad, top_pad))
        )
    except (OSError, AttributeError):
        return False


def return_freed_memory() -> bool:
    """Hand the heap's free pages back to the kernel now (glibc's `malloc_trim`; Linux only).

    Why: `keep_freed_memory` keeps freed blocks for reuse, which is right between ordinary runs, but before a run
    that records hundreds of MB (a GPT-2-sized model at 1,024 tokens: 302-604 MB, in blocks above the 16 MB the
    heap keeps) the last run's figures and JSON, freed but kept, only raise the process's peak: measured 0.4 GB.
    Returns False where malloc_trim is unavailable (not glibc)."""
    try:
        _libc().malloc_trim(0)
        return True
    except (OSError, AttributeError):
        return False


def freeze_imported_objects() -> None:
    """Move every object alive now (the modules imported so far: PyTorch's alone are ~10^6) into the garbage
    collector's permanent generation, so no later collection walks them again.

    Why: a full collection walks every tracked object, and with PyTorch imported each one took ~0.1 s: the app's
    own imports after it ran 0.29 s with them, 0.19 s without. Call once per process, after the heavy imports
    (`ui.caches` does): objects frozen are never collected, so calling it again would keep whatever garbage is
    alive at that moment.
    """
    gc.freeze()


@contextlib.contextmanager
def freezing_new_imports() -> Iterator[None]:
    """Around a block that may import modules (loading a model: `transformers` and a family's code, the first time
    a converted checkpoint loads): if it did, collect, then freeze what is alive, as `freeze_imported_objects` did
    for the app's own imports.

    Why: those modules came after the app's freeze, and each full collection walked their ~250,000 objects again:
    0.14-0.24 s before every large run (`ui.caches.release_for` collects then), for nothing. What else is alive at
    that moment (the loading page's own objects) is frozen with them, so a garbage cycle among those is never
    collected; that happens once per model family whose code is imported, not once per load.
    """
    before = len(sys.modules)
    yield
    if len(sys.modules) > before:
        gc.collect()
        gc.freeze()
