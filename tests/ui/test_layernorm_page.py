"""The LayerNorm page in AppTest: every figure renders in both languages and for every model variant,
and its selections (stack, norm, layers in the comparison, the batch) change what they should."""

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import figures, open_page

CHARTS = ["ln_overview", "ln_site", "ln_affine", "ln_stream", "ln_diagram", "ln_pair", "ln_batch_mean", "ln_s1"]


def _page(lang: str = "en", text: str = "abcdef", more: str = "ab\nabcdefghij", **random_settings: str) -> AppTest:
    """The page alone on a seeded random model, with a 3-layer post/pre pair to keep it quick."""
    return open_page("layernorm", model="random", text=text, more=more, lang=lang, ln_pair_layers=3, **random_settings)


def _metrics(at: AppTest) -> dict[str, float]:
    return {m.label: float(m.value) for m in at.metric}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_figure_renders(lang):
    at = _page(lang)
    assert list(figures(at)) == CHARTS
    text = " ".join(s.value for s in at.subheader)
    assert bool(re.search(r"[\u4e00-\u9fff]", text)) == (lang == "zh"), text


def test_stack_and_site_choices():
    at = _page()
    rows = figures(at)["ln_overview"]["data"][0]["y"]
    assert rows == ["layer 1 · self-attention", "layer 1 · feed-forward", "layer 2 · self-attention", "layer 2 · feed-forward"]
    before = figures(at)["ln_site"]["data"][0]["y"]
    at.selectbox(key="ln_site_encoder").set_value(3).run()
    assert figures(at)["ln_site"]["data"][0]["y"] != before
    at.segmented_control(key="ln_stack").set_value("decoder").run()
    rows = figures(at)["ln_overview"]["data"][0]["y"]
    assert "layer 1 · cross-attention" in rows and len(rows) == 6


def test_pair_layers_slider_sets_the_depth_of_the_comparison():
    at = _page()
    pair = figures(at)["ln_pair"]["data"]
    post, pre = (tr for tr in pair if tr.get("mode") == "lines+markers")
    assert len(post["x"]) == 1 + 2 * 3 and len(pre["x"]) == 1 + 2 * 3 + 1  # pre-norm ends with a final LayerNorm
    last_post, last_pre = list(_metrics(at).values())[:2]
    assert last_pre > 1.3 * last_post  # the pre-norm stream grew
    at.slider(key="ln_pair_layers").set_value(1).run()
    post = next(tr for tr in figures(at)["ln_pair"]["data"] if tr.get("mode") == "lines+markers")
    assert len(post["x"]) == 3


def test_batch_contrast_moves_batchnorm_not_layernorm():
    at = _page()
    metrics = list(_metrics(at).values())
    batch_mean, batch_mean_pad, bn_out, ln_stats = metrics[2:]
    assert batch_mean > 0 and batch_mean_pad > 0 and bn_out > 0
    assert ln_stats == 0
    names = [tr["name"] for tr in figures(at)["ln_batch_mean"]["data"]]
    assert names[:2] == ["batch of the first 2", "batch of all 3"]
    at.selectbox(key="ln_batch_site").set_value("encoder.layers.1.sublayer.0.norm.hook_in").run()
    assert not at.exception and list(_metrics(at).values())[-1] == 0


def test_batch_needs_a_second_sentence():
    at = _page(lang="zh", more="")
    assert at.info and "ln_batch_mean" not in figures(at)


@pytest.mark.parametrize("settings", [{"r_arch": "decoder-only"}, {"r_norm": "pre", "r_pos": "learned"}])
def test_variants(settings):
    at = _page(**settings)
    charts = figures(at)
    assert list(charts) == CHARTS
    rows = charts["ln_overview"]["data"][0]["y"]
    if settings.get("r_arch") == "decoder-only":
        assert not at.get("button_group") or all(b.key != "ln_stack" for b in at.get("button_group"))
        assert all("cross" not in r for r in rows)
    else:
        assert rows[-1] == "final LayerNorm"


def test_on_a_projector_the_overview_is_one_row_beside_the_stack_switch():
    """Projector mode (issue 39 §7): the four statistics side by side, so they end on the first 1280 × 720 screen;
    the stack switch still changes them."""
    at = _page(projector=True)
    overview = figures(at)["ln_overview"]
    assert "xaxis4" in overview["layout"] and "xaxis5" not in overview["layout"]
    assert {tuple(overview["layout"][f"yaxis{i if i > 1 else ''}"]["domain"]) for i in range(1, 5)} == {(0.0, 1.0)}
    assert overview["layout"]["height"] <= 720 - 300  # fitted under the page's heading
    at.segmented_control(key="ln_stack").set_value("decoder").run()
    assert "layer 1 · cross-attention" in figures(at)["ln_overview"]["data"][0]["y"]
    square = figures(_page())["ln_overview"]["layout"]  # off a projector: two rows of two
    assert {tuple(square[f"yaxis{i if i > 1 else ''}"]["domain"]) for i in range(1, 5)} != {(0.0, 1.0)}
