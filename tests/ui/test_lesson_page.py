"""The lesson page: every step in both languages, Previous / Next against ?step=, Reveal, and
revealed answers that follow the class's sentence (never written down in advance)."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from runs import lesson
from runs.model_ref import ModelRef, load_bundle
from runs.text_run import run_text
from tests.ui.conftest import assert_no_exception, figures, page_path, plotly_array
from transformer.storage.registry import DEFAULT_MODEL
from ui.i18n import catalog
from viz.tokens import visible_token

OTHER = "The teacher reads a letter at home."  # any sentence: the default model reads everyday English


def open_lesson(step: int | str | None = None, *, lang: str = "en", **state: object) -> AppTest:
    at = AppTest.from_file(page_path("lesson"), default_timeout=180)
    at.session_state["lang"] = lang
    for key, value in state.items():
        at.session_state[key] = value
    if step is not None:
        at.query_params["step"] = str(step)
    at.run()
    assert_no_exception(at)
    return at


def shown_step(at: AppTest) -> int:
    return int(at.title[0].value.split("/", 1)[0])


def reveal(at: AppTest) -> bool:
    buttons = [b for b in at.button if (b.key or "").startswith("lesson_reveal_")]
    if buttons:
        buttons[0].click().run()
        assert_no_exception(at)
    return bool(buttons)


def answer(at: AppTest) -> str:
    return at.success[0].value if at.success else ""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_step_renders_and_reveals(lang):
    at = open_lesson(1, lang=lang)
    for n in range(1, len(lesson.STEPS) + 1):
        assert shown_step(at) == n and at.query_params["step"] == str(n)
        if lang == "zh":
            assert any("\u4e00" <= ch <= "\u9fff" for ch in at.title[0].value)
        asked = reveal(at)
        step = lesson.STEPS[n - 1]
        assert asked, f"step {n} asks the class nothing"
        assert answer(at), f"step {n} shows no answer after Reveal"
        assert figures(at), f"step {n} ({step}) has no figure after Reveal"
        if n < len(lesson.STEPS):
            at.button(key="lesson_next").click().run()
            assert_no_exception(at)
    assert at.button(key="lesson_next").disabled


def test_previous_next_and_url_agree():
    at = open_lesson(5)
    assert shown_step(at) == 5
    at.button(key="lesson_next").click().run()
    assert shown_step(at) == 6 and at.query_params["step"] == "6"
    at.button(key="lesson_prev").click().run()
    at.button(key="lesson_prev").click().run()
    assert shown_step(at) == 4 and at.query_params["step"] == "4"


@pytest.mark.parametrize("raw", ["0", "14", "-1", "x", "1" * 40])
def test_bad_step_falls_back_to_the_first(raw):
    at = open_lesson(raw)
    assert shown_step(at) == 1 and at.query_params["step"] == "1"
    assert at.button(key="lesson_prev").disabled


def test_reveal_hides_and_shows():
    at = open_lesson(lesson.STEPS.index("cross") + 1)
    assert not at.success and not figures(at), "the answer and its figure wait for Reveal"
    waiting = catalog("en")["lesson.figure_after_reveal"]
    assert waiting in [i.value for i in at.info], "the empty figure column says why it is empty"
    assert reveal(at)
    assert answer(at) and "lesson_fig_cross" in figures(at)
    assert waiting not in [i.value for i in at.info]
    at.button(key="lesson_hide_cross").click().run()
    assert not at.success and not figures(at)
    at.button(key="lesson_next").click().run()
    assert not at.success, "a step's reveal does not carry over to the next step"


def _revealed(step: str, text: str) -> tuple[str, dict]:
    """The question and the answer shown after Reveal (one text), and the figures."""
    at = open_lesson(lesson.STEPS.index(step) + 1, text=text)
    question = at.info[0].value
    assert reveal(at)
    return question + "\n" + answer(at), figures(at)


@pytest.mark.slow
def test_revealed_answers_follow_the_sentence():
    bundle = load_bundle(ModelRef.parse(DEFAULT_MODEL))  # the model `/` opens on
    texts = (str(bundle.card["example"]), OTHER)
    seen = {}
    for text in texts:
        trace = run_text(bundle, text)
        expected = lesson.cross_numbers(bundle, trace)
        choice = expected.choice
        shown, figs = _revealed("cross", text)
        plain = shown.replace("\\", "")  # markdown escapes (`\<eos\>`) removed: the tokens as the class reads them
        words = (visible_token(expected.writes), visible_token(expected.reads))  # a piece without its ▁ mark
        assert all(f"“{word}”" in plain for word in words), (shown, words)
        assert "▁" not in plain
        z = plotly_array(figs["lesson_fig_cross"]["data"][0]["z"])
        # the figure is the model's pattern (to float32 rounding: the page's run may use another thread count)
        np.testing.assert_allclose(z, trace.pattern("cross", choice.layer)[choice.head], rtol=1e-4, atol=1e-6)
        attention = lesson.attention_numbers(bundle, trace)
        shown_attention, _ = _revealed("attention", text)
        assert f"“{visible_token(attention.key)}”" in shown_attention.replace("\\", "")
        seen[text] = (shown, shown_attention)
    assert seen[texts[0]] != seen[texts[1]]


@pytest.mark.slow
def test_random_model_walks_every_step():
    at = open_lesson(1, model="random")
    for n in range(2, len(lesson.STEPS) + 1):
        at.button(key="lesson_next").click().run()
        assert_no_exception(at)
        reveal(at)
        assert shown_step(at) == n


def test_empty_sentence_asks_for_one():
    at = open_lesson(3)
    at.text_input(key="text").set_value("  ").run()
    assert_no_exception(at)
    assert shown_step(at) == 3 and at.info
