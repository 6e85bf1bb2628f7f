"""The Feed-forward page in AppTest: renders in both languages for both architectures, states the
FFN's parameter share measured from the model, and its figures show the model's own numbers."""

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from runs.feed_forward import feed_forward_run
from runs.model_ref import ModelRef, load_bundle
from tests.ui.conftest import figures, open_page, plotly_array

TEXT = "i read a book"
CHARTS = ["ffn_params", "ffn_expansion", "ffn_relu", "ffn_residual"]


def _page(model: str = "gpt-translate-en-zh", lang: str = "en", **state) -> AppTest:
    if model == "random-decoder-only":
        model, state = "random", {**state, "r_arch": "decoder-only"}
    return open_page("feed_forward", model=model, text=TEXT, lang=lang, **state)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("model", ["gpt-translate-en-zh", "translate-en-zh", "random-decoder-only"])
def test_renders_in_both_languages(model, lang):
    at = _page(model, lang)
    assert list(figures(at)) == CHARTS
    assert bool(re.search(r"[\u4e00-\u9fff]", at.title[0].value)) == (lang == "zh")
    encoder = model == "translate-en-zh"
    assert bool(at.info) != encoder  # a decoder-only model says what it does not have
    stack = at.selectbox(key="ffn_stack")
    assert len(stack.options) == (2 if encoder else 1)


@pytest.mark.parametrize("model", ["gpt-translate-en-zh", "translate-en-zh"])
@pytest.mark.slow
def test_parameter_share_is_measured_from_the_model(model):
    at = _page(model)
    bundle = load_bundle(ModelRef.parse(model))
    ffn = sum(p.numel() for name, p in bundle.model.named_parameters() if ".feed_forward." in name)
    share = ffn / bundle.model.num_parameters()
    assert at.metric[0].value == f"{100 * share:.0f}%"
    assert f"{ffn:,}" in " ".join(c.value for c in at.caption)


@pytest.mark.slow
def test_relu_pattern_and_residual_bars_are_the_runs_numbers():
    at = _page("translate-en-zh")
    at.selectbox(key="ffn_stack").set_value("encoder").run()
    at.selectbox(key="ffn_layer").set_value(1).run()
    charts = figures(at)
    run = feed_forward_run(load_bundle(ModelRef.parse("translate-en-zh")), TEXT)
    view = run.views["encoder"][1]
    np.testing.assert_allclose(plotly_array(charts["ffn_relu"]["data"][0]["z"]), view.hidden, atol=1e-6)
    shares = [a["text"] for a in charts["ffn_relu"]["layout"]["annotations"] if a["text"].endswith("%")]
    assert shares == [f"{100 * s:.0f}%" for s in view.fraction_firing]
    bars = charts["ffn_residual"]["data"]
    assert len(bars) == 2  # the encoder: self-attention and feed-forward
    np.testing.assert_allclose(plotly_array(bars[1]["y"]), run.contributions["encoder"].norms[:, 1].mean(-1), rtol=1e-5)
    at.selectbox(key="ffn_stack").set_value("decoder").run()
    assert len(figures(at)["ffn_residual"]["data"]) == 3  # self-attention, cross-attention, feed-forward


def test_expansion_strips_have_the_models_widths():
    at = _page("gpt-translate-en-zh")
    strips = figures(at)["ffn_expansion"]["data"]
    widths = [plotly_array(s["z"]).shape[1] for s in strips]
    config = load_bundle(ModelRef.parse("gpt-translate-en-zh")).config
    assert widths == [config.d_model, config.d_ff, config.d_model]
    hidden = plotly_array(strips[1]["z"])
    assert hidden.min() >= 0  # after the ReLU


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_expansion_sentence_is_right_for_a_2x_model(lang):
    """reverse widens 128 → 256 (2×): the sentence states its ratio and the paper's 4× without calling them alike."""
    at = open_page("feed_forward", model="reverse", text="abc", lang=lang)
    bundle = load_bundle(ModelRef.parse("reverse"))
    d_model, d_ff = bundle.config.d_model, bundle.config.d_ff
    assert d_ff / d_model == 2
    text = " ".join(m.value for m in at.markdown)
    sentence = next(part for part in text.split("\n") if f"d_ff = {d_ff}" in part)
    if lang == "en":
        assert "(2× wider; the paper's base model widens 512 → 2048, 4×)" in sentence and "also 4" not in sentence
    else:
        assert "（扩展为 2 倍；论文的基础模型是 512 → 2048，即 4 倍）" in sentence and "也是 4 倍" not in sentence
