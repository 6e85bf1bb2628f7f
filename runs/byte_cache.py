"""A least-recently-used cache bounded by bytes, shared by every session of one server.

Why not `st.cache_resource(max_entries=N)`: a count says nothing about memory. A run of the
shipped models holds ~1 MB, a run of a random base-config model ~150 MB, so 48 cached runs range
from 48 MB to ~9.5 GB, and a laptop serving a class runs out of memory mid-lesson. This cache
keeps at most `budget` bytes (default 1 GiB, `ATLAS_CACHE_BYTES` overrides it), drops the least
recently used entries first, and computes each key once even when many sessions ask for it at the
same time (30 students typing the example sentence run the model once; the other 29 wait for
that run instead of starting their own). A value larger than the whole budget is returned to
every caller that waited for it but not kept, unless the cache keeps the last one (`keep_last`: models).

No Streamlit here: the run layer, tests and benchmarks use it directly.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

BUDGET_ENV = "ATLAS_CACHE_BYTES"
DEFAULT_BUDGET = 1 << 30  # 1 GiB: well under a 4-8 GB laptop's free memory, ~7 base-config runs or ~1,000 shipped-model runs

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def budget_from_env(default: int = DEFAULT_BUDGET) -> int:
    """The byte budget: `ATLAS_CACHE_BYTES` if set (plain bytes, or with a K/M/G suffix, powers of 1024), else `default`.

    A malformed value raises ValueError naming the variable, so a typo in a teacher's launch
    command fails at start instead of silently caching without a bound.
    """
    raw = os.environ.get(BUDGET_ENV, "").strip()
    if not raw:
        return default
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(raw[-1].upper(), 1)
    digits = raw[:-1] if scale > 1 else raw
    try:
        value = int(float(digits) * scale)
    except ValueError:
        raise ValueError(f"{BUDGET_ENV}={raw!r} is not a byte count (e.g. 536870912, 512M or 1G)") from None
    if value < 0:
        raise ValueError(f"{BUDGET_ENV}={raw!r} must not be negative")
    return value


def deep_nbytes(value: object, _depth: int = 0, _seen: set[int] | None = None) -> int:
    """An estimate of the memory `value` keeps alive: numpy arrays by the buffer they view (a row sliced
    out of a batch keeps the whole batch alive, so the whole batch is counted, once), containers and
    dataclasses (`TraceData`) walked, a plotly figure by its dict (its base64 images and arrays), other
    objects by their `.nbytes` or `sys.getsizeof`. Bounded depth, so a cyclic structure cannot hang it."""
    seen = set() if _seen is None else _seen
    if _depth > 12:
        return 0
    if isinstance(value, np.ndarray):
        root = value
        while isinstance(root.base, np.ndarray):
            root = root.base
        if id(root) in seen:
            return 0
        seen.add(id(root))
        return int(root.nbytes)
    if isinstance(value, (str, bytes, bytearray, int, float, bool)) or value is None:
        return sys.getsizeof(value)

    def walk(items) -> int:
        return sum(deep_nbytes(item, _depth + 1, seen) for item in items)

    if isinstance(value, dict):
        return sys.getsizeof(value) + walk(value.keys()) + walk(value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sys.getsizeof(value) + walk(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sys.getsizeof(value) + walk(getattr(value, f.name) for f in dataclasses.fields(value))
    to_dict = getattr(value, "to_plotly_json", None)  # a plotly Figure: its data and layout
    if callable(to_dict):
        return deep_nbytes(to_dict(), _depth + 1, seen)
    nbytes = getattr(value, "nbytes", None)
    return nbytes if isinstance(nbytes, int) else sys.getsizeof(value)


@dataclass(frozen=True)
class CacheStats:
    """What the cache did since it was made (or cleared): for the benchmarks and a teacher's log."""

    hits: int  # answered from the cache
    misses: int  # computed (one per key, however many callers asked at once)
    waits: int  # callers that waited for another caller's computation of the same key
    evictions: int  # entries dropped to stay within the budget
    oversize: int  # values larger than the budget: computed, returned, not kept
    bytes: int  # bytes held now
    entries: int  # entries held now
    budget: int


