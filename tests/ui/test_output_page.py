"""The Output-distribution page in AppTest: renders in both languages for both architectures, the bars
are the model's probabilities, T → 0 equals greedy, a seed replays, and "next token" appends the top bar."""

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from runs.model_ref import ModelRef, load_bundle
from tests.ui.conftest import figure, open_page, page_path, plotly_array
from transformer.engine.sampling import distributions

TEXT = "i read a book in the library today"
DECODER_ONLY = "random-decoder-only"  # the sidebar's random model, its architecture set by `r_arch`


def _page(model: str = "gpt-translate-en-zh", lang: str = "en", **state) -> AppTest:
    if model == DECODER_ONLY:
        model, state = "random", {**state, "r_arch": "decoder-only"}
    return open_page("output", model=model, text=TEXT, lang=lang, **state)


def _bars(at: AppTest) -> tuple[list[str], np.ndarray]:
    fig = figure(at, "out_chart")
    return list(fig["layout"]["yaxis"]["ticktext"]), plotly_array(fig["data"][0]["x"])


def _written(at: AppTest) -> list[str]:
    """The tokens after ⟶ in the sequence box."""
    box = next(c.value for c in at.code if "⟶" in c.value)
    after = box.split("⟶", 1)[1].strip()
    return [] if after == "∅" else after.split(" · ")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("model", ["gpt-translate-en-zh", "translate-en-zh", DECODER_ONLY])
def test_renders_in_both_languages(model, lang):
    at = _page(model, lang)
    tokens, probs = _bars(at)
    assert len(tokens) == 10 and 0 < probs.sum() <= 1 + 1e-6
    assert list(probs) == sorted(probs, reverse=True)
    page_text = at.title[0].value + " ".join(c.value for c in at.caption)
    assert bool(re.search(r"[\u4e00-\u9fff]", at.title[0].value)) == (lang == "zh"), page_text
    assert at.latex, "the softmax formula"
    note = at.info[0].value
    encoder = model == "translate-en-zh"
    assert ("cross" in note or "交叉" in note) != encoder  # a decoder-only model says it has no cross-attention


def test_bars_are_the_models_probabilities():
    at = _page(temp=0.7, topk=5)
    tokens, probs = _bars(at)
    bundle = load_bundle(ModelRef.parse("gpt-translate-en-zh"))
    expected = distributions(bundle, TEXT, (), temperature=0.7, k=5)[-1]
    assert tokens == list(expected.top_tokens)
    np.testing.assert_allclose(probs, expected.top_probs, rtol=1e-6)
    assert probs.sum() <= 1


def test_temperature_zero_equals_greedy():
    greedy = _page()
    greedy.button(key="out_end").click().run()
    cold = _page(mode="sample", temp=0.0, seed=99)
    cold.button(key="out_end").click().run()
    assert _written(cold) == _written(greedy) == ["我", "今天", "在", "图书馆", "读", "一", "本", "书"]
    _, probs = _bars(cold)
    assert probs[0] == 1.0


@pytest.mark.slow
def test_same_seed_same_sample_and_the_seed_is_in_the_url():
    runs = []
    for _ in range(2):
        at = _page(mode="sample", temp=1.8, seed=5)
        at.button(key="out_end").click().run()
        runs.append(_written(at))
        assert at.query_params["seed"] == "5" and at.query_params["mode"] == "sample"
    assert runs[0] == runs[1] and runs[0]
    others = []
    for seed in (1, 2, 3):
        at = _page(mode="sample", temp=1.8, seed=seed)
        at.button(key="out_end").click().run()
        others.append(_written(at))
    assert any(o != runs[0] for o in others)


@pytest.mark.parametrize("model", ["gpt-translate-en-zh", "translate-en-zh"])
def test_next_token_appends_the_shown_top_token(model):
    at = _page(model)
    for step in range(4):
        tokens, _ = _bars(at)
        at.button(key="out_next").click().run()
        assert _written(at)[-1] == tokens[0], step
        assert len(_written(at)) == step + 1
        assert at.query_params["steps"] == str(step + 1)
    at.button(key="out_reset").click().run()
    assert _written(at) == [] and "steps" not in at.query_params


def test_steps_in_the_url_replay_the_sequence():
    at = AppTest.from_file(page_path("output"), default_timeout=180)
    at.query_params.update({"steps": "3", "model": "translate-en-zh", "text": TEXT})
    at.session_state["model"] = "translate-en-zh"
    at.session_state["text"] = TEXT
    at.run()
    assert _written(at) == ["我", "今天", "在"]
    at.select_slider(key="out_pos").set_value(1).run()
    fig = figure(at, "out_chart")
    assert "今天" in fig["layout"]["title"]["text"] or "我" in fig["layout"]["title"]["text"]


def test_hostile_url_steps_are_ignored():
    at = AppTest.from_file(page_path("output"), default_timeout=180)
    at.query_params["steps"] = "9" * 500
    at.run()
    assert not at.exception and _written(at) == []


def test_a_new_text_starts_over():
    at = _page("translate-en-zh")
    at.button(key="out_next").click().run()
    at.button(key="out_next").click().run()
    assert len(_written(at)) == 2
    at.text_input(key="text").set_value("i read a book").run()
    assert _written(at) == [] and "steps" not in at.query_params
