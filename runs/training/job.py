"""One training job: a background thread that trains, films the probe, and can be stopped at any step.

The worker trains with one torch thread and yields the interpreter after every step, so the page
threads of every session keep running while it trains (benchmarks/training_live.py measures it). The page never
touches the model while it trains: it reads `view()`, a copy of the progress and the film so far. Once the
job has ended (finished, stopped or failed) its model is never changed again, so other pages can run it.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from runs.training.eta import WINDOW, recent_rate, time_left
from runs.training.options import JobOptions
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.untrusted_files import one_line
from transformer.training.film import Film, FilmRecorder
from transformer.training.train import TrainProgress, TrainResult, task_with_options, train

RUNNING, STOPPING, FINISHED, STOPPED, FAILED = "running", "stopping", "finished", "stopped", "failed"
LIVE_STATES = (RUNNING, STOPPING)
_STOP_ZH = {"completed": "步数用完", "target reached": "达到目标准确率", "stopped": "手动停止"}


@dataclass(frozen=True)
class JobView:
    """What a page shows of a job at one moment (a copy: the job goes on changing)."""

    job_id: str
    owner: str
    options: JobOptions
    state: str
    step: int
    total_steps: int
    elapsed: float
    loss: float | None
    token_accuracy: float | None
    learning_rate: float | None
    heldout_exact: float | None
    error: str | None
    film: Film | None
    rate: float | None = None  # steps per second over the last `eta.WINDOW` seconds (None: too early to tell)

    @property
    def live(self) -> bool:
        return self.state in LIVE_STATES

    @property
    def fraction(self) -> float:
        return min(1.0, self.step / max(self.total_steps, 1))

    @property
    def eta(self) -> float | None:
        """Seconds left until the step budget at the recent pace: an upper bound, the early stop
        (`options.target_exact`) may come first (None once ended or before the pace is known)."""
        return time_left(self.step, self.total_steps, self.rate) if self.live else None


class TrainingJob:
    """Train `options` on a background thread; `stop()` ends it after the current step.

    `on_end` is called (from the worker thread) once the job has ended, whatever the reason.
    """

    def __init__(
        self, options: JobOptions, owner: str, *, task: Any = None, on_end: Callable[[TrainingJob], None] | None = None
    ) -> None:
        from transformer.tasks import get_task

        self.id = f"{options.task}-{uuid.uuid4().hex[:8]}"  # readable in the model picker: "trained:reverse-1a2b3c4d"
        self.owner, self.options = owner, options
        self.settings = options.settings()  # raises ValueError before any thread starts
        # The lesson's task (shorter strings, shorter repeats): a probe the task cannot answer falls back to its example.
        self.task = task if task is not None else task_with_options(get_task(options.task), self.settings.task_options)
        self.recorder = FilmRecorder(self.task, options.frame_every, options.probe_text, self.settings.eval_every)
        self.created = time.time()
        self.ended: float | None = None  # when the worker ended (the model picker names a trained model by it)
        # The wall clock (monotonic) when the worker started and ended, and (time, step) of recent steps for the pace.
        self._began: float | None = None
        self._finished: float | None = None
        self._pace: deque[tuple[float, int]] = deque()
        self.state = RUNNING
        self.error: str | None = None
        self.result: TrainResult | None = None
        self._latest: TrainProgress | None = None
        self._stop = threading.Event()
        self._on_end = on_end
        self._thread = threading.Thread(target=self._run, name=f"training-{self.id}", daemon=True)

    def start(self) -> TrainingJob:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ask the worker to stop after the step it is on; the model as it stands is kept."""
        if self.state == RUNNING:
            self.state = STOPPING
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the worker to end; True if it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def live(self) -> bool:
        return self.state in LIVE_STATES

    @property
    def bundle(self) -> ModelBundle | None:
        """The trained model once the job has ended without error (never while it trains: it is changing)."""
        return self.result.bundle if self.result is not None and not self.live else None

    @property
    def elapsed(self) -> float:
        """Wall-clock seconds since the worker started (to its end once ended): what a class has waited."""
        if self._began is None:
            return 0.0
        return (self._finished if self._finished is not None else time.monotonic()) - self._began

    def view(self) -> JobView:
        p = self._latest
        pace = list(self._pace)  # a copy: the worker appends while we read
        times, steps = [t for t, _ in pace], [s for _, s in pace]
        return JobView(
            self.id,
            self.owner,
            self.options,
            self.state,
            p.step if p else 0,
            self.settings.steps,
            self.elapsed,
            p.loss if p else None,
            p.token_accuracy if p else None,
            p.learning_rate if p else None,
            p.heldout_exact if p else None,
            self.error,
            self.recorder.film(),
            recent_rate(times, steps) if self.live else None,
        )

    def _callback(self, progress: TrainProgress) -> bool | None:
        self.recorder(progress)
        self._latest = progress
        now = time.monotonic()
        self._pace.append((now, progress.step))
        while self._pace and self._pace[0][0] < now - 2 * WINDOW:  # keep only what the rate reads
            self._pace.popleft()
        time.sleep(0)  # yield the interpreter to the page threads between steps
        return False if self._stop.is_set() else None

    def _card(self, result: TrainResult) -> dict[str, Any]:
        """The card other pages show for this model (both languages: the run layer has no UI language)."""
        checks = result.checks
        card: dict[str, Any] = {
            "task": self.options.task,
            "summary": f"Trained on the training page: {self.options.task}, {result.steps} steps ({result.stop_reason}).",
            "summary_zh": f"在训练页面上训练：{self.options.task}，{result.steps} 步（{_STOP_ZH.get(result.stop_reason, '')}）。",
            "steps": result.steps,
            "stop_reason": result.stop_reason,
            "training_seconds": round(result.training_seconds, 1),
            "training": {k: v for k, v in self.settings.to_dict().items() if k != "config"},
            "example": self.recorder.source,
        }
        if checks:
            card["metrics"] = {"heldout_exact_match": round(checks[-1][1], 4), "n_heldout": self.settings.eval_n}
        return card

    def _run(self) -> None:
        # One core trains; the other stays free for every session's pages. The setting is the calling thread's
        # (OpenMP's thread count is per thread: the page threads keep theirs, tests/runs/test_training_job.py).
        torch.set_num_threads(1)
        self._began = time.monotonic()  # the pace is read from step 1 on: the first step pays for imports (seconds)
        try:
            result = train(self.settings, self._callback, task=self.task)
            self.recorder.finish()
            result.bundle.card = {**result.bundle.card, **self._card(result)}  # keeps a decoder-only model's prompt format
            result.bundle.name = f"trained-{self.id}"
            self.result = result
            self.state = STOPPED if result.stop_reason == "stopped" else FINISHED
        except Exception as err:  # any failure must end the job, show its message and free the slot
            self.error = one_line(f"{type(err).__name__}: {err}")
            self.state = FAILED
        finally:
            self._finished = time.monotonic()
            self.ended = time.time()
            if self._on_end is not None:
                self._on_end(self)
