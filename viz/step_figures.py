"""Figures of one query's attention, step by step (the boxes of the paper's Figure 2, left).

    MatMul (q·kⱼ) → Scale (÷ sqrt(d_k)) → Mask → SoftMax → MatMul (Σ wⱼ vⱼ)

Every cell prints its number (3 decimals) so a class can check one step by hand; colours only
help the eye (diverging around 0 for signed values, the attention scale for weights). All words
arrive translated in one `StepText`; token labels are escaped by `viz.tokens`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.step_by_step import StepView
from viz.style import ATTENTION_SCALE, DIVERGING_SCALE, MASK_COLORS, TICK_FONT_SIZE, base_layout

ROW_PX = 40  # height of one row of numbers
# q, K and V at a given height (projector mode: what is left of the first screen): rows of numbers at the projector's
# 18 px, and as many keys as fit (`qkv_keys_fitting`); the page says how many of how many it shows.
FIT_ROW_PX = 34
FIT_TOP_PX, FIT_GAP_PX, FIT_BOTTOM_PX = 36, 50, 64  # q's title above; K's and V's titles; the dimensions' ticks, title
MIN_FIT_KEYS = 3
CELL_FONT = 15
SMALL_CELL_FONT = 14  # K and V share the width: two panels of up to MAX_DIMS numbers each


@dataclass(frozen=True)
class StepText:
    """The translated words of the three step figures (pages pass them in; the defaults are the English ones)."""

    q: str = "q (query)"  # panel titles of the Q, K, V figure
    k: str = "K (one row per key)"
    shown_keys: str = "{shown} of {total} keys"  # after K's title where a fitted figure shows fewer keys than there are
    v: str = "V (one row per key)"
    dim: str = "dimension"  # axis title under a row of model dimensions
    dot: str = "q·k"  # row names of the scores figure
    scale: str = "÷ √d_k"
    mask: str = "mask"
    softmax: str = "softmax"
    key: str = "key"  # its axis title
    other: str = "other keys"  # row names of the weighted sum: keys outside the window,
    z: str = "z = Σ w·v"  # the sum,
    captured: str = "z (model)"  # and the z the model computed


def number_heatmap(
    z: np.ndarray,
    *,
    colorscale: object = DIVERGING_SCALE,
    zrange: tuple[float, float] | None = None,
    text: np.ndarray | None = None,
    font_size: int = CELL_FONT,
    digits: int = 3,
) -> go.Heatmap:
    """A small heatmap that prints its values: signed values centred on 0 unless `zrange` is given."""
    z = np.atleast_2d(np.asarray(z, dtype=np.float64))  # (rows, cols)
    if zrange is None:
        peak = float(np.abs(z).max(initial=0.0)) or 1.0
        zrange = (-peak, peak)
    return go.Heatmap(
        z=z,
        x=np.arange(z.shape[1]),
        y=np.arange(z.shape[0]),
        zmin=zrange[0],
        zmax=zrange[1],
        colorscale=colorscale,
        showscale=False,
        xgap=2,
        ygap=2,
        text=text,
        texttemplate="%{text}" if text is not None else f"%{{z:.{digits}f}}",
        textfont={"size": font_size},
        hoverinfo="z",
    )


def finish(fig: go.Figure, height: float, top: int = 20, grid: bool = False, right: int = 10, **layout: object) -> go.Figure:
    """Shared layout, and margins that grow to fit tick labels (token labels are long; nothing is clipped)."""
    fig.update_xaxes(automargin=True, showgrid=grid, zeroline=False)
    fig.update_yaxes(automargin=True, showgrid=grid, zeroline=False)
    fig.update_layout(base_layout(height=int(height), margin={"l": 10, "r": right, "t": top, "b": 10}, **layout))
    return fig


def _ticks(labels: Sequence[str], title: str = "") -> dict:
    return {
        "tickmode": "array",
        "tickvals": list(range(len(labels))),
        "ticktext": list(labels),
        "title": {"text": title},
        "tickfont": {"size": TICK_FONT_SIZE},
    }


def _dim_ticks(n: int, title: str) -> dict:
    return _ticks([str(i) for i in range(n)], title)


def qkv_keys_fitting(height_px: int) -> int:
    """How many keys `qkv_figure` can show at `height_px` (one row each, q's row above them), at least MIN_FIT_KEYS."""
    rows = (height_px - FIT_TOP_PX - FIT_GAP_PX - FIT_BOTTOM_PX) // FIT_ROW_PX
    return max(MIN_FIT_KEYS, int(rows) - 1)


def qkv_figure(view: StepView, text: StepText = StepText(), height_px: int | None = None) -> go.Figure:
    """The query row q, and the rows of K and V for the keys shown (first dimensions only).

    `height_px`: the most the figure may take, for a view of at most `qkv_keys_fitting(height_px)` keys (projector
    mode; K's title then says how many keys of how many it shows); None: rows of ROW_PX."""
    n = len(view.keys)
    if height_px is None:
        height, top, q_row, gap = 170 + ROW_PX * (n + 1.5), 40, 1.5, 70
    else:
        natural = FIT_TOP_PX + FIT_GAP_PX + FIT_BOTTOM_PX + FIT_ROW_PX * (n + 1)  # a short input: rows of FIT_ROW_PX
        height, top, q_row, gap = min(height_px, natural), FIT_TOP_PX, 1.0, FIT_GAP_PX
    k_title = text.k  # a fitted figure says how many keys it shows, on the first screen (the page's note is under it)
    if height_px is not None and view.keys_clipped:
        k_title = f"{text.k} · {text.shown_keys.format(shown=n, total=view.n_keys)}"
    fig = make_subplots(
        rows=2,
        cols=2,
        row_heights=[q_row, n],
        vertical_spacing=gap / height,
        horizontal_spacing=0.03,
        specs=[[{}, None], [{}, {}]],
        subplot_titles=(text.q, k_title, text.v),
    )
    for matrix, row, col in ((view.q, 1, 1), (view.k, 2, 1), (view.v, 2, 2)):
        fig.add_trace(number_heatmap(matrix, font_size=SMALL_CELL_FONT), row=row, col=col)
    fig.update_yaxes(_ticks([view.query_label]), row=1, col=1)
    for col in (1, 2):
        fig.update_yaxes(_ticks(view.key_labels), autorange="reversed", row=2, col=col)
        fig.update_xaxes(_dim_ticks(view.dims, text.dim), side="bottom", row=2, col=col)
    fig.update_yaxes(showticklabels=False, row=2, col=2)  # V's rows are K's rows: the labels on the left serve both
    fig.update_xaxes(showticklabels=False, ticks="", row=1, col=1)  # same dimensions as K below
    return finish(fig, height, top=top)


def fitting_decimals(values: np.ndarray, cell_px: float | None, font_px: int = CELL_FONT) -> int:
    """The most decimals (3 down to 0) whose widest number fits a cell `cell_px` wide (None: 3, no limit)."""
    if cell_px is None:
        return 3
    chars = cell_px / (0.58 * font_px)  # a digit is a little over half an em wide
    sign = "-" if float(np.min(values, initial=0.0)) < 0 else ""
    peak = float(np.abs(values).max(initial=0.0))
    return next((d for d in (3, 2, 1) if len(f"{sign}{peak:.{d}f}") <= chars), 0)


def scores_figure(
    view: StepView, text: StepText = StepText(), width_px: int | None = None, font_px: int = CELL_FONT
) -> go.Figure:
    """Four rows over the shown keys: q·kⱼ, ÷ sqrt(d_k), masked (−∞ where blocked), softmax.

    With `width_px` (the figure's width) every number is printed with the decimals that fit its cell at
    `font_px`; without, with 3.
    """
    cell_px = None if width_px is None else 0.85 * width_px / max(len(view.keys), 1)  # the row labels take the rest
    d, dw = fitting_decimals(view.dot, cell_px, font_px), fitting_decimals(view.weights, cell_px, font_px)
    masked_text = np.array([[f"{s:.{d}f}" if ok else "−∞" for s, ok in zip(view.scaled, view.allowed, strict=True)]])
    mask_scale = [[0.0, MASK_COLORS["blocked"]], [1.0, "#cfe0f3"]]
    rows = [
        (number_heatmap(view.dot, digits=d), text.dot),
        (number_heatmap(view.scaled, digits=d), text.scale),
        (number_heatmap(view.allowed.astype(float), colorscale=mask_scale, zrange=(0, 1), text=masked_text), text.mask),
        (number_heatmap(view.weights, colorscale=ATTENTION_SCALE, zrange=(0, 1), digits=dw), text.softmax),
    ]
    fig = make_subplots(rows=len(rows), cols=1, shared_xaxes=True, vertical_spacing=0.06)
    for i, (trace, label) in enumerate(rows, start=1):
        fig.add_trace(trace, row=i, col=1)
        fig.update_yaxes(_ticks([label]), row=i, col=1)
    # every key named: a slanted last label ("8: <eos>") reaches past the plot, where plotly would hide it
    fig.update_xaxes(_ticks(view.key_labels, text.key), ticklabeloverflow="allow", row=len(rows), col=1)
    return finish(fig, 120 + 1.6 * ROW_PX * len(rows), right=60)


def weighted_sum_figure(view: StepView, text: StepText = StepText()) -> go.Figure:
    """wⱼ · vⱼ for each shown key, then their sum z next to the z the model computed."""
    labels = [f"{w:.3f} × v({lbl})" for w, lbl in zip(view.weights, view.key_labels, strict=True)]
    summary = [view.z, view.captured_z]
    summary_labels = [text.z, text.captured]
    if view.keys_clipped:
        summary.insert(0, view.rest)
        summary_labels.insert(0, text.other)
    n, m = len(labels), len(summary)
    peak = float(max(np.abs(view.contributions).max(initial=0.0), np.abs(view.z).max(initial=0.0))) or 1.0
    fig = make_subplots(rows=2, cols=1, row_heights=[n, m], vertical_spacing=0.1 if n > 4 else 0.2)
    fig.add_trace(number_heatmap(view.contributions, zrange=(-peak, peak)), row=1, col=1)
    fig.add_trace(number_heatmap(np.stack(summary), zrange=(-peak, peak)), row=2, col=1)
    fig.update_yaxes(_ticks(labels), autorange="reversed", row=1, col=1)
    fig.update_yaxes(_ticks(summary_labels), autorange="reversed", row=2, col=1)
    fig.update_xaxes(_dim_ticks(view.dims, ""), row=1, col=1)
    fig.update_xaxes(_dim_ticks(view.dims, text.dim), row=2, col=1)
    return finish(fig, 140 + ROW_PX * (n + m))
