"""The step-by-step page through AppTest: random models, picking a head and query, the d_k slider, both languages.

AppTest forgets widget state on `switch_page`, and formats a selectbox's value with its format_func
outside the script (in English), so every test picks the model and text after switching, and
Chinese is switched on last, for one final run.
"""

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import app_test, figures, open_random_in_app


def _open(text: str = "hi there", architecture: str = "encoder-decoder") -> AppTest:
    return open_random_in_app("step_by_step", architecture=architecture, text=text)


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.success) == 2 and all(s.value.startswith("✓") for s in at.success), [s.value for s in at.success]


EXPECTED = {"step_qkv", "step_scores", "step_sum", "step_variance", "step_softmax", "step_multihead"}


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
@pytest.mark.slow
def test_renders_every_figure_for_random_models(architecture):
    at = _open(architecture=architecture)
    _ok(at)
    assert set(figures(at)) == EXPECTED
    kinds = ["Encoder self-attention", "Decoder masked self-attention", "Cross-attention (decoder → encoder)"]
    assert at.selectbox(key="kind").options == (kinds if architecture == "encoder-decoder" else kinds[1:2])
    assert at.latex, "the equations are shown"


@pytest.mark.slow
def test_picking_head_and_query_shows_that_query_and_head():
    at = _open("abcdef")
    at.selectbox(key="kind").set_value("encoder").run()  # the shared picker starts on the decoder's self-attention
    before = figures(at)["step_scores"]
    at.selectbox(key="head").set_value(2).run()
    at.selectbox(key="query").set_value(1).run()
    _ok(at)
    charts = figures(at)
    assert charts["step_qkv"]["layout"]["yaxis"]["ticktext"] == ["1: b"]
    assert charts["step_scores"]["data"] != before["data"]
    at.selectbox(key="kind").set_value("cross").run()
    _ok(at)
    keys = figures(at)["step_scores"]["layout"]["xaxis4"]["ticktext"]
    assert keys[:2] == ["0: a", "1: b"], keys  # cross-attention's keys are the source characters


def test_long_input_is_clipped_with_a_notice():
    at = _open("the quick brown fox jumps")
    _ok(at)
    notices = " ".join(i.value for i in at.info)
    assert "showing 12 of them" in notices and "first 8 dimensions" in notices


@pytest.mark.slow
def test_d_k_slider_and_seed_redraw_the_experiment():
    at = _open()
    at.select_slider(key="dk").set_value(512).run()
    _ok(at)
    variance = float(at.metric[0].value)
    assert abs(variance - 512) < 5 * 512 * (2 / 2000) ** 0.5
    rows = at.table[0].value
    unscaled, scaled = (float(x) for x in rows.iloc[0, 1:3])  # largest weight
    assert unscaled > 0.9 > scaled
    at.number_input(key="dk_seed").set_value(7).run()
    assert float(at.metric[0].value) != variance, "a new seed draws a new sample"


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
@pytest.mark.slow
def test_chinese_ui(architecture):
    at = _open("hi there", architecture)
    at.session_state["lang"] = "zh"
    at.run()
    _ok(at)
    assert at.title[0].value == "注意力，一步一步"
    charts = figures(at)
    assert set(charts) == EXPECTED
    assert charts["step_qkv"]["layout"]["xaxis3"]["title"]["text"] == "维度"
    assert re.search(r"[\u4e00-\u9fff]", at.success[0].value)


def test_decoder_queries_are_named_by_the_token_they_write():
    """On the translator's example, the query picker and the figures name decoder row 2 "我 → 今天"."""
    at = app_test("step_by_step", timeout=300, params={"model": "translate-en-zh"})
    at.run()
    at.selectbox(key="kind").set_value("cross").run()
    at.selectbox(key="query").set_value(1).run()
    assert not at.exception, [e.value for e in at.exception]
    picker = at.selectbox(key="query")
    assert picker.format_func(1) == "1: 我 → 今天", picker.format_func(1)
    assert any("named by the token they write" in c.value for c in at.caption)
    assert figures(at)["step_qkv"]["layout"]["yaxis"]["ticktext"] == ["1: 我 → 今天"]


@pytest.mark.parametrize("model", ["en-zh", "translate-en-zh", "random"])
def test_the_d_k_experiment_opens_on_the_models_own_d_k(model):
    """The √d_k slider starts on the model's real d_k (48 on en-zh, not the power of two 64 a class read as the
    model's), and the experiment's metric names that d_k."""
    from transformer.storage.registry import load_model

    if model == "random":
        at = _open()
        d_k = int(at.select_slider(key="r_dmodel").value) // int(at.select_slider(key="r_heads").value)
    else:
        at = app_test("step_by_step", timeout=300, params={"model": model})
        at.run()
        d_k = load_model(model).config.d_k
    assert not at.exception, [e.value for e in at.exception]
    slider = at.select_slider(key="dk")
    assert slider.value == d_k and str(d_k) in slider.options, (slider.value, d_k, slider.options)
    assert f"d_k = {slider.value}" in at.metric[0].label.replace("d_k=", "d_k = "), at.metric[0].label


def test_on_a_projector_step_one_comes_under_the_title_with_the_keys_that_fit():
    """Projector mode (issue 39 §7): the pickers and q, K, V right under the title, the text box under them, as many
    keys as the first screen holds, and K's title and the note under the figure both say how many of how many."""
    from tests.ui.test_architecture_page import _main_order
    from ui.projector import SCREEN_PX
    from viz.step_figures import FIT_ROW_PX

    at = app_test("step_by_step", timeout=300, params={"projector": "1"})
    at.run()
    at.selectbox(key="model").set_value("random").run()
    at.text_input(key="text").set_value("the quick brown fox jumps").run()
    at.selectbox(key="kind").set_value("encoder").run()
    assert not at.exception, [e.value for e in at.exception]
    order = [e for e in _main_order(at.main, []) if e in ("title", "plotly_chart", "text_input", "header")]
    assert order[:4] == ["title", "plotly_chart", "text_input", "header"]
    qkv = figures(at)["step_qkv"]
    shown, total = len(qkv["layout"]["yaxis3"]["ticktext"]), len("the quick brown fox jumps") + 1  # characters + <eos>
    assert 3 <= shown < total and shown * FIT_ROW_PX < qkv["layout"]["height"] <= SCREEN_PX - 190  # title, pickers
    titles = [a["text"] for a in qkv["layout"]["annotations"]]
    assert f"K (one row per key) · {shown} of {total} keys" in titles
    assert f"showing {shown} of them" in " ".join(i.value for i in at.info)
    at.session_state["lang"] = "zh"
    at.run()
    titles = [a["text"] for a in figures(at)["step_qkv"]["layout"]["annotations"]]
    assert any(f"共 {total} 个键，显示 {shown} 个" in title for title in titles), titles
