"""Per-client token buckets: how class mode keeps one device from flooding a class with joins or code guesses.

Each client (an address) may try `burst` times at once, then once every `every_s` seconds. The buckets live
in the server process's memory (a restart forgets them; with several processes each counts on its own, so a
client spread over N processes gets up to N times the rate). At most `max_clients` buckets are kept: the
least recently seen go first, so a flood of addresses cannot grow the server's memory. No Streamlit here.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable


class RateLimiter:
    """`wait(key)`: 0.0 and one try spent when `key` may try now, else the seconds until it may."""

    def __init__(self, burst: int, every_s: float, *, max_clients: int = 10_000, clock: Callable[[], float] = time.monotonic):
        if burst < 1 or every_s <= 0:
            raise ValueError("burst ≥ 1 and every_s > 0")
        self.burst, self.every_s, self.max_clients, self.clock = burst, every_s, max_clients, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key → (tries left, when counted)
        self._lock = threading.Lock()

    def wait(self, key: str) -> float:
        now = self.clock()
        with self._lock:
            left, then = self._buckets.pop(key, (float(self.burst), now))
            left = min(float(self.burst), left + (now - then) / self.every_s)
            if left >= 1.0:
                self._buckets[key] = (left - 1.0, now)
                waited = 0.0
            else:
                self._buckets[key] = (left, now)
                waited = (1.0 - left) * self.every_s
            while len(self._buckets) > self.max_clients:
                self._buckets.popitem(last=False)
        return waited

    def __len__(self) -> int:
        return len(self._buckets)
