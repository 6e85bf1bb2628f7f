"""How long a training job has run and how long it may still run, told honestly.

The elapsed clock is the wall clock since the job started (not the sum of step durations: held-out checks,
frames and a busy machine all take wall time a class waits through). Time left comes from the *recent* step rate
(the last `WINDOW` seconds: a machine that became busy, or a browser that started watching, changes the pace, and
the first steps pay for imports), and it is an upper bound: the job ends at its step budget or earlier, at the
early-stop target, so the page says "until 99 % or step N" rather than pretending to know which comes first.
"""

from __future__ import annotations

from collections.abc import Sequence

WINDOW = 30.0  # seconds of recent steps the rate is measured over
MIN_SPAN = 1.0  # seconds: a shorter span says nothing about the pace yet


def recent_rate(times: Sequence[float], steps: Sequence[int], window: float = WINDOW) -> float | None:
    """Steps per second over the last `window` seconds of (time, step) samples, oldest first; None before
    at least `MIN_SPAN` seconds and one step have passed.

    >>> recent_rate([0.0, 10.0, 20.0, 30.0, 40.0], [0, 10, 20, 60, 100], window=20.0)
    4.0
    """
    if len(times) != len(steps):
        raise ValueError(f"times and steps must pair up, got {len(times)} and {len(steps)}")
    if len(times) < 2:
        return None
    now = times[-1]
    first = next(i for i, t in enumerate(times) if t >= now - window)
    first = min(first, len(times) - 2)  # at least two samples: the window may hold only the latest
    span, done = now - times[first], steps[-1] - steps[first]
    if span < MIN_SPAN or done <= 0:
        return None
    return done / span


def time_left(step: int, total_steps: int, rate: float | None) -> float | None:
    """Seconds until step `total_steps` at `rate` steps per second (None without a rate): an upper bound, since
    the early stop may end the job sooner."""
    if rate is None or rate <= 0:
        return None
    return max(0, total_steps - step) / rate
