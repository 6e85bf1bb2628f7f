"""Getting figures and captured attention out of the app: PNG/SVG, standalone HTML, `.npz`.

- PNG/SVG: plotly's own camera button in each chart's toolbar, configured here with the format
  the user picked (`image_format_picker`) and a meaningful file name.
- HTML: `fig.to_html(include_plotlyjs=True)` embeds plotly.js (~4.7 MB), so the file opens
  offline. It is generated only when the button is clicked (a callable `data`), never sent on
  every rerun.
- `.npz`: the current input's captured arrays and tokens, loadable with `np.load` without pickle.

`ui.charts.show_figure` shows a figure with these; `export_buttons(fig, name)` adds the HTML button alone.
"""

from __future__ import annotations

import copy
import io
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ui.i18n import current_language, t
from ui.page_style import PIXELATED
from viz.plotly_locale import PLOTLY_STRINGS, plotly_config

FORMAT_KEY = "img_format"  # session-state key of the PNG/SVG choice
FORMATS = ("png", "svg")


def safe_name(name: str) -> str:
    """A file-name-safe version of `name` (letters, digits, - and _ only)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "figure"


def image_format() -> str:
    fmt = st.session_state.get(FORMAT_KEY)
    return fmt if fmt in FORMATS else FORMATS[0]


def chart_config(name: str) -> dict:
    """PLOTLY_CONFIG in the UI language (plotly's toolbar tips: catalog `plotly`), with the camera
    button set to the chosen format and a file name."""
    lang = current_language()
    config = copy.deepcopy(plotly_config(lang, {key: t(f"plotly.{key}") for key in PLOTLY_STRINGS}))
    options = config.setdefault("toImageButtonOptions", {})
    options.update({"format": image_format(), "filename": safe_name(name)})
    return config


def image_format_picker() -> str:
    """The PNG/SVG switch used by every chart's camera button."""
    st.segmented_control(
        t("export.image_format"),
        FORMATS,
        key=FORMAT_KEY,
        default=FORMATS[0],
        required=True,
        format_func=str.upper,
        help=t("export.image_format_help"),
    )
    return image_format()


def html_bytes(fig: go.Figure) -> bytes:
    """A standalone HTML page of `fig` with plotly.js embedded: works without internet. A long matrix's image draws
    its blocks as squares there too (`ui.page_style.PIXELATED`)."""
    page = fig.to_html(include_plotlyjs=True, full_html=True, config=chart_config("figure"))
    return page.replace("<head>", f"<head><style>{PIXELATED}</style>", 1).encode("utf-8")


def export_buttons(fig: go.Figure, name: str, *, key: str | None = None) -> None:
    """A "Download as HTML" button for `fig`; the HTML is built only when clicked."""
    st.download_button(
        t("export.html"),
        data=lambda: html_bytes(fig),
        file_name=f"{safe_name(name)}.html",
        mime="text/html",
        on_click="ignore",
        key=f"html_{key or safe_name(name)}",
        icon=":material/download:",
        help=t("export.html_help"),
    )


def npz_bytes(arrays: Mapping[str, np.ndarray], **labels: Sequence[str] | str) -> bytes:
    """Compressed `.npz` of `arrays` plus string `labels` (stored as unicode arrays, so no pickle is needed)."""
    buffer = io.BytesIO()
    extra = {name: np.asarray(list(value) if not isinstance(value, str) else value, dtype=str) for name, value in labels.items()}
    np.savez_compressed(buffer, **dict(arrays), **extra)
    return buffer.getvalue()


def npz_button(build: Callable[[], bytes], name: str, *, key: str) -> None:
    """A "Download attention (.npz)" button; `build` runs only when the button is clicked."""
    st.download_button(
        t("export.npz"),
        data=build,
        file_name=f"{safe_name(name)}.npz",
        mime="application/octet-stream",
        on_click="ignore",
        key=key,
        icon=":material/download:",
        help=t("export.npz_help"),
    )
