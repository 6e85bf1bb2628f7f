"""Tiny training jobs for the tests: a 1-layer, 16-wide model on short ASCII strings trains a step in milliseconds."""

from __future__ import annotations

import dataclasses
import time

from runs.training.job import TrainingJob
from runs.training.options import JobOptions
from transformer.tasks import ReverseTask

TINY = JobOptions(
    task="reverse",
    n_layers=1,
    n_heads=2,
    d_model=16,
    steps=30,
    warmup=10,
    eval_every=10,
    eval_n=10,
    probe="abc",
    batch_size=16,
    target_exact=2.0,
)
SHORT = ReverseTask(min_len=2, max_len=5, chinese_heavy_fraction=0.0)


@dataclasses.dataclass(frozen=True, kw_only=True)
class BrokenTask(ReverseTask):
    """Fails when training draws its first batch: the error a job must show, after which its slot is free."""

    def sample(self, rng):
        raise RuntimeError("the data generator broke")


def wait_until(predicate, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def end(*jobs: TrainingJob) -> None:
    for job in jobs:
        job.stop()
        assert job.wait(120)
