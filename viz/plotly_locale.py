"""Plotly's own words (toolbar tips, notices) in the UI language.

Plotly.js looks up each toolbar tip in `config.locales[config.locale].dictionary` first and in its
registry of bundled locales second, falling back to English. Streamlit's plotly.js bundle
registers only "en" and "en-US" (checked in streamlit 1.67.0's PlotlyChart bundle), and
`st.plotly_chart(config=...)` passes the config dict through as JSON, so setting `locale` alone
does nothing: the dictionary has to travel in `config.locales`. No script registration needed.

The translations are user-visible strings, so they live in the i18n catalogs; this module only
knows plotly's English keys (`PLOTLY_STRINGS`, catalog key → the exact string plotly.js asks for,
as found in that bundle) and builds the config from whatever translations the page passes.
"""

from __future__ import annotations

from collections.abc import Mapping

from viz.style import PLOTLY_CONFIG

PLOTLY_LOCALES = {"en": "en-US", "zh": "zh-CN"}  # UI language code → plotly locale name

PLOTLY_STRINGS = {  # catalog key → the English text plotly.js looks up (toolbar of a 2-D chart, and its notices)
    "download_png": "Download plot as a PNG",
    "download": "Download plot",
    "zoom": "Zoom",
    "pan": "Pan",
    "box_select": "Box Select",
    "lasso_select": "Lasso Select",
    "zoom_in": "Zoom in",
    "zoom_out": "Zoom out",
    "autoscale": "Autoscale",
    "reset_axes": "Reset axes",
    "reset": "Reset",
    "share": "Share chart...",
    "spikelines": "Toggle Spike Lines",
    "hover_closest": "Show closest data on hover",
    "hover_compare": "Compare data on hover",
    "hover_toggle": "Toggle show closest data on hover",
    "double_click": "Double-click to zoom back out",
    "preparing_image": "Preparing image - this may take a few seconds",
    "image_done": "Image download succeeded",
    "image_failed": "Sorry, there was a problem downloading your image!",
}


def plotly_locale(lang: str) -> str:
    """Plotly's locale name for a UI language code ("zh" → "zh-CN"); unknown codes get English."""
    return PLOTLY_LOCALES.get(lang, PLOTLY_LOCALES["en"])


def plotly_config(lang: str, translations: Mapping[str, str] | None = None) -> dict:
    """`st.plotly_chart(config=...)` for the UI language: PLOTLY_CONFIG plus locale and its dictionary.

    Args:
        lang: UI language code ("en", "zh").
        translations: catalog key (a key of PLOTLY_STRINGS) → translated text; keys not given stay English.
    """
    locale = plotly_locale(lang)
    config = {**PLOTLY_CONFIG, "locale": locale}
    if translations and locale != PLOTLY_LOCALES["en"]:
        unknown = set(translations) - set(PLOTLY_STRINGS)
        if unknown:
            raise KeyError(f"no plotly string for {sorted(unknown)}; known: {sorted(PLOTLY_STRINGS)}")
        dictionary = {PLOTLY_STRINGS[key]: text for key, text in translations.items()}
        config["locales"] = {locale: {"dictionary": dictionary}}
    return config
