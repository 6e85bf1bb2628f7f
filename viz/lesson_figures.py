"""The lesson's own small figures, each the picture of one step's question (numpy + plotly, no torch).

    parameter_figure   step 9: parameters per part of the model (feed-forward against attention)
    probability_figure step 12: the probability of each token the model wrote, with 1 − ε of label smoothing
    head_count_figure  step 13: one cell per attention head, numbered, one row per kind and layer

All text arrives translated; token labels are escaped by `viz.tokens`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from viz.figure_parts import MARGIN, TOP_LEGEND, reference_line
from viz.style import ATTENTION_SCALE, QUALITATIVE, base_layout
from viz.tokens import axis, hover_labels

MAX_TOKEN_LABELS = 24  # token ticks past this are thinned: upright labels must not overlap


def parameter_figure(groups: Mapping[str, int], labels: Mapping[str, str], y_title: str) -> go.Figure:
    """One bar per part of the model (`groups`: part → parameter count), its count printed on it."""
    parts = list(groups)
    fig = go.Figure(
        go.Bar(
            x=[html.escape(labels[p]) for p in parts],
            y=[groups[p] for p in parts],
            text=[f"{groups[p]:,}" for p in parts],
            textposition="auto",
            marker={"color": [QUALITATIVE[i % len(QUALITATIVE)] for i in range(len(parts))]},
            hovertemplate="%{x}: %{y:,}<extra></extra>",
        )
    )
    fig.update_xaxes(tickangle=0)
    fig.update_yaxes(title={"text": html.escape(y_title)}, showgrid=True, gridcolor="#eee", separatethousands=True)
    fig.update_layout(**base_layout(margin=MARGIN, showlegend=False))
    return fig


def probability_figure(
    tokens: Sequence[str],
    probabilities: Sequence[float],
    *,
    x_title: str,
    y_title: str,
    cap: float | None = None,
    cap_label: str = "",
) -> go.Figure:
    """One bar per written token at its probability (0–1); a dashed line at `cap` (1 − ε) when given."""
    x = np.arange(len(tokens))
    p = np.asarray(probabilities, dtype=np.float64)
    fig = go.Figure(
        go.Bar(
            x=x,
            y=p,
            marker={"color": QUALITATIVE[0]},
            customdata=hover_labels(tokens),
            hovertemplate="%{customdata}: %{y:.3f}<extra></extra>",
            showlegend=False,
        )
    )
    if cap is not None and len(x):
        fig.add_trace(reference_line([-0.5, len(x) - 0.5], cap, html.escape(cap_label)))
    fig.update_xaxes(**axis(tokens, x_title, max_labels=MAX_TOKEN_LABELS), tickangle=0)
    fig.update_yaxes(title={"text": html.escape(y_title)}, range=[0, 1.02], showgrid=True, gridcolor="#eee")
    fig.update_layout(**base_layout(margin={**MARGIN, "t": 60}, legend=TOP_LEGEND))
    return fig


def head_count_figure(rows: Sequence[str], n_heads: int, *, x_title: str) -> go.Figure:
    """A grid of every attention head: one row per (kind, layer) in `rows`, `n_heads` cells each, every
    cell printing its running number, so the last cell is the model's head count."""
    n = len(rows)
    numbers = np.arange(1, n * n_heads + 1).reshape(n, n_heads)  # (rows, H)
    fig = go.Figure(
        go.Heatmap(
            z=np.ones((n, n_heads)),
            x=np.arange(1, n_heads + 1),
            y=np.arange(n),
            text=numbers.astype(str),
            texttemplate="%{text}",
            textfont={"size": 18},
            colorscale=[[0, ATTENTION_SCALE[2][1]], [1, ATTENTION_SCALE[2][1]]],
            showscale=False,
            xgap=4,
            ygap=4,
            hoverinfo="skip",
        )
    )
    fig.update_xaxes(title={"text": html.escape(x_title)}, tickmode="array", tickvals=list(range(1, n_heads + 1)), side="top")
    fig.update_yaxes(tickmode="array", tickvals=list(range(n)), ticktext=[html.escape(r) for r in rows], autorange="reversed")
    fig.update_layout(**base_layout(margin={**MARGIN, "l": 10}))
    return fig
