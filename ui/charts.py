"""Showing a plotly figure: the one way every page does it (export config, HTML button, stable key)."""

from __future__ import annotations

from typing import Literal

import plotly.graph_objects as go
import streamlit as st

from ui.export import chart_config, export_buttons
from ui.projector import projector_figure
from viz.cjk_ticks import upright_cjk_ticks


def show_figure(
    fig: go.Figure,
    name: str,
    *,
    key: str | None = None,
    width: Literal["stretch", "content"] = "stretch",
    html: bool = True,
    **chart_kwargs: object,
):
    """Render `fig` with the export config (PNG/SVG camera button named after `name`) and, unless
    `html=False`, a "Download as HTML" button below it; returns the chart's event state.

    Args:
        name: names exported files; the key defaults to "chart_<name>".
        width: "stretch" fills the column (the figure's height is set for that width); "content"
            keeps the figure's own width (the heads page sizes its margins from its labels).
        chart_kwargs: go to `st.plotly_chart` (e.g. `on_select`, `selection_mode`).
    """
    key = key or f"chart_{name}"
    fig = upright_cjk_ticks(projector_figure(fig))  # larger fonts in projector mode; Chinese x labels never rotated
    event = st.plotly_chart(fig, key=key, config=chart_config(name), theme=None, width=width, **chart_kwargs)
    if html:
        export_buttons(fig, name, key=key)
    return event
