"""One attention matrix, large, with exact weights: the figure a teacher points at.

Cells sit at integer positions on both axes with token labels as `ticktext` (so two "l"s stay
two columns); the hover names each position as "3: l", which is unique, so the axes are
categorical over those names and the hover shows them without any per-cell text payload.
Every token is escaped (viz/tokens.py) before it reaches plotly. Decoder query axes arrive as a
`viz.tokens.TokenAxis` (rows named by the token they write); token lists still work everywhere.

A translator's gold word alignment can be outlined on its cross-attention (`alignment=`): one
thick square outline per aligned cell, drawn as layout shapes so it stays on the cells at any
zoom, and in a colour (Okabe–Ito vermillion) that stands apart from the white-to-indigo scale for
colour-blind viewers and on a washed-out projector.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from viz.alignment import Alignment, aligned_cells
from viz.style import ALIGNMENT_COLOR, ATTENTION_SCALE, BASE_FONT_SIZE, TICK_FONT_SIZE, base_layout
from viz.tokens import Labels, as_axis, axis, text_width_px


@dataclass(frozen=True)
class HeatmapText:
    """The translated words a heatmap shows (pages pass them in; viz never looks them up)."""

    title: str = ""
    x_title: str = "Key (attended to)"
    y_title: str = "Query (attending)"
    value: str = "Weight"  # hover and colour bar name of the cell value
    alignment: str = "Right alignment"  # legend name of the alignment outline


def _hovertemplate(text: HeatmapText, fmt: str) -> str:
    x, y, value = (html.escape(s) for s in (text.x_title, text.y_title, text.value))
    return f"{y}: %{{y}}<br>{x}: %{{x}}<br>{value}: %{{z:{fmt}}}<extra></extra>"


LABEL_PAD = 44  # px beside the tick labels: the axis title (BASE_FONT_SIZE) and the gaps around it
LEGEND_ROOM = 30  # px above the plot for the alignment outline's legend entry
LABEL_ROOM = 140  # px of a figure's width and height left for tick labels and the colour bar


def _widest_label(axis_dict: dict) -> float:
    """Estimated px width of the widest label an axis shows (every k-th token past `axis`'s budget)."""
    return max((text_width_px(html.unescape(label), TICK_FONT_SIZE) for label in axis_dict["ticktext"]), default=0.0)


def alignment_shapes(alignment: Alignment, tq: int, tk: int, name: str) -> list[dict]:
    """Square outlines of the gold (row, source key) cells, in data coordinates (cell centres are integers).

    The first shape carries the legend entry, so the outline is named once in the legend.
    """
    return [
        {
            "type": "rect",
            "xref": "x",
            "yref": "y",
            "x0": k - 0.5,
            "x1": k + 0.5,
            "y0": q - 0.5,
            "y1": q + 0.5,
            "line": {"color": ALIGNMENT_COLOR, "width": 3},
            "fillcolor": "rgba(0,0,0,0)",
            "layer": "above",
            "name": html.escape(name),
            "showlegend": i == 0,
            "legendgroup": "alignment",
        }
        for i, (q, k) in enumerate(aligned_cells(alignment, tq, tk))
    ]


def size_px(tq: int, tk: int, *, cell_px: float = 40.0, max_px: int = 760, min_px: int = 520) -> tuple[int, int]:
    """(width, height) giving square cells: big cells for short inputs, at most `max_px` for long ones."""
    cell = min(cell_px, max_px / max(tq, tk))
    return max(min_px, int(tk * cell) + LABEL_ROOM), max(min_px, int(tq * cell) + LABEL_ROOM)


def matrix_figure(
    values: np.ndarray,
    query_tokens: Labels,
    key_tokens: Labels,
    text: HeatmapText,
    *,
    zmin: float = 0.0,
    zmax: float = 1.0,
    colorscale: object = ATTENTION_SCALE,
    fmt: str = ".4f",
    alignment: Alignment | None = None,
) -> go.Figure:
    """A (Tq, Tk) matrix with token-labelled axes: queries down the side (first at the top), keys across.

    `values` are sent exactly (float32, base64): one matrix, so the payload stays small.
    `query_tokens` may be a decoder `TokenAxis` (rows named by what they write); `alignment`, if
    given, outlines the gold cells (row i, source alignment[i]).
    """
    values = np.asarray(values, dtype=np.float32)  # (Tq, Tk)
    tq, tk = values.shape
    query_tokens, key_tokens = as_axis(query_tokens), as_axis(key_tokens)
    if (tq, tk) != (len(query_tokens), len(key_tokens)):
        raise ValueError(f"values {values.shape} do not match {len(query_tokens)} query and {len(key_tokens)} key tokens")
    width, height = size_px(tq, tk)
    tick_font = {"size": TICK_FONT_SIZE}
    title_room = 34 if text.title else 0
    x_axis, y_axis = axis(key_tokens, text.x_title), axis(query_tokens, text.y_title)
    # Margins sized from the labels here rather than plotly's automargin, which measures them in the
    # browser and then draws the figure again; x labels stand upright (-90°) once any is wider than a cell.
    x_room = _widest_label(x_axis)
    upright = x_room > (width - LABEL_ROOM) / tk - 2  # wider than a cell
    layout = base_layout(
        title={
            "text": html.escape(text.title),
            "x": 0.0,
            "xanchor": "left",
            "y": 0.995,
            "yref": "container",
            "yanchor": "top",
            "font": {"size": BASE_FONT_SIZE + 1},
        }
        if text.title
        else None,
        width=width,
        height=height + title_room,
        template="none",
        margin={
            "l": round(LABEL_PAD + _widest_label(y_axis)),
            "r": 10,
            "t": 20 + title_room,
            "b": round(LABEL_PAD + (x_room if upright else TICK_FONT_SIZE * 1.3)),
        },
        xaxis={**x_axis, "type": "category", "tickfont": tick_font, "tickangle": -90 if upright else 0},
        yaxis={**y_axis, "type": "category", "autorange": "reversed", "tickfont": tick_font},
    )
    if alignment is not None:  # the legend names the outline, in a band of its own above the plot
        layout["margin"]["t"] += LEGEND_ROOM
        layout.update(
            shapes=alignment_shapes(alignment, tq, tk, text.alignment),
            showlegend=True,
            height=layout["height"] + LEGEND_ROOM,
            legend={"orientation": "h", "x": 0.0, "y": 1.0, "xanchor": "left", "yanchor": "bottom"},
        )
    return go.Figure(
        go.Heatmap(  # layout passed here, not via update_layout: several times cheaper to build
            z=values,
            x=key_tokens.hover_labels(),
            y=query_tokens.hover_labels(),
            zmin=zmin,
            zmax=zmax,
            colorscale=colorscale,
            hovertemplate=_hovertemplate(text, fmt),
            xgap=1 if max(tq, tk) <= 40 else 0,
            ygap=1 if max(tq, tk) <= 40 else 0,
            colorbar={"title": {"text": html.escape(text.value), "side": "right"}, "thickness": 14},
        ),
        layout=layout,
    )


def head_figure(
    pattern: np.ndarray,
    query_tokens: Labels,
    key_tokens: Labels,
    text: HeatmapText = HeatmapText(),
    *,
    stretch: bool = False,
    alignment: Alignment | None = None,
) -> go.Figure:
    """One head's (Tq, Tk) attention weights; `stretch` maps the colour scale's top to the largest weight.

    A fixed 0–1 scale makes heads comparable; stretching helps with the diffuse heads of an
    untrained model, whose weights are all near 1/T. `alignment` (cross-attention of a
    translator) outlines the gold word alignment; off (None) by default.
    """
    top = float(np.max(pattern)) if stretch and np.max(pattern) > 0 else 1.0
    return matrix_figure(pattern, query_tokens, key_tokens, text, zmax=top, alignment=alignment)
