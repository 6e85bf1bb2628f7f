"""Showing one plotly figure the same way on every teaching page: full width, export config, HTML button."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ui.export import chart_config, export_buttons


def show_figure(fig: go.Figure, name: str, **chart_kwargs: object):
    """Render `fig` full width under the stable key "chart_<name>" (`name` also names exported files).

    Extra keyword arguments go to `st.plotly_chart` (e.g. `on_select`); returns its event state.
    """
    key = f"chart_{name}"
    event = st.plotly_chart(fig, key=key, config=chart_config(name), theme=None, width="stretch", **chart_kwargs)
    export_buttons(fig, name, key=key)
    return event
