"""The Positional-encoding page in AppTest: every figure renders in both languages and for every
model variant, and its sliders and selections change exactly the figures they should."""

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "positional.py")
CHARTS = ["pe_table", "pe_waves", "pe_wavelengths", "pe_similarity", "pe_relative", "pe_learned", "pe_tokens", "pe_norms"]


def _page(lang: str = "en", text: str = "abcab", **random_settings: str) -> AppTest:
    """The page alone on a seeded random model; widgets seeded through session state."""
    at = AppTest.from_file(PAGE, default_timeout=180)
    for key, value in {"model": "random", "text": text, "lang": lang, **random_settings}.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _charts(at: AppTest) -> dict[str, dict]:
    """Chart name (its key without the "chart_" prefix) → figure JSON."""
    out = {}
    for chart in at.get("plotly_chart"):
        name = chart.proto.id.rsplit("-", 1)[-1].removeprefix("chart_")
        out[name] = json.loads(chart.proto.spec)
    return out


def _z(trace: dict) -> np.ndarray:
    typed = trace["z"]
    array = np.frombuffer(base64.b64decode(typed["bdata"]), dtype=typed["dtype"])
    return array.reshape([int(n) for n in typed["shape"].split(",")])


def _metric_values(at: AppTest) -> list[float]:
    return [float(m.value) for m in at.metric]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_figure_renders(lang):
    at = _page(lang)
    assert list(_charts(at)) == CHARTS
    assert len(at.latex) >= 3  # the PE formula, the rotation, the scale
    text = " ".join(s.value for s in at.subheader)
    assert bool(re.search(r"[\u4e00-\u9fff]", text)) == (lang == "zh"), text


def test_sliders_resize_the_table_and_the_offset_is_checked():
    at = _page()
    assert _z(_charts(at)["pe_table"]["data"][0]).shape == (100, 64)
    at.select_slider(key="pe_d").set_value(16).run()
    at.slider(key="pe_pos").set_value(40).run()
    charts = _charts(at)
    table = _z(charts["pe_table"]["data"][0])
    assert table.shape == (40, 16)
    assert table[1, 0] == pytest.approx(np.sin(1.0), abs=1e-6) and table[1, 1] == pytest.approx(np.cos(1.0), abs=1e-6)
    assert _z(charts["pe_relative"]["data"][0]).shape == (16, 16)
    at.slider(key="pe_k").set_value(7).run()
    closed_error, fitted_error, difference = _metric_values(at)
    assert closed_error < 1e-5 and fitted_error < 1e-5 and difference < 1e-4
    assert "k = 7" in json.dumps(_charts(at)["pe_relative"]["layout"]["annotations"])


def test_chosen_dimensions_are_drawn():
    at = _page()
    at.multiselect(key="pe_dims_64").set_value([2, 5, 63]).run()
    waves = _charts(at)["pe_waves"]["data"]
    assert [tr["name"] for tr in waves] == ["dimension 2 (sin)", "dimension 5 (cos)", "dimension 63 (cos)"]
    chosen = _charts(at)["pe_wavelengths"]["data"][1]
    assert list(chosen["x"]) == [2, 5, 63]


def test_decoder_only_shows_the_decoder_input():
    at = _page(r_arch="decoder-only", text="hi")
    tokens = _charts(at)["pe_tokens"]["layout"]["yaxis"]["ticktext"]
    assert tokens == ["&lt;bos&gt;", "h", "i"]


def test_learned_positions_offer_the_current_model():
    at = _page(r_pos="learned")
    box = at.selectbox(key="pe_learned_en")
    assert box.value.startswith("random") and "positional=learned" in box.value
    learned = _charts(at)["pe_learned"]["data"][0]
    assert np.abs(_z(learned)).max() < 0.2  # untrained: small noise, not ±1 sinusoids


def test_no_positional_encoding_is_explained():
    at = _page(r_pos="none", lang="zh")
    assert at.info, "a note that equal tokens stay equal"
    pe_panel = _charts(at)["pe_tokens"]["data"][1]
    assert np.all(_z(pe_panel) == 0)


def test_pre_norm_model_and_hostile_text():
    at = _page(r_norm="pre", text="<b>x</b> 🙂")
    labels = _charts(at)["pe_norms"]["layout"]["xaxis"]["ticktext"]
    assert "&lt;b&gt;x&lt;/b&gt;" in "".join(labels) and "<b>" not in "".join(labels)
