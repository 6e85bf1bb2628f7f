"""The process's memory settings (`runs.memory`): glibc's free pages handed back on request, and the heap keeping
freed blocks for reuse; both report whether they took effect. What a model's load imports is frozen out of the
collector's way, and the model itself is still freed when dropped."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys
import weakref

import numpy as np
import pytest

from runs.memory import freezing_new_imports, keep_freed_memory, return_freed_memory


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


@pytest.fixture
def unfrozen():
    """Whatever a test freezes goes back to the collector afterwards (the test process keeps running)."""
    yield
    gc.unfreeze()


def test_a_block_that_imports_modules_freezes_them_and_one_that_does_not_freezes_nothing(tmp_path, monkeypatch, unfrozen):
    (tmp_path / "freshly_imported_for_the_test.py").write_text("TABLE = {i: [i] for i in range(1000)}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    frozen = gc.get_freeze_count()
    with freezing_new_imports():
        pass
    assert gc.get_freeze_count() == frozen
    with freezing_new_imports():
        import freshly_imported_for_the_test  # noqa: F401
    assert gc.get_freeze_count() > frozen + 1000  # the module's table and lists, and every other live object
    assert len(gc.get_objects()) < 10_000  # a full collection now walks only what came after


def test_a_converted_model_loaded_while_freezing_is_still_freed_when_dropped(tmp_path, unfrozen):
    """The load's own garbage cycles are collected before the freeze, so the bundle is held only by its owner."""
    pytest.importorskip("transformers")
    from transformer.hf.random_folder import gpt2_folder
    from transformer.storage.registry import load_model

    folder = gpt2_folder(tmp_path / "tiny-gpt2")
    sys.modules.pop("freshly_imported_marker", None)
    with freezing_new_imports():
        bundle = load_model(str(folder))
        sys.modules["freshly_imported_marker"] = sys  # a new module entry: the block counts as importing
    model = weakref.ref(bundle.model)
    del bundle
    sys.modules.pop("freshly_imported_marker")
    assert model() is None  # freed by reference counting: no frozen cycle keeps it


def test_a_runs_trace_lets_its_records_be_written_again_once_it_is_dropped(monkeypatch):
    """The page's run (`run_text`, decoding with room for its records) holds its records only through the trace it
    returns: drop the trace (as `ui.caches.release_for` does before a long run) and the next run of the same length
    writes where they were (`transformer.engine.record_memory`; a GPT-2-sized run's 300 MB were fresh memory each time)."""
    from runs.text_run import attention_names, run_text
    from transformer.engine import record_memory, recorded_decoding
    from transformer.storage.registry import load_model

    monkeypatch.setattr(recorded_decoding, "SECOND_PASS_WORK", 0)  # a shipped model records as a large one does
    monkeypatch.setattr(record_memory, "_kept", [])
    monkeypatch.setattr(record_memory, "KEPT_BYTES", 0)  # and its small records count as long ones
    lent: list[bool] = []  # for every room a run was lent: whether it was a kept one (else fresh memory)
    real_lend = record_memory.lend

    def lend(*args):
        kept = {id(alias) for alias in record_memory._kept}
        room = real_lend(*args)
        lent.append(id(room) in kept)
        return room

    monkeypatch.setattr(record_memory, "lend", lend)
    bundle = load_model("gpt-translate-en-zh")
    names, text = attention_names(bundle), "the cat sat on the mat ."

    def rooms_of_a_run() -> tuple[object, list[bool]]:
        lent.clear()
        trace = run_text(bundle, text, names=names)
        return trace, list(lent)

    first, rooms = rooms_of_a_run()
    assert rooms and not any(rooms), "the decoder's self-attention was recorded with room, in fresh memory"
    snapshot = {name: array.copy() for name, array in first.arrays.items()}
    second, _ = rooms_of_a_run()  # `first` is alive: what it shows is never written over
    assert all(np.array_equal(first.arrays[name], snapshot[name]) for name in snapshot)
    del first, second
    gc.collect()
    third, rooms = rooms_of_a_run()
    assert all(rooms), "dropped, the last run's records are where the next one writes"
    assert all(np.array_equal(third.arrays[name], snapshot[name]) for name in snapshot)  # the same text, the same run


_RETAINED = """
import sys
import numpy as np
from runs.memory import keep_freed_memory
assert keep_freed_memory(mmap_threshold=16 << 20, trim_threshold=64 << 20, top_pad=int(sys.argv[1]))
def rss():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))
before = rss()
blocks = [np.ones(8 << 20, dtype=np.uint8) for _ in range(48)]  # 384 MB from the heap, touched
del blocks  # the heap's top passes the trim threshold: glibc hands memory back, keeping top_pad
print(rss() - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or not ctypes.util.find_library("c"), reason="glibc only")
def test_a_trim_keeps_the_top_pad_for_the_next_large_run():
    """Dropping a large run's records passes the trim threshold; the heap keeps `top_pad` of it, already touched, so
    the next such run does not page-fault all of it afresh (benchmarks/README §17). A fresh process each: mallopt is
    process-wide."""
    import subprocess

    def kept_kib(top_pad: int) -> int:
        done = subprocess.run([sys.executable, "-c", _RETAINED, str(top_pad)], capture_output=True, text=True, check=True)
        return int(done.stdout.split()[-1])

    assert kept_kib(256 << 20) > 200_000  # about 256 MB of the 384 kept
    assert kept_kib(0) < 100_000  # without it, nearly all handed back
