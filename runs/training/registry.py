"""The server's training jobs: at most `ATLAS_TRAINING_JOBS` (default 1) train at once, shared by every session.

A classroom runs on one laptop: two jobs would halve each other's speed and slow every page. Other sessions see the
running job, can watch it, and may start their own once it has ended. Ended jobs are kept (a few, newest first) so
their sessions can keep using and saving the model; `trained_key(job)` is how other pages name that model.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from runs.model_ref import TRAINED_PREFIX, register_loader, trained_model_gone
from runs.training.job import TrainingJob
from runs.training.options import JobOptions
from transformer.storage.checkpoint import ModelBundle

MAX_JOBS_ENV = "ATLAS_TRAINING_JOBS"
DEFAULT_MAX_JOBS = 1
KEEP_ENDED = 6  # ended jobs kept in memory (each holds a small model and its film)


class SlotsTaken(RuntimeError):
    """Every training slot is taken; `running` are the jobs holding them."""

    def __init__(self, running: list[TrainingJob]) -> None:
        super().__init__(f"{len(running)} training job(s) running; at most {len(running)} at once")
        self.running = running


def max_jobs_from_env() -> int:
    try:
        return max(1, int(os.environ.get(MAX_JOBS_ENV, DEFAULT_MAX_JOBS)))
    except ValueError:
        return DEFAULT_MAX_JOBS


class JobRegistry:
    def __init__(self, max_jobs: int | None = None) -> None:
        self.max_jobs = max_jobs_from_env() if max_jobs is None else max_jobs
        self._lock = threading.Lock()
        self._jobs: dict[str, TrainingJob] = {}  # in start order

    def start(self, options: JobOptions, owner: str, *, task: Any = None) -> TrainingJob:
        """Start a job for session `owner`. Raises SlotsTaken if the cap is reached, ValueError for bad options."""
        with self._lock:
            running = self._running()
            if len(running) >= self.max_jobs:
                raise SlotsTaken(running)
            job = TrainingJob(options, owner, task=task)
            self._jobs[job.id] = job
            self._forget_old()
        return job.start()

    def get(self, job_id: str) -> TrainingJob | None:
        with self._lock:
            return self._jobs.get(job_id)

    def running(self) -> list[TrainingJob]:
        with self._lock:
            return self._running()

    def owned_by(self, owner: str) -> list[TrainingJob]:
        """`owner`'s jobs, newest first."""
        with self._lock:
            return [job for job in reversed(self._jobs.values()) if job.owner == owner]

    def can_start(self) -> bool:
        return len(self.running()) < self.max_jobs

    def _running(self) -> list[TrainingJob]:
        return [job for job in self._jobs.values() if job.live]

    def _forget_old(self) -> None:
        ended = [job_id for job_id, job in self._jobs.items() if not job.live]
        for job_id in ended[: max(0, len(ended) - KEEP_ENDED)]:
            del self._jobs[job_id]


_REGISTRY: JobRegistry | None = None
_REGISTRY_LOCK = threading.Lock()


def registry() -> JobRegistry:
    """The server's one registry (every session shares it)."""
    global _REGISTRY
    with _REGISTRY_LOCK:
        if _REGISTRY is None:
            _REGISTRY = JobRegistry()
        return _REGISTRY


def trained_key(job: TrainingJob) -> str:
    return f"{TRAINED_PREFIX}{job.id}"


def trained_bundle(key: str) -> ModelBundle:
    """The model of an ended job named by `trained_key`. Raises ValueError if it is gone or still training."""
    job = registry().get(key.removeprefix(TRAINED_PREFIX))
    if job is None:
        raise ValueError(trained_model_gone(key))
    if job.bundle is None:
        raise ValueError(f"{key}: this model is still training or its training failed")
    return job.bundle


register_loader(TRAINED_PREFIX, trained_bundle)  # `runs.model_ref.load_bundle` reads "trained:<job id>" keys here
