"""Head detector scores drawn as small layer × head grids, one per score, the top heads marked.

Every score is a share of attention weight (0..1), so all panels share one fixed scale: a bright
cell means the same thing in every panel. The `top` heads of each score get an outline and a ★.
Each cell prints its score when it is wide enough: the figure is as wide as the page, so a model with
many heads and a table with many scores leave narrow cells (at a 1280 px window with the sidebar open,
six panels of four heads leave ~29 px a cell), so the numbers shrink, lose their ★ (the outline stays) and
leading zero, then go; the hover always has the full number.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from hook_names import ordinal
from viz.mask_figures import fits_cell
from viz.style import ATTENTION_SCALE, MARK_COLOR, base_layout


class HeadScores(Protocol):
    """A layer × head table of detector scores (what `transformer.probes.head_scores.HeadScores` is;
    viz reads it by shape, so it needs no import of the model package)."""

    names: tuple[str, ...]
    scores: np.ndarray  # (S, L, H), NaN where a score does not apply

    def score(self, name: str) -> np.ndarray: ...

    def top(self, name: str, k: int = 3) -> list[tuple[int, int, float]]: ...


MARK_AT_LEAST = 0.2  # a head is marked only if it scores at least this: the best of a random model is still no such head
WIDTH_HINT = 900  # px: the page's main column at a 1280 px wide window with the sidebar open
CELL_FONTS = (12, 10, 9)  # px: cell number sizes to try, largest first; smaller ones are not readable on a projector
MARGIN_LEFT, MARGIN_RIGHT = 60, 10
CELL_PADDING = 4  # px left free beside a cell's widest text


@dataclass(frozen=True)
class CellText:
    """How cells print their score: font size, the ★ of a marked head (the outline marks it anyway), and the
    leading zero ("0.95" or ".95")."""

    size: int
    star: bool = True
    leading_zero: bool = True

    def format(self, value: float, marked: bool) -> str:
        if not np.isfinite(value):
            return "–"
        number = f"{value:.2f}" if self.leading_zero else f"{value:.2f}".replace("0.", ".", 1)
        return f"★{number}" if marked and self.star else number


CELL_TEXTS = tuple(  # most complete first: the first that fits the cells is used
    CellText(size, star, zero) for star, zero in ((True, True), (False, True), (False, False)) for size in CELL_FONTS
)


def panel_spacing(n_panels: int) -> float:
    """Gap between panels, as a fraction of the plot width (only the first panel has tick labels)."""
    return 0.015 + 0.1 / max(n_panels, 1)


def cell_width(n_panels: int, n_heads: int, width: int = WIDTH_HINT) -> float:
    """The px width of one head's cell when `n_panels` panels of `n_heads` columns share a `width` px figure."""
    plot = width - MARGIN_LEFT - MARGIN_RIGHT
    return plot * (1 - panel_spacing(n_panels) * (n_panels - 1)) / max(n_panels, 1) / max(n_heads, 1)


def cell_text(n_panels: int, n_heads: int, width: int = WIDTH_HINT) -> CellText | None:
    """The first of `CELL_TEXTS` whose widest text ("★0.00" and the like) fits a cell; None: print no numbers."""
    cell = cell_width(n_panels, n_heads, width)
    return next((c for c in CELL_TEXTS if fits_cell([c.format(0.0, marked=True)], c.size, cell, CELL_PADDING)), None)


def _cell_texts(grid: np.ndarray, marked: set[tuple[int, int]], style: CellText) -> list[list[str]]:
    """(L, H) scores → their cell texts in `style`, the `marked` (layer, head) starred."""
    return [[style.format(float(v), (layer, head) in marked) for head, v in enumerate(row)] for layer, row in enumerate(grid)]


def marked_heads(scores: HeadScores, top: int = 2, at_least: float = MARK_AT_LEAST) -> dict[str, list[tuple[int, int]]]:
    """Score name → its best `top` (layer, head), those scoring at least `at_least` (NaN never counts)."""
    return {name: [(layer, head) for layer, head, value in scores.top(name, top) if value >= at_least] for name in scores.names}


@dataclass(frozen=True)
class DetectorText:
    """The translated words of the scores figure (pages pass them in; the defaults are the English ones).

    `names` maps a score to its panel title (a score it lacks keeps its own name)."""

    names: Mapping[str, str] = field(default_factory=dict)
    layer: str = "Layer"
    head: str = "Head"


def detector_figure(
    scores: HeadScores, text: DetectorText = DetectorText(), top: int = 2, width_hint: int = WIDTH_HINT
) -> go.Figure:
    """One panel per score (in `scores.names` order), each cell printed as it fits (`cell_text` for a
    `width_hint` px wide figure; the hover always has the number), the top heads outlined and starred."""
    n = len(scores.names)
    n_layers, n_heads = scores.scores.shape[1:]
    shown = cell_text(n, n_heads, width_hint)
    layer_label, head_label = text.layer, text.head
    fig = make_subplots(
        rows=1,
        cols=n,
        horizontal_spacing=panel_spacing(n),
        subplot_titles=[html.escape(text.names.get(name, name)) for name in scores.names],
    )
    marks = marked_heads(scores, top)
    for i, name in enumerate(scores.names, start=1):
        grid = scores.score(name).astype(np.float32)  # (L, H)
        marked = set(marks[name])
        hover = _cell_texts(grid, marked, CELL_TEXTS[0])  # the full number, ★ included
        cells = hover if shown in (None, CELL_TEXTS[0]) else _cell_texts(grid, marked, shown)  # formatted once when alike
        fig.add_trace(
            go.Heatmap(
                z=np.nan_to_num(grid, nan=0.0),
                x=[ordinal(h) for h in range(n_heads)],  # layers and heads as readers count them
                y=[ordinal(layer) for layer in range(n_layers)],
                text=cells,
                customdata=hover,
                texttemplate="%{text}" if shown else "",
                textfont={"size": shown.size if shown else CELL_FONTS[-1]},
                colorscale=ATTENTION_SCALE,
                zmin=0.0,
                zmax=1.0,
                showscale=False,
                xgap=2,
                ygap=2,
                hovertemplate=f"{html.escape(layer_label)} %{{y}}, {html.escape(head_label)} %{{x}}: "
                "%{customdata}<extra></extra>",
            ),
            row=1,
            col=i,
        )
        for layer, head in marks[name]:
            fig.add_shape(
                type="rect",
                x0=ordinal(head) - 0.5,
                x1=ordinal(head) + 0.5,
                y0=ordinal(layer) - 0.5,
                y1=ordinal(layer) + 0.5,
                line={"color": MARK_COLOR, "width": 3},
                row=1,
                col=i,
            )
        fig.update_xaxes(
            tickvals=[ordinal(h) for h in range(n_heads)],
            title={"text": html.escape(head_label)},
            fixedrange=True,
            showgrid=False,
            zeroline=False,
            row=1,
            col=i,
        )
        fig.update_yaxes(
            tickvals=[ordinal(layer) for layer in range(n_layers)],
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
    fig.update_layout(**base_layout(height=140 + 40 * n_layers, margin={"l": MARGIN_LEFT, "r": MARGIN_RIGHT, "t": 50, "b": 50}))
    return fig
