"""The Why page's figures: the logit lens as a line, patching as two heat maps (residual stream: point × position;
heads: attention module × head) with the cell that restores most outlined, and direct logit attribution as bars.

Plain NumPy in, Plotly out: every word on a figure comes in translated from the page (no catalog here).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from viz.style import DIVERGING_SCALE, MARK_COLOR, QUALITATIVE, base_layout

ROW_HEIGHT = 34  # px per heat-map row: a token label stays readable from the back of a class
DLA_BARS = 12  # the components shown: the largest shares by size; the rest are summed in one bar


@dataclass(frozen=True)
class LensText:
    """The lens chart's title and its y axis (the probability of the token finally written)."""

    title: str
    y_title: str
    top: str = "top"  # the hover's name for a read's most probable token
    bytes: str = "bytes: {hex}"  # a byte-level piece's raw bytes, a hover line under it


@dataclass(frozen=True)
class PatchText:
    """A patching heat map's title and (heads only) its x axis."""

    title: str
    x_title: str = ""
    bytes: str = "bytes: {hex}"  # a byte-level piece's raw bytes, a hover line under its position


@dataclass(frozen=True)
class AttributionText:
    """The attribution bars' title, x axis and the name of the bar that sums the smaller shares."""

    title: str
    x_title: str
    rest: str


def lens_figure(
    labels: Sequence[str], p_token: np.ndarray, top1: Sequence[str], words: LensText, top1_hex: Sequence[str] = ()
) -> go.Figure:
    """p(the token finally written) after each read; each marker's text is the read's most probable token, and the
    hover adds its raw bytes (`top1_hex`, "" where it is text) under a byte-level piece."""
    raw = top1_hex if len(top1_hex) == len(labels) else [""] * len(labels)
    lines = [f"<br>{html.escape(words.bytes.format(hex=h))}" if h else "" for h in raw]
    top = html.escape(words.top)
    fig = go.Figure(
        go.Scatter(
            x=list(range(len(labels))),
            y=np.asarray(p_token, dtype=float),
            mode="lines+markers+text",
            text=list(top1),
            textposition="top center",
            marker={"size": 10, "color": QUALITATIVE[0]},
            hovertemplate=f"%{{customdata[0]}}<br>p = %{{y:.3f}}<br>{top}: %{{text}}%{{customdata[1]}}<extra></extra>",
            customdata=[[label, line] for label, line in zip(labels, lines, strict=True)],
        )
    )
    fig.update_layout(
        **base_layout(title=words.title, height=380, margin={"l": 60, "r": 20, "t": 60, "b": 110}),
        yaxis={"title": words.y_title, "range": [-0.05, 1.12]},
        xaxis={"tickvals": list(range(len(labels))), "ticktext": list(labels), "tickangle": -35},
    )
    return fig


def _heatmap(
    values: np.ndarray,
    x: Sequence[str],
    y: Sequence[str],
    best: tuple[int, int] | None,
    title: str,
    hover: str,
    *,
    x_title: str = "",
    x_notes: Sequence[str] = (),
) -> go.Figure:
    """`x_notes`: a line (markup, escaped by the caller) to add to each column's hover, or empty."""
    values = np.asarray(values, dtype=float)
    notes = list(x_notes) if len(x_notes) == values.shape[1] else [""] * values.shape[1]
    fig = go.Figure(
        go.Heatmap(
            z=values,
            x=list(range(values.shape[1])),
            y=list(range(values.shape[0])),
            colorscale=DIVERGING_SCALE,
            zmin=-1,
            zmax=1,
            zmid=0,
            text=np.vectorize(lambda v: f"{v:.2f}")(values),
            texttemplate="%{text}",
            hovertemplate=hover,
            customdata=np.array([[f"{yy} · {xx}{note}" for xx, note in zip(x, notes, strict=True)] for yy in y], dtype=object),
            colorbar={"thickness": 12, "len": 0.9},
        )
    )
    if best is not None:
        r, c = best
        fig.add_shape(type="rect", x0=c - 0.5, x1=c + 0.5, y0=r - 0.5, y1=r + 0.5, line={"color": MARK_COLOR, "width": 4})
    height = max(220, 110 + ROW_HEIGHT * values.shape[0])
    fig.update_layout(
        **base_layout(title=title, height=height, margin={"l": 10, "r": 10, "t": 60, "b": 60}),
        xaxis={"tickvals": list(range(len(x))), "ticktext": list(x), "title": x_title, "side": "bottom"},
        yaxis={"tickvals": list(range(len(y))), "ticktext": list(y), "autorange": "reversed", "automargin": True},
    )
    return fig


def residual_figure(
    residual: np.ndarray,
    row_labels: Sequence[str],
    tokens: Sequence[str],
    best: tuple[int, int] | None,
    words: PatchText,
    raw: Sequence[str] = (),
) -> go.Figure:
    """Restored fraction of each (residual point, position); `best` (row, position) outlined. `raw`: each position's
    raw bytes (hex, "" where its label is the text), a hover line under a byte-level piece."""
    notes = [f"<br>{html.escape(words.bytes.format(hex=h))}" if h else "" for h in raw]
    hover = "%{customdata}<br>%{z:.3f}<extra></extra>"
    return _heatmap(residual, tokens, row_labels, best, words.title, hover, x_notes=notes)


def heads_figure(
    heads: np.ndarray,
    module_labels: Sequence[str],
    head_labels: Sequence[str],
    best: tuple[int, int] | None,
    words: PatchText,
) -> go.Figure:
    """Restored fraction of each head's output (rows: attention modules); `best` (module, head) outlined."""
    hover = "%{customdata}<br>%{z:.3f}<extra></extra>"
    return _heatmap(heads, head_labels, module_labels, best, words.title, hover, x_title=words.x_title)


def dla_figure(names: Sequence[str], shares: np.ndarray, words: AttributionText) -> go.Figure:
    """The largest direct shares as horizontal bars (positive red, negative blue), the others summed in one bar."""
    shares = np.asarray(shares, dtype=float)
    order = np.argsort(-np.abs(shares))
    shown = sorted(order[:DLA_BARS].tolist())
    labels = [names[i] for i in shown]
    values = [float(shares[i]) for i in shown]
    if len(order) > DLA_BARS:
        labels.append(words.rest)
        values.append(float(shares[order[DLA_BARS:]].sum()))
    colors = ["#b2182b" if v >= 0 else "#2166ac" for v in values]
    bars = go.Bar(x=values, y=labels, orientation="h", marker={"color": colors}, text=[f"{v:+.2f}" for v in values])
    fig = go.Figure(bars.update(textposition="outside", cliponaxis=False))
    fig.update_layout(
        **base_layout(title=words.title, height=max(260, 90 + 28 * len(labels)), margin={"l": 10, "r": 50, "t": 60, "b": 50}),
        yaxis={"autorange": "reversed", "automargin": True},
        xaxis={"title": words.x_title},
    )
    return fig


__all__ = ["AttributionText", "LensText", "PatchText", "dla_figure", "heads_figure", "lens_figure", "residual_figure"]
