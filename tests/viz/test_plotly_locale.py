"""Plotly's toolbar in the UI language: the dictionary travels in the config (Streamlit's bundle has no zh-CN)."""

import pytest

from viz.plotly_locale import PLOTLY_STRINGS, plotly_config, plotly_locale
from viz.style import PLOTLY_CONFIG


def test_language_codes_map_to_plotly_locales():
    assert plotly_locale("zh") == "zh-CN" and plotly_locale("en") == "en-US" and plotly_locale("xx") == "en-US"


def test_chinese_config_carries_its_dictionary():
    config = plotly_config("zh", {"zoom_in": "放大", "download_png": "下载 PNG 图片"})
    assert config["locale"] == "zh-CN"
    assert config["locales"] == {"zh-CN": {"dictionary": {"Zoom in": "放大", "Download plot as a PNG": "下载 PNG 图片"}}}
    assert {k: config[k] for k in PLOTLY_CONFIG} == PLOTLY_CONFIG  # the export settings stay


def test_english_needs_no_dictionary_and_unknown_keys_raise():
    assert "locales" not in plotly_config("en", {"zoom_in": "Zoom in"})
    with pytest.raises(KeyError, match="no plotly string"):
        plotly_config("zh", {"zoom_inn": "放大"})
    assert len(set(PLOTLY_STRINGS.values())) == len(PLOTLY_STRINGS)


def test_every_key_is_a_string_streamlits_plotly_asks_for():
    """The dictionary only works if its keys are exactly plotly.js's English strings, as bundled by Streamlit."""
    from pathlib import Path

    import streamlit

    bundles = list((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("PlotlyChart*.js"))
    if not bundles:
        pytest.skip("Streamlit's plotly bundle not found")
    code = "".join(b.read_text(encoding="utf-8", errors="replace") for b in bundles)
    assert [s for s in PLOTLY_STRINGS.values() if f"`{s}`" not in code and f'"{s}"' not in code] == []
    assert "zh-CN" not in code  # no Chinese locale registered: the config must carry it
