"""Showing a plotly figure: the one way every page does it (export config, HTML button, stable key)."""

from __future__ import annotations

import contextlib
from typing import Literal

import plotly.graph_objects as go
import streamlit as st

from ui.export import chart_config, export_buttons
from ui.page_style import KEEP_WIDTH_KEY
from ui.projector import fit_first_screen, projector_figure
from viz.cjk_ticks import upright_cjk_ticks


def show_figure(
    fig: go.Figure,
    name: str,
    *,
    key: str | None = None,
    width: Literal["stretch", "content"] = "stretch",
    html: bool = True,
    keep_width: bool = False,
    top_px: int | None = None,
    **chart_kwargs: object,
):
    """Render `fig` with the export config (PNG/SVG camera button named after `name`) and, unless
    `html=False`, a "Download as HTML" button below it; returns the chart's event state.

    Args:
        name: names exported files; the key defaults to "chart_<name>".
        width: "stretch" fills the column (the figure's height is set for that width); "content"
            keeps the figure's own width (the heads page sizes its margins from its labels).
        keep_width: on a phone, a "content" chart keeps its own width and scrolls sideways in its box rather than
            shrink to the screen (`ui.page_style.CHARTS_KEEP_WIDTH`): an attention matrix, whose labels and colour bar
            would keep their pixels and leave the matrix none.
        top_px: a page's main figure: where its top sits on the first screen (px); in projector mode the figure is
            made to end on that screen, axis labels included (`ui.projector.fit_first_screen`).
        chart_kwargs: go to `st.plotly_chart` (e.g. `on_select`, `selection_mode`).
    """
    key = key or f"chart_{name}"
    fig = upright_cjk_ticks(projector_figure(fig))  # larger fonts in projector mode; Chinese x labels never rotated
    if top_px is not None:
        fig = fit_first_screen(fig, top_px)
    box = st.container(key=f"{KEEP_WIDTH_KEY}{key}") if keep_width else contextlib.nullcontext()
    with box:
        event = st.plotly_chart(fig, key=key, config=chart_config(name), theme=None, width=width, **chart_kwargs)
    if html:
        export_buttons(fig, name, key=key)
    return event