class _Pending:
    """A computation in flight: the callers that arrive meanwhile wait on `done`."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: object = None
        self.error: BaseException | None = None


class ByteCache(Generic[K, V]):
    """Thread-safe LRU cache whose entries together hold at most `budget` bytes.

    Args:
        budget: bytes to keep at most; None reads `ATLAS_CACHE_BYTES` (default 1 GiB). 0 keeps nothing
            but still shares in-flight computations.
        sizeof: bytes one value keeps alive (default `deep_nbytes`, which walks a `TraceData`'s arrays).
        name: shown in `repr`, for logs.
        keep_last: keep a value larger than the budget, alone (every other entry dropped), instead of none. For
            models: a page reads its model on every rerun, so a model over the budget (a Qwen2.5-0.5B-sized folder,
            2 GB) was loaded again for every text, each load alive for as long as that text's page held it
            (three 512-token texts: four copies, the server at 9.5 GB).
    """

    def __init__(
        self, budget: int | None = None, sizeof: Callable[[V], int] = deep_nbytes, name: str = "", keep_last: bool = False
    ) -> None:
        self.budget = budget_from_env() if budget is None else int(budget)
        if self.budget < 0:
            raise ValueError(f"budget must be ≥ 0 bytes, got {budget}")
        self.name = name
        self.keep_last = keep_last
        self._sizeof = sizeof
        self._lock = threading.Lock()  # guards everything below; never held while computing
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()  # least recently used first
        self._pending: dict[K, _Pending] = {}
        self._bytes = 0
        self._counts = {"hits": 0, "misses": 0, "waits": 0, "evictions": 0, "oversize": 0}

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        """The cached value of `key`, or `compute()`'s, computed once however many threads ask at once.

        If `compute` raises an Exception, every caller waiting for that key gets the same exception
        and nothing is cached (the next call tries again). If the computing thread is stopped instead
        (a BaseException such as Streamlit's rerun of that session), the waiters compute it themselves.
        """
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                self._counts["hits"] += 1
                return self._entries[key][0]
            pending = self._pending.get(key)
            owner = pending is None
            if owner:
                pending = self._pending[key] = _Pending()
                self._counts["misses"] += 1
            else:
                self._counts["waits"] += 1
        assert pending is not None
        if not owner:
            pending.done.wait()
            if isinstance(pending.error, Exception):
                raise pending.error
            if pending.error is not None:  # the owner was stopped (Streamlit's rerun/stop, Ctrl-C), not failed
                return self.get_or_compute(key, compute)
            return pending.value  # type: ignore[return-value]
        try:
            value = compute()
        except BaseException as error:
            pending.error = error
            with self._lock:
                del self._pending[key]
            pending.done.set()
            raise
        pending.value = value
        self._store(key, value)
        with self._lock:
            del self._pending[key]
        pending.done.set()
        return value

    def _store(self, key: K, value: V) -> None:
        size = int(self._sizeof(value))
        with self._lock:
            if size > self.budget:
                self._counts["oversize"] += 1
                if not self.keep_last:
                    return
            self._evict_for(min(size, self.budget))
            self._entries[key] = (value, size)
            self._bytes += size

    def make_room(self, nbytes: int) -> None:
        """Drop least recently used entries until `nbytes` more would fit in the budget.

        For a computation about to allocate about `nbytes` (a GPT-2-sized run records 604 MB of patterns): the
        entries it will displace anyway are let go before it runs, not after, so the cache and the run in flight
        together stay within the budget instead of peaking at twice it.
        """
        with self._lock:
            self._evict_for(nbytes)

    def drop_large(self, nbytes: int) -> None:
        """Drop every entry of at least `nbytes`: before a run that large, one large run is kept at a time (the last
        text's GPT-2-sized run, 302-604 MB, is let go rather than kept beside the new one within the budget)."""
        with self._lock:
            for key in [key for key, (_, size) in self._entries.items() if size >= nbytes]:
                _, size = self._entries.pop(key)
                self._bytes -= size
                self._counts["evictions"] += 1

    def _evict_for(self, nbytes: int) -> None:
        """`make_room` with the lock held."""
        while self._entries and self._bytes + nbytes > self.budget:
            _, (_, old) = self._entries.popitem(last=False)
            self._bytes -= old
            self._counts["evictions"] += 1

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(**self._counts, bytes=self._bytes, entries=len(self._entries), budget=self.budget)

    def clear(self) -> None:
        """Forget every entry and count (computations in flight finish and are stored)."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self._counts = dict.fromkeys(self._counts, 0)

    def keys(self) -> list[K]:
        """Keys from least to most recently used."""
        with self._lock:
            return list(self._entries)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __repr__(self) -> str:
        s = self.stats()
        return f"ByteCache({self.name!r}, {s.entries} entries, {s.bytes:,}/{s.budget:,} bytes)"


def byte_cached(cache: ByteCache) -> Callable[[Callable[..., V]], Callable[..., V]]:
    """Decorator: cache a function's results in `cache`, keyed by its name and (hashable) arguments.

    Arguments whose name starts with "_" are left out of the key (like Streamlit's cache), so a
    caller can pass a large unhashable object that the other arguments already identify.
    `wrapper.is_cached(*args, **kwargs)` says whether a call would be answered from the cache (a page then
    shows no "working…" spinner: starting one starts a thread, a cost in a class's burst of reruns).
    """

    def decorate(fn: Callable[..., V]) -> Callable[..., V]:
        signature = inspect.signature(fn)

        def key_of(*args: object, **kwargs: object) -> tuple:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return (fn.__qualname__, *((k, v) for k, v in bound.arguments.items() if not k.startswith("_")))

        @functools.wraps(fn)
        def wrapper(*args: object, **kwargs: object) -> V:
            return cache.get_or_compute(key_of(*args, **kwargs), lambda: fn(*args, **kwargs))

        wrapper.cache = cache  # type: ignore[attr-defined]
        wrapper.is_cached = lambda *args, **kwargs: key_of(*args, **kwargs) in cache  # type: ignore[attr-defined]
        return wrapper

    return decorate


_SHARED: ByteCache | None = None
_SHARED_LOCK = threading.Lock()


def shared_cache() -> ByteCache:
    """The process's one cache for runs and everything derived from a run (grid figures, head
    statistics, rollouts, padded batches), so one budget (`ATLAS_CACHE_BYTES`) bounds them all and
    the least recently used of any kind goes first. Made on first use, so the budget is read then."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = ByteCache(name="atlas")
        return _SHARED
