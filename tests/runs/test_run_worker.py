"""The model-run worker: started by a second session, never by one or under AppTest; a run there is the run here;
errors come back as raised; a broken worker is let go; only models it can load by name, and small runs, go to it."""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest

from runs import run_worker
from runs.model_ref import ModelRef, load_bundle
from runs.run_worker import MAX_BYTES, RunWorker, takes
from runs.text_run import attention_names, run_text

MODEL = "translate-en-zh"


def _ready(worker: RunWorker, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not worker.ready():
        assert time.monotonic() < deadline, "the worker never said it was ready"
        time.sleep(0.05)


@pytest.fixture
def outside_apptest(monkeypatch):
    """As in a real server: Streamlit's test harness not imported (other test modules import it)."""
    for name in [n for n in sys.modules if n.startswith("streamlit.testing")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.delenv(run_worker.ENV, raising=False)


def test_a_run_in_the_worker_is_the_run_here(outside_apptest) -> None:
    worker = RunWorker()
    try:
        worker.note_session("teacher")
        assert not worker.ready() and worker._process is None  # one reader never starts it
        worker.note_session("teacher")
        assert worker._process is None
        worker.note_session("student")
        _ready(worker)
        bundle = load_bundle(ModelRef.parse(MODEL))
        names = attention_names(bundle)
        there = worker.run(MODEL, "i read a book", names, ())
        here = run_text(bundle, "i read a book", names=names)
        assert there is not None
        assert (there.output_tokens, there.tgt_tokens, there.next_tokens) == (
            here.output_tokens,
            here.tgt_tokens,
            here.next_tokens,
        )
        assert there.arrays.keys() == here.arrays.keys()
        for name, array in here.arrays.items():  # within rounding: this test process may run another thread count
            np.testing.assert_allclose(there.arrays[name], array, atol=1e-6, rtol=0)
            assert not there.arrays[name].flags.writeable  # shared by sessions once cached
        with pytest.raises(Exception, match="no model named"):  # the run's own error, as raised in the worker
            worker.run("no-such-model", "hello", names, ())
    finally:
        worker.stop()


def test_a_broken_worker_is_let_go_and_the_server_runs_it_itself(outside_apptest) -> None:
    worker = RunWorker()
    try:
        worker.note_session("a")
        worker.note_session("b")
        _ready(worker)
        worker._process.kill()
        worker._process.join(10)
        assert worker.run(MODEL, "i read a book", None, ()) is None
        assert not worker.ready() and worker._process is None
        worker.note_session("c")  # the next sessions start another
        worker.note_session("d")
        assert worker._process is not None
    finally:
        worker.stop()


def test_no_worker_when_turned_off_or_under_apptest(monkeypatch, outside_apptest) -> None:
    monkeypatch.setenv(run_worker.ENV, "0")
    worker = RunWorker()
    for session in ("a", "b", "c"):
        worker.note_session(session)
    assert worker._process is None and worker.run(MODEL, "hi", None, ()) is None
    monkeypatch.delenv(run_worker.ENV)
    import streamlit.testing.v1  # noqa: F401 (imported: tests drive pages in this process)

    for session in ("d", "e"):
        worker.note_session(session)
    assert worker._process is None


def test_what_the_worker_takes() -> None:
    shipped = ("en-zh", MODEL)
    assert takes(ModelRef.parse(MODEL), shipped, 1 << 20)
    assert takes(ModelRef.random(d_model=32, seed=3), shipped, 1 << 20)  # rebuilt from its seed there
    assert not takes(ModelRef.parse(MODEL), shipped, MAX_BYTES + 1)  # a large run stays: pickling it costs more
    assert not takes(ModelRef.parse("trained:abc123"), shipped, 1 << 10)  # lives in this process only
    assert not takes(ModelRef.parse("pretrained:gpt2"), shipped, 1 << 10)  # a folder of this server's models dir
