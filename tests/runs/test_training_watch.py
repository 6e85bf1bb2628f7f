"""Two sessions share one slot: the one that watches is told when the other's job has ended (finished, stopped or
failed) and the slot is free; the one that trains is never told it "watches" its own job."""

from __future__ import annotations

import pytest

from runs.training.registry import JobRegistry
from runs.training.watch import slot_view
from tests.runs.training_helpers import SHORT, TINY, BrokenTask, end, wait_until


@pytest.mark.parametrize("ending", ["finish", "stop", "error"])
def test_the_watcher_learns_the_slot_is_free_when_the_job_ends(ending):
    jobs = JobRegistry(max_jobs=1)
    options = TINY.replace(steps=20_000) if ending == "stop" else TINY
    task = BrokenTask(max_len=5) if ending == "error" else SHORT
    job = jobs.start(options, "teacher", task=task)
    watching = slot_view(jobs, "student")
    if job.live:  # the tiny job may already be over; a stopped one never is (20,000 steps)
        assert not watching.can_start and watching.others == (job,) and not watching.freed
        assert not slot_view(jobs, "student", job.id).freed  # still training: not yet
    if ending == "stop":
        wait_until(lambda: job.view().step > 2)
        job.stop()
    assert job.wait(120)
    told = slot_view(jobs, "student", job.id)
    assert told.freed and told.can_start and told.others == () and told.watched is job
    assert not slot_view(jobs, "student").freed  # a session that watched nothing is not told anything
    assert not slot_view(jobs, "teacher", job.id).freed  # nor is the session whose job it was


def test_the_watcher_is_not_told_while_a_third_session_holds_the_slot():
    jobs = JobRegistry(max_jobs=1)
    first = jobs.start(TINY, "teacher", task=SHORT)
    assert first.wait(120)
    second = jobs.start(TINY.replace(steps=20_000), "other student", task=SHORT)
    try:
        view = slot_view(jobs, "student", first.id)
        assert not view.freed and view.others == (second,)  # the slot was taken again before the student started
    finally:
        end(second)
    assert slot_view(jobs, "student", second.id).freed
