"""A second process for a class's model runs.

One `streamlit run` is one Python interpreter: every page's code takes turns on its lock, so a class pressing
Enter together is served by about one core however many the machine has (benchmarks/README §8: 113 % of one
core, p95 about 2 s for 30 students on two cores). A model run is nearly half of that work and needs nothing of
the page but its arguments. So when a second session opens a page (a class arriving, not one reader) the server
starts one worker process, and from the moment it is ready it sends that process the small runs of the models it
can load by name (the shipped ones, and random ones, which are rebuilt from their seed); each comes back as a
`TraceData`, pickled. The page's own code keeps the server's core, the model runs get the next one.

What stays in the server: everything while the worker starts (spawned, not forked: a forked copy of a threaded
server can inherit a held lock; it imports PyTorch for a few seconds), a large run (a GPT-2-sized prompt records
600 MB: pickling it back would cost more than it saves, `MAX_BYTES`), a model the worker cannot load by name (one
trained in this server's process, a pretrained folder of its models dir), and every run if the worker broke
(it is let go; the next session to open a page starts another). One reader never starts it, nor do tests that
drive pages through Streamlit's `AppTest`. `ATLAS_RUN_WORKER=0` turns it off.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the worker imports PyTorch and the model code itself (`_serve`): this module stays light
    from runs.model_ref import ModelRef
    from transformer.interventions import InterventionSpec
    from transformer.storage.checkpoint import ModelBundle
    from viz.trace import TraceData

ENV = "ATLAS_RUN_WORKER"
MAX_BYTES = 16 << 20
"""Runs recording more stay in the server: a shipped model's run records at most a few MB; pickling a GPT-2-sized
prompt's 600 MB of patterns back would take longer than the run it moved."""
SESSIONS = 2  # distinct sessions opening a page that start the worker


def _serve(connection: Connection) -> None:
    """The worker, in the server's environment (the server's thread count: the same numbers to the last bit);
    answers each request with ("ok", trace) or ("error", the exception), until the server closes its end. (At a
    lower priority the class's burst waited longer for it: p95 2.05 s instead of 1.6–1.8 s.)"""
    from runs.model_ref import ModelRef, load_bundle
    from runs.text_run import run_text

    bundle: Callable[[str], ModelBundle] = functools.lru_cache(maxsize=8)(
        lambda model_key: load_bundle(ModelRef.parse(model_key))
    )
    connection.send(("ready", None))
    while True:
        try:
            model_key, text, names, interventions, exact = connection.recv()
        except (EOFError, OSError):
            return
        try:
            answer = ("ok", run_text(bundle(model_key), text, names=names, interventions=interventions, exact=exact))
        except Exception as err:  # the run's own errors go back to the page that asked, as raised here
            answer = ("error", err)
        connection.send(answer)


class RunWorker:
    """The server's one worker process, started when a second session opens a page.

    A request is sent and its answer read by the script thread that asks, over one pipe, one at a time: a
    `ProcessPoolExecutor`'s go-between thread had to win the interpreter from thirty busy script threads twice per
    run, and the worker sat idle in between (measured: slower than no worker)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # one request on the pipe at a time
        self._count_lock = threading.Lock()  # starting the worker
        self._connection: Connection | None = None
        self._process: BaseProcess | None = None
        self._ready = False
        self._sessions: set[str] = set()  # the first `SESSIONS` sessions seen

    @staticmethod
    def enabled() -> bool:
        return os.environ.get(ENV, "1").strip() != "0"

    def note_session(self, session: str) -> None:
        """A session opened a page: the `SESSIONS`-th distinct one starts the worker (a class is arriving; by the
        time it types, the worker is ready). Never under Streamlit's test harness, whose tests patch functions a
        worker process would not see."""
        if self._process is not None or session in self._sessions or not self.enabled():
            return
        with self._count_lock:
            self._sessions.add(session)
            if len(self._sessions) < SESSIONS or self._process is not None or "streamlit.testing.v1" in sys.modules:
                return
            context = multiprocessing.get_context("spawn")
            self._connection, child = context.Pipe()
            self._process = context.Process(target=_serve, args=(child,), daemon=True, name="atlas-run-worker")
            self._process.start()
            child.close()

    def ready(self) -> bool:
        """Whether the worker has said it is ready (read without waiting)."""
        connection = self._connection
        if self._ready or connection is None:
            return self._ready
        if not self._lock.acquire(blocking=False):
            return False
        try:
            if connection.poll():
                self._ready = connection.recv()[0] == "ready"
        except (EOFError, OSError):
            self._let_go()
        finally:
            self._lock.release()
        return self._ready

    def run(
        self,
        model_key: str,
        text: str,
        names: tuple[str, ...] | None,
        interventions: Sequence[InterventionSpec],
        exact: bool = False,
    ) -> TraceData | None:
        """`run_text` in the worker, or None where it is not ready, busy with another run (the server runs this one
        itself: two lanes, not a queue behind one), or broke (it is let go). Errors of the run itself (bad input, a
        model's limits) come back as they were raised there."""
        if not self.ready() or not self._lock.acquire(blocking=False):
            return None
        try:
            connection = self._connection
            if connection is None:
                return None
            try:
                connection.send((model_key, text, names, tuple(interventions), exact))
                status, answer = connection.recv()
            except (EOFError, OSError):
                self._let_go()
                return None
        finally:
            self._lock.release()
        if status == "error":
            raise answer
        for array in answer.arrays.values():
            array.setflags(write=False)  # as `TraceData.from_trace` leaves them: one cached run shared by sessions
        return answer

    def _let_go(self) -> None:
        """Forget a worker that broke (with `_lock` held): the next session to open a page starts another."""
        if self._connection is not None:
            self._connection.close()
        if self._process is not None:
            self._process.kill()
        self._connection, self._process, self._ready = None, None, False
        self._sessions.clear()

    def stop(self) -> None:
        """Let the worker go (tests; the server's exit does it too: the worker is a daemon)."""
        with self._lock:
            self._let_go()


def takes(ref: ModelRef, shipped: Sequence[str], nbytes: int) -> bool:
    """Whether the worker can run a text on the model `ref` names: one it loads by name (shipped, or random from
    its seed), recording at most `MAX_BYTES`."""
    return nbytes <= MAX_BYTES and (ref.is_random or ref.source in shipped)
