"""What a session sees of the server's training slots: may it start, whose jobs hold the slots, and whether the job
it was watching has just freed one (so the page tells it, instead of leaving a teacher to guess and reload).

The page keeps the id of the other session's job it showed while that job trained (`watched`); this file decides
from the shared registry alone, so two sessions are two calls with two owners (tests/runs/test_training_watch.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.training.job import TrainingJob
from runs.training.registry import JobRegistry


@dataclass(frozen=True)
class SlotView:
    """One session's view of the slots at one moment.

    Attributes:
        can_start: a slot is free.
        others: other sessions' running jobs (the first is the one to watch), oldest first.
        watched: the job this session was watching, if the registry still has it (running or ended).
        freed: that job has ended and a slot is free: the session may start its own run now.
    """

    can_start: bool
    others: tuple[TrainingJob, ...]
    watched: TrainingJob | None
    freed: bool


def slot_view(jobs: JobRegistry, owner: str, watched: str | None = None) -> SlotView:
    """The slots as session `owner` sees them; `watched` is the id of another session's job it was shown while live."""
    running = jobs.running()
    others = tuple(job for job in running if job.owner != owner)
    can_start = len(running) < jobs.max_jobs
    job = jobs.get(watched) if watched else None
    if job is not None and job.owner == owner:
        return SlotView(can_start, others, None, False)  # one's own job is not watched
    freed = watched is not None and (job is None or not job.live) and can_start
    return SlotView(can_start, others, job, freed)
