"""The training page across sessions, in both languages: a watcher is told when the slot is free (after a stop or an
error), a failing job shows its error and frees the slot, and the owner's stop works."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from runs.training.options import JobOptions
from runs.training.registry import registry
from tests.ui.conftest import assert_no_exception, open_page
from tests.ui.test_training_page import TINY, _end_all, _poll
from transformer.tasks import ReverseTask
from ui.i18n import catalog

SLOT_FREE = {"en": "The training slot is free", "zh": "训练名额空出来了"}


def _text(lang: str, key: str, **values: object) -> str:
    text = catalog(lang)[f"training.{key}"]
    return text.format(**values) if values else text


@dataclasses.dataclass(frozen=True, kw_only=True)
class FailsWhenTold(ReverseTask):
    """Holds its job at the first batch until `go` is set, then fails: a job that errors while someone watches."""

    go: threading.Event = dataclasses.field(default_factory=threading.Event, compare=False, hash=False)

    def sample(self, rng):
        self.go.wait(60)
        raise RuntimeError("the data generator broke")


def _start_for(at, task) -> object:
    """Start a job for the session of `at` on `task` (what its start button does, with a task of the test's)."""
    options = JobOptions(n_layers=1, n_heads=2, d_model=16, steps=20_000, eval_every=0, probe="abc")
    job = registry().start(options, at.session_state["tr_owner"], task=task)
    at.session_state["tr_job"] = job.id
    return job


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_failing_job_shows_its_error_to_its_owner_and_frees_the_slot(lang):
    _end_all()
    owner = open_page("training", lang=lang)
    task = FailsWhenTold(min_len=2, max_len=5, chinese_heavy_fraction=0.0)
    job = _start_for(owner, task)
    watcher = open_page("training", lang=lang)
    assert watcher.button(key="tr_start").disabled
    task.go.set()
    assert job.wait(120)
    owner.run()
    assert_no_exception(owner)
    assert owner.error[0].value == _text(lang, "failed")
    assert "the data generator broke" in owner.code[0].value
    assert not owner.button(key="tr_start").disabled
    watcher.run()
    assert_no_exception(watcher)
    assert not watcher.button(key="tr_start").disabled
    assert [s.value for s in watcher.success] == [_text(lang, "slot_free")]
    assert SLOT_FREE[lang] in watcher.success[0].value
    assert not watcher.info or all(_text(lang, "busy", n=1) != i.value for i in watcher.info)


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_owner_stops_and_the_watcher_is_told_it_may_start(lang):
    _end_all()
    owner = open_page("training", lang=lang, tr_steps=20_000, **TINY)
    owner.button(key="tr_start").click().run()
    try:
        watcher = open_page("training", lang=lang)
        assert watcher.button(key="tr_start").disabled and not watcher.success
        assert watcher.info[0].value == _text(lang, "busy", n=1)
        _poll(owner, lambda a: a.get("plotly_chart"))  # the first frame: training has begun
        assert owner.button(key="tr_stop").label == _text(lang, "stop")
        owner.button(key="tr_stop").click().run()
        _poll(owner, lambda a: a.success)
        steps = f"{registry().get(owner.session_state['tr_job']).result.steps:,}"
        assert owner.success[0].value == _text(lang, "ended_stopped", steps=steps)
        watcher.run()
        assert_no_exception(watcher)
        assert not watcher.button(key="tr_start").disabled
        assert watcher.success[0].value == _text(lang, "slot_free")
        assert _text(lang, "ended_stopped", steps=steps) in [s.value for s in watcher.success]  # the watched job's end
        watcher.button(key="tr_start").click().run()  # the watcher takes the slot: the message has done its work
        assert_no_exception(watcher)
        assert _text(lang, "slot_free") not in [s.value for s in watcher.success]
    finally:
        _end_all()
