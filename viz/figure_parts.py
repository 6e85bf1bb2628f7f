"""Small pieces shared by the figures: reference lines and token panels (positional encoding, LayerNorm),
arrows between diagram boxes (architecture, norm placement).

A reference line is drawn as a legend entry rather than a floating annotation: annotations on top
of bars and bands get hidden or overlap the data on a projector, and on log axes plotly places
shape annotations in log units; a plain line trace has neither problem.
Margins are explicit: in the app, plotly's automatic margins sometimes clip tick labels of
subplot figures (measured: "0.8" drawn as "8"), and explicit room costs little.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from viz.style import base_layout
from viz.tokens import Labels, axis

MARGIN = {"l": 70, "r": 20, "t": 50, "b": 70}  # room for tick labels and axis titles
TOP_LEGEND_MARGIN = {**MARGIN, "t": 110}  # a legend (up to two rows) above the subplot titles
TOP_LEGEND = {"orientation": "h", "yref": "container", "y": 0.99, "yanchor": "top", "x": 0}
"""A legend at the very top of the figure: below the plot it collides with rotated token labels
and axis titles; at the top it never does, and it is read before the data."""


def reference_line(x: Sequence, y: float, name: str, **trace: object) -> go.Scatter:
    """A dashed grey line at height `y` across the categories or values `x`, named in the legend."""
    xs = list(x)
    return go.Scatter(
        x=[xs[0], xs[-1]] if xs else [],
        y=[y, y],
        mode="lines",
        name=name,
        hoverinfo="name",
        line={"dash": "dash", "color": "#555", "width": 2},
        **trace,
    )


def style_token_panels(fig: go.Figure, tokens: Labels, token_title: str, *, max_labels: int = 40) -> go.Figure:
    """Two side-by-side panels over the same tokens: token axes, a light grid, the legend on top."""
    for col in (1, 2):
        fig.update_xaxes(**axis(tokens, token_title, max_labels=max_labels), row=1, col=col)
        fig.update_yaxes(showgrid=True, gridcolor="#eee", zerolinecolor="#999", row=1, col=col)
    fig.update_layout(**base_layout(height=380, margin=TOP_LEGEND_MARGIN, legend=TOP_LEGEND))
    return fig


def arrow(fig: go.Figure, x0: float, y0: float, x1: float, y1: float, *, size: float = 1.2, width: float = 1.5) -> None:
    """An arrow from (x0, y0) to (x1, y1) in data units: an annotation with no text, the one plotly
    shape that carries an arrowhead."""
    fig.add_annotation(
        x=x1,
        y=y1,
        ax=x0,
        ay=y0,
        xref="x",
        yref="y",
        axref="x",
        ayref="y",
        text="",
        showarrow=True,
        arrowhead=2,
        arrowsize=size,
        arrowwidth=width,
        arrowcolor="#333333",
    )
