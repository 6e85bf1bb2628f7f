"""The Positional-encoding page in AppTest: every figure renders in both languages and for every
model variant, and its sliders and selections change exactly the figures they should."""

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import figures, open_page, plotly_array

CHARTS = ["pe_table", "pe_waves", "pe_wavelengths", "pe_similarity", "pe_relative", "pe_learned", "pe_tokens", "pe_norms"]


def _page(lang: str = "en", text: str = "abcab", **random_settings: str) -> AppTest:
    """The page alone on a seeded random model; widgets seeded through session state."""
    return open_page("positional", model="random", text=text, lang=lang, **random_settings)


def _metric_values(at: AppTest) -> list[float]:
    return [float(m.value) for m in at.metric]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_figure_renders(lang):
    at = _page(lang)
    assert list(figures(at)) == CHARTS
    assert len(at.latex) >= 3  # the PE formula, the rotation, the scale
    text = " ".join(s.value for s in at.subheader)
    assert bool(re.search(r"[\u4e00-\u9fff]", text)) == (lang == "zh"), text


def test_sliders_resize_the_table_and_the_offset_is_checked():
    at = _page()
    assert plotly_array(figures(at)["pe_table"]["data"][0]["z"]).shape == (100, 64)
    at.select_slider(key="pe_d").set_value(16).run()
    at.slider(key="pe_pos").set_value(40).run()
    charts = figures(at)
    table = plotly_array(charts["pe_table"]["data"][0]["z"])
    assert table.shape == (40, 16)
    assert table[1, 0] == pytest.approx(np.sin(1.0), abs=1e-6) and table[1, 1] == pytest.approx(np.cos(1.0), abs=1e-6)
    assert plotly_array(charts["pe_relative"]["data"][0]["z"]).shape == (16, 16)
    at.slider(key="pe_k").set_value(7).run()
    closed_error, fitted_error, difference = _metric_values(at)
    assert closed_error < 1e-5 and fitted_error < 1e-5 and difference < 1e-4
    assert "k = 7" in json.dumps(figures(at)["pe_relative"]["layout"]["annotations"])


def test_chosen_dimensions_are_drawn():
    at = _page()
    at.multiselect(key="pe_dims_64").set_value([2, 5, 63]).run()
    waves = figures(at)["pe_waves"]["data"]
    assert [tr["name"] for tr in waves] == ["dimension 2 (sin)", "dimension 5 (cos)", "dimension 63 (cos)"]
    chosen = figures(at)["pe_wavelengths"]["data"][1]
    assert list(chosen["x"]) == [2, 5, 63]


def test_decoder_only_shows_the_decoder_input():
    at = _page(r_arch="decoder-only", text="hi")
    tokens = figures(at)["pe_tokens"]["layout"]["yaxis"]["ticktext"]
    assert tokens == ["&lt;bos&gt;", "h", "i"]


def test_learned_positions_offer_the_current_model():
    at = _page(r_pos="learned")
    box = at.selectbox(key="pe_learned")
    assert box.value.startswith("random") and "positional=learned" in box.value
    learned = figures(at)["pe_learned"]["data"][0]
    assert np.abs(plotly_array(learned["z"])).max() < 0.2  # untrained: small noise, not ±1 sinusoids


def test_no_positional_encoding_is_explained():
    at = _page(r_pos="none", lang="zh")
    assert at.info, "a note that equal tokens stay equal"
    pe_panel = figures(at)["pe_tokens"]["data"][1]
    assert np.all(plotly_array(pe_panel["z"]) == 0)


def test_pre_norm_model_and_hostile_text():
    at = _page(r_norm="pre", text="<b>x</b> 🙂")
    labels = figures(at)["pe_norms"]["layout"]["xaxis"]["ticktext"]
    assert "&lt;b&gt;x&lt;/b&gt;" in "".join(labels) and "<b>" not in "".join(labels)
