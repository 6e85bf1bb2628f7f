"""The per-client rate limit of class joins and code guesses: a burst, then one try per interval, per client, in
bounded memory."""

from __future__ import annotations

import pytest

from runs.rate_limit import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_one_try_per_interval():
    clock = Clock()
    limit = RateLimiter(3, 10.0, clock=clock)
    assert [limit.wait("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limit.wait("a") == pytest.approx(10.0), "the fourth try at once waits a whole interval"
    assert limit.wait("b") == 0.0, "another client has its own tries"
    clock.now += 4.0
    assert limit.wait("a") == pytest.approx(6.0), "a refused try costs nothing: the wait counts down"
    clock.now += 6.0
    assert limit.wait("a") == 0.0 and limit.wait("a") > 0.0
    clock.now += 1_000.0
    assert [limit.wait("a") for _ in range(4)][:3] == [0.0, 0.0, 0.0], "a long pause refills up to the burst, no more"


def test_memory_is_bounded_by_clients():
    limit = RateLimiter(1, 60.0, max_clients=100, clock=Clock())
    for i in range(10_000):
        limit.wait(f"client-{i}")
    assert len(limit) == 100


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        RateLimiter(0, 1.0)
    with pytest.raises(ValueError):
        RateLimiter(1, 0.0)
