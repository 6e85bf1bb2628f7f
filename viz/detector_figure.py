"""Head detector scores drawn as small layer × head grids, one per score, the top heads marked.

Every score is a share of attention weight (0..1), so all panels share one fixed scale: a bright
cell means the same thing in every panel. The `top` heads of each score get an outline and a ★.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Protocol

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.style import ATTENTION_SCALE, MARK_COLOR, base_layout


class HeadScores(Protocol):
    """A layer × head table of detector scores (what `transformer.head_detectors.HeadScores` is;
    viz reads it by shape, so it needs no import of the model package)."""

    names: tuple[str, ...]
    scores: np.ndarray  # (S, L, H), NaN where a score does not apply

    def score(self, name: str) -> np.ndarray: ...

    def top(self, name: str, k: int = 3) -> list[tuple[int, int, float]]: ...


MARK_AT_LEAST = 0.2  # a head is marked only if it scores at least this: the best of a random model is still no such head


def marked_heads(scores: HeadScores, top: int = 2, at_least: float = MARK_AT_LEAST) -> dict[str, list[tuple[int, int]]]:
    """Score name → its best `top` (layer, head), those scoring at least `at_least` (NaN never counts)."""
    return {name: [(layer, head) for layer, head, value in scores.top(name, top) if value >= at_least] for name in scores.names}


def detector_figure(scores: HeadScores, titles: Mapping[str, str], layer_label: str, head_label: str, top: int = 2) -> go.Figure:
    """One panel per score (in `scores.names` order), each cell printed, the top heads outlined and starred."""
    n = len(scores.names)
    n_layers, n_heads = scores.scores.shape[1:]
    fig = make_subplots(
        rows=1,
        cols=n,
        horizontal_spacing=0.02 + 0.2 / max(n, 1),
        subplot_titles=[html.escape(titles.get(name, name)) for name in scores.names],
    )
    marks = marked_heads(scores, top)
    for i, name in enumerate(scores.names, start=1):
        grid = scores.score(name).astype(np.float32)  # (L, H)
        text = np.vectorize(lambda v: "–" if not np.isfinite(v) else f"{v:.2f}")(grid)
        for layer, head in marks[name]:
            text[layer, head] = f"★{text[layer, head]}"
        fig.add_trace(
            go.Heatmap(
                z=np.nan_to_num(grid, nan=0.0),
                x=list(range(n_heads)),
                y=list(range(n_layers)),
                text=text,
                texttemplate="%{text}",
                textfont={"size": 12},
                colorscale=ATTENTION_SCALE,
                zmin=0.0,
                zmax=1.0,
                showscale=False,
                xgap=2,
                ygap=2,
                hovertemplate=f"{html.escape(layer_label)} %{{y}}, {html.escape(head_label)} %{{x}}: %{{text}}<extra></extra>",
            ),
            row=1,
            col=i,
        )
        for layer, head in marks[name]:
            fig.add_shape(
                type="rect",
                x0=head - 0.5,
                x1=head + 0.5,
                y0=layer - 0.5,
                y1=layer + 0.5,
                line={"color": MARK_COLOR, "width": 3},
                row=1,
                col=i,
            )
        fig.update_xaxes(
            tickvals=list(range(n_heads)),
            title={"text": html.escape(head_label)},
            fixedrange=True,
            showgrid=False,
            zeroline=False,
            row=1,
            col=i,
        )
        fig.update_yaxes(
            tickvals=list(range(n_layers)),
            autorange="reversed",
            fixedrange=True,
            showgrid=False,
            zeroline=False,
            showticklabels=i == 1,
            ticks="",
            row=1,
            col=i,
        )
    fig.update_yaxes(title={"text": html.escape(layer_label)}, row=1, col=1)
    fig.update_annotations(font={"size": 13})
    fig.update_layout(**base_layout(height=140 + 40 * n_layers, margin={"l": 60, "r": 10, "t": 50, "b": 50}))
    return fig
