"""Training jobs: start, progress, stop, finish, error; the slot is released each time; the cap holds across sessions."""

from __future__ import annotations

import dataclasses
import io
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from runs.model_ref import ModelRef, load_bundle
from runs.training.export import checkpoint_zip
from runs.training.job import FAILED, FINISHED, RUNNING, STOPPED
from runs.training.registry import MAX_JOBS_ENV, JobRegistry, SlotsTaken, registry, trained_key
from tests.runs.training_helpers import SHORT, TINY, BrokenTask, end, wait_until
from transformer.storage.checkpoint import load_checkpoint
from transformer.tasks import ReverseTask
from transformer.training.film import FILM, Film, probe_patterns


def test_a_job_trains_to_the_end_and_frees_its_slot():
    jobs = JobRegistry(max_jobs=1)
    job = jobs.start(TINY, "session-a", task=SHORT)
    assert job.state == RUNNING and not jobs.can_start()
    assert job.bundle is None  # never handed out while it changes
    assert job.wait(120)
    view = job.view()
    assert view.state == FINISHED and view.step == TINY.steps and view.error is None
    assert jobs.can_start()
    film = view.film
    assert film is not None and film.frame_steps[0] == 1 and film.frame_steps[-1] == TINY.steps
    assert len(film.curves["loss"]) == TINY.steps and np.isfinite(film.curves["loss"]).all()
    assert [int(s) for s in film.checks[:, 0]] == [10, 20, 30]
    # The last frame is exactly the finished model's pattern on the probe.
    now = probe_patterns(job.bundle, film.source, film.target)
    for kind, frames in film.patterns.items():
        np.testing.assert_array_equal(frames[-1], now[kind])


def test_progress_is_visible_while_training_and_stop_keeps_the_model():
    jobs = JobRegistry(max_jobs=1)
    job = jobs.start(TINY.replace(steps=20_000), "session-a", task=SHORT)
    wait_until(lambda: job.view().step >= 5 and job.view().eta is not None)  # the pace needs a second of steps
    first = job.view()
    assert first.live and 0 < first.fraction < 1 and first.eta is not None and first.loss is not None
    wait_until(lambda: job.view().step > first.step + 3)
    job.stop()
    assert job.wait(120)
    assert job.state == STOPPED and jobs.can_start()
    assert 5 < job.result.steps < 20_000 and job.bundle is not None
    assert job.view().eta is None


def test_a_failing_job_shows_its_error_and_frees_its_slot():
    jobs = JobRegistry(max_jobs=1)
    job = jobs.start(TINY, "session-a", task=BrokenTask(max_len=5))
    assert job.wait(120)
    assert job.state == FAILED and "the data generator broke" in job.error and job.bundle is None
    assert jobs.can_start()
    end(jobs.start(TINY, "session-b", task=SHORT))


def test_one_job_per_server_by_default_across_sessions(monkeypatch):
    monkeypatch.delenv(MAX_JOBS_ENV, raising=False)
    jobs = JobRegistry()
    assert jobs.max_jobs == 1
    first = jobs.start(TINY.replace(steps=20_000), "session-a", task=SHORT)
    try:
        with pytest.raises(SlotsTaken) as taken:
            jobs.start(TINY, "session-b", task=SHORT)
        assert taken.value.running == [first]
        assert jobs.running() == [first] and jobs.owned_by("session-b") == []
    finally:
        end(first)
    end(jobs.start(TINY, "session-b", task=SHORT))  # the slot came back when the first ended


def test_the_setting_raises_the_cap(monkeypatch):
    monkeypatch.setenv(MAX_JOBS_ENV, "2")
    jobs = JobRegistry()
    a = jobs.start(TINY.replace(steps=20_000), "a", task=SHORT)
    b = jobs.start(TINY.replace(steps=20_000), "b", task=SHORT)
    try:
        with pytest.raises(SlotsTaken):
            jobs.start(TINY, "c", task=SHORT)
    finally:
        end(a, b)


def test_the_trained_model_opens_by_its_key_and_saves_as_a_checkpoint():
    job = registry().start(TINY, "session-a", task=SHORT)
    key = trained_key(job)
    if job.live:
        with pytest.raises(ValueError, match="still training"):
            load_bundle(ModelRef.parse(key))
    assert job.wait(120)
    bundle = load_bundle(ModelRef.parse(key))
    assert bundle is job.bundle and bundle.card["task"] == "reverse" and bundle.card["steps"] == TINY.steps
    name, data = checkpoint_zip(job)
    assert name == f"{job.id}.zip"
    with tempfile.TemporaryDirectory() as tmp:
        zipfile.ZipFile(io.BytesIO(data)).extractall(tmp)
        folder = Path(tmp) / job.id
        loaded = load_checkpoint(folder)
        for (k, v), (k2, v2) in zip(loaded.model.state_dict().items(), bundle.model.state_dict().items(), strict=True):
            assert k == k2 and torch.equal(v, v2)
        assert Film.load(folder / FILM).n_frames == job.view().film.n_frames
    with pytest.raises(ValueError, match="gone"):
        load_bundle(ModelRef.parse("trained:reverse-00000000"))


@dataclasses.dataclass(frozen=True, kw_only=True)
class ThreadCountingTask(ReverseTask):
    """Notes the torch thread count of the thread that draws the training data (the worker)."""

    seen: list = dataclasses.field(default_factory=list, compare=False, hash=False)

    def sample(self, rng):
        self.seen.append(torch.get_num_threads())
        return super().sample(rng)


def test_the_worker_trains_on_one_thread_and_the_page_threads_keep_theirs():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        task = ThreadCountingTask(min_len=2, max_len=5, chinese_heavy_fraction=0.0)
        job = JobRegistry(max_jobs=1).start(TINY.replace(steps=20_000), "a", task=task)
        wait_until(lambda: job.view().step > 2)
        assert torch.get_num_threads() == 2
        end(job)
        assert task.seen and set(task.seen) == {1}
    finally:
        torch.set_num_threads(before)
