"""The byte-bounded run cache: its bound, its LRU order, one computation per key under concurrency."""

import threading
import time

import numpy as np
import pytest

from runs.byte_cache import BUDGET_ENV, ByteCache, budget_from_env, byte_cached, deep_nbytes
from viz.trace import TraceData


def _array(n_bytes: int) -> np.ndarray:
    return np.zeros(n_bytes, dtype=np.uint8)


def _until(condition, timeout: float = 10.0) -> None:
    """Wait for `condition()` (a computation holds its key until the other threads are known to wait on it)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def test_bound_is_respected_and_least_recently_used_goes_first():
    cache = ByteCache(budget=300)
    for key in "abc":
        cache.get_or_compute(key, lambda: _array(100))
    assert cache.stats().bytes == 300
    cache.get_or_compute("a", lambda: pytest.fail("a is cached"))  # a becomes most recent
    cache.get_or_compute("d", lambda: _array(100))  # evicts b, the least recently used
    assert cache.keys() == ["c", "a", "d"]
    cache.get_or_compute("e", lambda: _array(250))  # needs 250: evicts c, a and d
    assert cache.keys() == ["e"]
    stats = cache.stats()
    assert (stats.bytes, stats.entries, stats.evictions, stats.hits, stats.misses) == (250, 1, 4, 1, 5)
    assert stats.bytes <= stats.budget


def test_bound_holds_for_many_random_sizes():
    rng = np.random.default_rng(0)
    cache = ByteCache(budget=10_000)
    for i in range(500):
        cache.get_or_compute(int(rng.integers(0, 60)), lambda: _array(int(rng.integers(1, 3000))))
        assert cache.stats().bytes == sum(deep_nbytes(v) for v, _ in cache._entries.values()) <= 10_000, i


def test_oversize_value_is_returned_but_not_kept():
    cache = ByteCache(budget=100)
    cache.get_or_compute("small", lambda: _array(50))
    big = cache.get_or_compute("big", lambda: _array(101))
    assert big.nbytes == 101 and "big" not in cache and "small" in cache
    assert cache.stats().oversize == 1


def test_keep_last_keeps_an_oversize_value_alone_until_the_next_value():
    """The models' cache: a model larger than the budget is loaded once and kept (alone), not on every call."""
    cache = ByteCache(budget=100, keep_last=True)
    cache.get_or_compute("small", lambda: _array(50))
    calls = []
    for _ in range(3):
        big = cache.get_or_compute("big", lambda: calls.append(1) or _array(101))
    assert big.nbytes == 101 and len(calls) == 1 and cache.keys() == ["big"]
    assert cache.stats().oversize == 1 and cache.stats().bytes == 101
    cache.get_or_compute("small", lambda: _array(50))
    assert cache.keys() == ["small"] and cache.stats().bytes == 50


