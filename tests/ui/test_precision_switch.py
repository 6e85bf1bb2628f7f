"""The exact-arithmetic switch (`ui.precision`): in the sidebar only for a model that may run in bfloat16, off by
default, seeded from `?exact=1` and kept there; each run's choice reaches the run; the note under a bfloat16 run's
output, in the reader's language."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.ui.conftest import TIMEOUT, assert_no_exception
from ui.i18n import catalog


def _switch_and_run(model: str, large: bool, lang: str) -> None:
    import streamlit as st

    import ui.precision
    from runs.text_run import run_text
    from transformer.storage.registry import load_model

    st.session_state.setdefault("lang", lang)
    ui.precision.may_run_fast = lambda bundle: large  # a GPT-2-sized folder, or a CPU without native bfloat16
    bundle = load_model(model)
    ui.precision.exact_switch(bundle)
    trace = run_text(bundle, "I read a book.", names=())
    if large and not ui.precision.exact_requested():
        from dataclasses import replace

        trace = replace(trace, precision="bfloat16")  # what such a model's long input records
    ui.precision.precision_note(trace)
    st.write(f"exact={ui.precision.exact_requested()}")


def _app(large: bool, lang: str = "en", **query: str) -> AppTest:
    at = AppTest.from_function(_switch_and_run, args=("en-zh", large, lang), default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def test_no_switch_and_no_note_where_no_run_can_be_bfloat16():
    at = _app(large=False)
    assert_no_exception(at)
    assert not at.sidebar.toggle
    assert not at.caption
    assert at.markdown[-1].value == "exact=False"


def test_a_large_model_gets_the_switch_off_and_the_note_and_switching_on_drops_the_note():
    at = _app(large=True)
    assert_no_exception(at)
    label = catalog("en")["precision.exact"]
    (switch,) = at.sidebar.toggle
    assert (switch.label, switch.value) == (label, False)
    assert [c.value for c in at.caption] == [catalog("en")["precision.bfloat16"]]
    switch.set_value(True).run()
    assert at.markdown[-1].value == "exact=True"
    assert at.query_params["exact"] in ("1", ["1"])  # a copied link keeps it
    assert not at.caption


def test_a_link_with_exact_opens_with_the_switch_on_in_chinese():
    at = _app(large=True, lang="zh", exact="1")
    assert_no_exception(at)
    (switch,) = at.sidebar.toggle
    assert (switch.label, switch.value) == (catalog("zh")["precision.exact"], True)
    assert at.markdown[-1].value == "exact=True"


def test_the_note_is_in_chinese_for_a_chinese_reader():
    at = _app(large=True, lang="zh")
    assert [c.value for c in at.caption] == [catalog("zh")["precision.bfloat16"]]


def test_the_readers_choice_reaches_the_run_and_keys_the_cache(monkeypatch):
    import time

    import ui.caches

    asked = []
    monkeypatch.setattr(
        ui.caches, "run_text", lambda bundle, text, names=None, interventions=(), exact=False: asked.append(exact) or exact
    )
    text = f"a sentence never run before {time.time_ns()}"
    for exact in (False, True, False, True):
        monkeypatch.setattr(ui.caches, "exact_requested", lambda exact=exact: exact)
        assert ui.caches.get_trace("reverse", text, ()) is exact
    assert asked == [False, True]  # each choice ran once, then came from the cache
