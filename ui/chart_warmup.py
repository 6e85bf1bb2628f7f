"""Loading the browser's chart library before a class needs it.

Streamlit's page fetches plotly.js (a 4.7 MB script) the first time it draws a plotly figure, then compiles and runs
it on the page's one thread. In a class, a student's first figure comes with the teacher's first Reveal (a question's
figure is hidden until then), on every student's screen at once. Measured on a 2-core machine with five students'
pages at load ~6: each page spent 3.4-5.0 s of its thread on it at that Reveal (its longest single task 1.4-3.7 s),
and on the next figures 0-0.6 s. At load 25-30 pages showed that Reveal 9-37 s late: while the library loads, the
page's own once-a-second poll cannot run either, so a page can also miss the teacher's next move.

So a class member's page draws one tiny figure from the moment it joins, laid out off the screen
(`ui.page_style.OFF_SCREEN`): the library is loaded while the class waits on its first step, and each later figure
costs only its own drawing.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ui.page_style import WARMUP_KEY


@st.cache_resource(show_spinner=False)
def _tiny_figure() -> dict:
    """One point, no axes: the least plotly can draw (a plain dict: `st.plotly_chart` builds its own figure)."""
    figure = go.Figure(go.Scatter(x=[0], y=[0], mode="markers", hoverinfo="skip"))
    figure.update_layout(width=320, height=80, margin=dict(l=0, r=0, t=0, b=0), showlegend=False)
    figure.update_xaxes(visible=False)
    figure.update_yaxes(visible=False)
    return figure.to_dict()


def warm_charts() -> None:
    """Draw the tiny figure off the screen (see the module's docstring for why)."""
    with st.container(key=WARMUP_KEY):
        st.plotly_chart(_tiny_figure(), key=f"{WARMUP_KEY}_figure", config={"staticPlot": True, "displayModeBar": False})
