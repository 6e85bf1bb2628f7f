"""The training page's clock: elapsed is the wall clock, time left comes from the recent pace and says it is an upper
bound (the early stop may come first)."""

from __future__ import annotations

import dataclasses
import time

import pytest

from runs.training.eta import MIN_SPAN, recent_rate, time_left
from runs.training.job import FINISHED
from runs.training.registry import JobRegistry
from tests.runs.training_helpers import SHORT, TINY, end, wait_until


def test_the_rate_reads_only_the_recent_window():
    # 1 step/s for 100 s, then 5 steps/s for 20 s: a 20-second window sees only the new pace.
    times = [float(t) for t in range(0, 101)] + [100.0 + t for t in range(1, 21)]
    steps = list(range(0, 101)) + [100 + 5 * t for t in range(1, 21)]
    assert recent_rate(times, steps, window=20.0) == pytest.approx(5.0)
    # over the whole run, the average would have said 200 / 120 steps per second
    assert recent_rate(times, steps, window=1000.0) == pytest.approx(200 / 120)


def test_no_rate_before_a_span_of_steps():
    assert recent_rate([], []) is None
    assert recent_rate([3.0], [1]) is None
    assert recent_rate([0.0, MIN_SPAN / 2], [0, 10]) is None  # too short to tell the pace
    assert recent_rate([0.0, 5.0], [7, 7]) is None  # no step in the window: stalled, not infinitely slow
    with pytest.raises(ValueError, match="pair up"):
        recent_rate([0.0, 1.0], [0])


def test_a_window_holding_one_sample_reads_from_the_one_before():
    # a long held-out check: the latest step came 40 s after the one before; the window (30 s) holds only it
    assert recent_rate([0.0, 40.0], [100, 101], window=30.0) == pytest.approx(1 / 40)


def test_time_left_counts_the_steps_still_in_the_budget():
    assert time_left(500, 2500, 10.0) == pytest.approx(200.0)
    assert time_left(2500, 2500, 10.0) == 0.0
    assert time_left(2600, 2500, 10.0) == 0.0
    assert time_left(10, 2500, None) is None
    assert time_left(10, 2500, 0.0) is None


@dataclasses.dataclass(frozen=True, kw_only=True)
class SlowTask(type(SHORT)):
    """Each example takes 1 ms to draw: wall time spent outside the model, which a sum of step times would miss."""

    def sample(self, rng):
        time.sleep(0.001)
        return super().sample(rng)


def test_elapsed_is_the_wall_clock_and_the_eta_follows_the_recent_pace():
    jobs = JobRegistry(max_jobs=1)
    started = time.monotonic()
    job = jobs.start(TINY.replace(steps=20_000), "session-a", task=SlowTask(min_len=2, max_len=5, chinese_heavy_fraction=0.0))
    wait_until(lambda: job.view().eta is not None)
    view = job.view()
    assert view.rate is not None and view.rate > 0
    assert view.eta == pytest.approx((view.total_steps - view.step) / view.rate)
    wall = time.monotonic() - started
    assert 0.5 * wall <= view.elapsed <= wall  # the job's clock started when its worker did, after `started`
    time.sleep(0.3)
    assert job.view().elapsed >= view.elapsed + 0.3  # it runs on between steps
    end(job)
    ended = job.view()
    assert ended.eta is None and ended.rate is None
    time.sleep(0.2)
    assert job.view().elapsed == ended.elapsed  # the clock stops when the job ends


def test_a_finished_job_keeps_its_final_elapsed_time():
    jobs = JobRegistry(max_jobs=1)
    job = jobs.start(TINY, "session-a", task=SHORT)
    assert job.wait(120)
    view = job.view()
    assert view.state == FINISHED and view.elapsed > 0 and view.eta is None
