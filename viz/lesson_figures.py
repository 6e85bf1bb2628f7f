"""The lesson's own small figures, each the picture of one step's question (numpy + plotly, no torch).

    parameter_figure   step 9: parameters per part of the model (feed-forward against attention)
    probability_figure step 12: the probability of each token the model wrote, with 1 − ε of label smoothing
    head_count_figure  step 13: one cell per attention head, numbered, one row per kind and layer

All words arrive translated in one `LessonText`; token labels are escaped by `viz.tokens`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from viz.figure_parts import MARGIN, TOP_LEGEND, reference_line
from viz.style import ATTENTION_SCALE, QUALITATIVE, base_layout
from viz.tokens import Labels, axis, hover_labels

MAX_TOKEN_LABELS = 24  # token ticks past this are thinned: upright labels must not overlap


@dataclass(frozen=True)
class LessonText:
    """The translated words of the lesson's own figures (the lesson passes them in; the defaults are the English
    ones)."""

    parameters: str = "Parameters"  # the parameter bars: their axis and the four parts
    feed_forward: str = "Feed-forward"
    attention: str = "Attention"
    embeddings: str = "Embeddings and output"
    norm: str = "LayerNorm"
    probability: str = "Probability"  # the probabilities: their axis, the tokens of a trained model,
    written: str = "Token written"
    predicted: str = "Token predicted"  # or of an untrained one,
    smoothing: str = "1 − ε = {cap}"  # and the label-smoothing cap ({cap}: two decimals)
    heads: str = "Head"  # the head count's axis
    bytes: str = "bytes: {hex}"  # a byte-level piece's raw bytes, a hover line under its token (`TokenAxis.hover_labels`)

    def part(self, part: str) -> str:
        """The name of a part of the model ("feed_forward", "attention", "embeddings", "norm")."""
        names = {"feed_forward": self.feed_forward, "attention": self.attention, "embeddings": self.embeddings, "norm": self.norm}
        return names[part]


def parameter_figure(groups: Mapping[str, int], text: LessonText = LessonText()) -> go.Figure:
    """One bar per part of the model (`groups`: part → parameter count), its count printed on it."""
    parts = list(groups)
    fig = go.Figure(
        go.Bar(
            x=[html.escape(text.part(p)) for p in parts],
            y=[groups[p] for p in parts],
            text=[f"{groups[p]:,}" for p in parts],
            textposition="auto",
            marker={"color": [QUALITATIVE[i % len(QUALITATIVE)] for i in range(len(parts))]},
            hovertemplate="%{x}: %{y:,}<extra></extra>",
        )
    )
    fig.update_xaxes(tickangle=0)
    fig.update_yaxes(title={"text": html.escape(text.parameters)}, showgrid=True, gridcolor="#eee", separatethousands=True)
    fig.update_layout(**base_layout(margin=MARGIN, showlegend=False))
    return fig


def probability_figure(
    tokens: Labels,
    probabilities: Sequence[float],
    text: LessonText = LessonText(),
    *,
    cap: float | None = None,
    written: bool = True,
) -> go.Figure:
    """One bar per token at its probability (0–1); a dashed line at `cap` (1 − ε) when given.

    `written`: the tokens are what a trained model wrote (else what an untrained one predicts)."""
    x_title, y_title = text.written if written else text.predicted, text.probability
    x = np.arange(len(tokens))
    p = np.asarray(probabilities, dtype=np.float64)
    fig = go.Figure(
        go.Bar(
            x=x,
            y=p,
            marker={"color": QUALITATIVE[0]},
            customdata=hover_labels(tokens, text.bytes),
            hovertemplate="%{customdata}: %{y:.3f}<extra></extra>",
            showlegend=False,
        )
    )
    if cap is not None and len(x):
        fig.add_trace(reference_line([-0.5, len(x) - 0.5], cap, html.escape(text.smoothing.format(cap=f"{cap:.2f}"))))
    fig.update_xaxes(**axis(tokens, x_title, max_labels=MAX_TOKEN_LABELS), tickangle=0)
    fig.update_yaxes(title={"text": html.escape(y_title)}, range=[0, 1.02], showgrid=True, gridcolor="#eee")
    fig.update_layout(**base_layout(margin={**MARGIN, "t": 60}, legend=TOP_LEGEND))
    return fig


def head_count_figure(rows: Sequence[str], n_heads: int, text: LessonText = LessonText()) -> go.Figure:
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
    fig.update_xaxes(title={"text": html.escape(text.heads)}, tickmode="array", tickvals=list(range(1, n_heads + 1)), side="top")
    fig.update_yaxes(tickmode="array", tickvals=list(range(n)), ticktext=[html.escape(r) for r in rows], autorange="reversed")
    fig.update_layout(**base_layout(margin={**MARGIN, "l": 10}))
    return fig