def test_same_key_from_many_threads_is_computed_once():
    cache = ByteCache(budget=1 << 20)
    calls = []
    start = threading.Barrier(30)

    def compute():
        calls.append(1)
        _until(lambda: cache.stats().waits == 29)  # every other thread arrived while it runs
        return _array(1000)

    results = []

    def student():
        start.wait()
        results.append(cache.get_or_compute("the same sentence", compute))

    threads = [threading.Thread(target=student) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(calls) == 1 and len(results) == 30
    assert all(r is results[0] for r in results)
    stats = cache.stats()
    assert stats.misses == 1 and stats.hits + stats.waits == 29


def test_different_keys_compute_in_parallel_and_each_gets_its_own_value():
    cache = ByteCache(budget=1 << 20)
    out: dict[int, int] = {}

    together = threading.Barrier(20, timeout=10)  # a global lock would serialise them: the barrier would break

    def student(i: int):
        out[i] = int(cache.get_or_compute(i, lambda: (together.wait(), np.full(10, i))[1])[0])

    threads = [threading.Thread(target=student, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(15)
    assert out == {i: i for i in range(20)}  # all 20 computations were running at the same time


def test_an_error_reaches_every_waiter_and_is_not_cached():
    cache = ByteCache(budget=1000)
    start = threading.Barrier(5)
    errors = []

    def fail():
        _until(lambda: cache.stats().waits == 4)  # the others wait for this computation
        raise RuntimeError("bad input")

    def student():
        start.wait()
        try:
            cache.get_or_compute("k", fail)
        except RuntimeError as error:
            errors.append(error)

    threads = [threading.Thread(target=student) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(errors) == 5 and "k" not in cache
    assert cache.get_or_compute("k", lambda: _array(1)).nbytes == 1


def test_trace_data_is_sized_by_its_arrays():
    arrays = {"encoder.layers.0.self_attn.hook_pattern": np.zeros((1, 4, 8, 8), np.float32)}
    trace = TraceData("hi", ("h",), ("h",), ("h",), "h", arrays)
    assert trace.nbytes == 4 * 8 * 8 * 4
    assert trace.nbytes <= deep_nbytes(trace) < trace.nbytes + 2000  # + the strings and the dict


def test_a_row_of_a_batch_counts_the_batch_it_keeps_alive_once():
    batch = np.zeros((4, 4, 8, 8), np.float32)  # (B, H, Tq, Tk)
    rows = {"pattern": batch[1:2], "same batch again": batch[1:2, :2]}
    assert batch.nbytes <= deep_nbytes(rows) < batch.nbytes + 1000


def test_decorator_keys_by_arguments_but_not_underscored_ones():
    cache = ByteCache(budget=1000)
    calls = []

    @byte_cached(cache)
    def run(model: str, text: str, _model: object = None) -> np.ndarray:
        calls.append((model, text))
        return _array(len(text))

    assert not run.is_cached("m", "abc")
    run("m", "abc", _model=object())
    assert run.is_cached("m", text="abc", _model=object()) and not run.is_cached("m", "abcd")
    run("m", "abc", _model=object())
    run("m", text="abcd")
    assert calls == [("m", "abc"), ("m", "abcd")]


def test_budget_from_the_environment(monkeypatch):
    monkeypatch.setenv(BUDGET_ENV, "512M")
    assert budget_from_env() == 512 << 20 and ByteCache().budget == 512 << 20
    monkeypatch.setenv(BUDGET_ENV, "2000")
    assert budget_from_env() == 2000
    monkeypatch.setenv(BUDGET_ENV, "lots")
    with pytest.raises(ValueError, match=BUDGET_ENV):
        budget_from_env()
    monkeypatch.delenv(BUDGET_ENV)
    assert budget_from_env() == 1 << 30


def test_one_shared_cache_per_process():
    from runs.byte_cache import shared_cache

    assert shared_cache() is shared_cache()
    assert shared_cache().budget == budget_from_env()


def test_a_stopped_owner_leaves_the_waiters_to_compute():
    class Stopped(BaseException):  # like Streamlit's StopException when the owner's session reruns
        pass

    cache = ByteCache(budget=1000)
    started, results = threading.Event(), []

    def owner():
        def stop():
            started.set()
            _until(lambda: cache.stats().waits == 1)  # the second caller waits for this computation
            raise Stopped

        with pytest.raises(Stopped):
            cache.get_or_compute("k", stop)

    first = threading.Thread(target=owner)
    first.start()
    started.wait(5)
    results.append(cache.get_or_compute("k", lambda: _array(3)))
    first.join(5)
    assert results[0].nbytes == 3 and "k" in cache


def test_room_is_made_before_a_computation_not_after_it():
    cache = ByteCache(budget=300)
    for key in "abc":
        cache.get_or_compute(key, lambda: _array(100))
    cache.get_or_compute("a", lambda: pytest.fail("a is cached"))
    cache.make_room(150)  # a run about to record 150 bytes: the two least recent entries go now
    assert cache.keys() == ["a"] and cache.stats().bytes == 100
    held = []
    cache.get_or_compute("d", lambda: held.append(cache.stats().bytes) or _array(150))
    assert held == [100] and cache.keys() == ["a", "d"]  # while it ran, the cache held 100 + its 150 ≤ 300
    cache.make_room(0)
    assert cache.keys() == ["a", "d"]  # nothing to make room for: nothing dropped


def test_drop_large_lets_every_large_entry_go_and_keeps_the_small_ones():
    cache = ByteCache(budget=10_000)
    for key, size in (("big-1", 3000), ("small", 10), ("big-2", 2000), ("edge", 1000), ("tiny", 1)):
        cache.get_or_compute(key, lambda size=size: _array(size))
    cache.drop_large(1000)  # entries of 1,000 bytes and more: one large run is kept at a time
    assert cache.keys() == ["small", "tiny"]
    stats = cache.stats()
    assert (stats.bytes, stats.evictions) == (11, 3)
