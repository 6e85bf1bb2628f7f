"""One attention matrix, large, with exact weights up to 256 × 256 cells: the figure a teacher points at.

Cells sit at integer positions on both axes with token labels as `ticktext` (so two "l"s stay
two columns); the hover names each position as "3: l", which is unique, so the axes are
categorical over those names and the hover shows them without any per-cell text payload.
Every token is escaped (viz/tokens.py) before it reaches plotly. Decoder query axes arrive as a
`viz.tokens.TokenAxis` (rows named by the token they write); token lists still work everywhere.

A long input's matrix is sent as an image (`EXACT_CELLS`): past 256 × 256 cells, float32 weights cost 5.6 bytes a
cell (a GPT-2-sized head at 1,024 tokens: 5.7 MB, the rollout as much again), and the browser spent seconds
parsing and drawing what a 760-pixel plot shows below one pixel a cell. The colours then go as one palette PNG
of at most one pixel per screen pixel (760 at most: a 1,024-token head keeps each 2 × 2 block's largest weight,
as the head grid does, so a sharp head stays sharp; quantized to 1/255 of the colour scale), stretched over the
plot as a layout image that follows zoom; the hover is a transparent heatmap of at most 256 × 256 blocks, each
naming its positions and giving its largest value. The exact weights stay in the page's .npz export.

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
from viz.head_grid import LEVELS, colour_table, max_pool, palette
from viz.payload import EXACT_BYTES_PER_CELL, GRID_BYTES_PER_CELL
from viz.png import data_uri, encode_palette_png
from viz.style import ALIGNMENT_COLOR, ATTENTION_SCALE, BASE_FONT_SIZE, TICK_FONT_SIZE, base_layout
from viz.tokens import Labels, TokenAxis, as_axis, axis, text_width_px


@dataclass(frozen=True)
class HeatmapText:
    """The translated words a heatmap shows (pages pass them in; viz never looks them up)."""

    title: str = ""
    x_title: str = "Key (attended to)"
    y_title: str = "Query (attending)"
    value: str = "Weight"  # hover and colour bar name of the cell value
    alignment: str = "Right alignment"  # legend name of the alignment outline
    block: str = "{value}: largest of these {rows} × {cols}"  # a long matrix's hover, per block of cells
    bytes: str = "bytes: {hex}"  # a byte-level piece's raw bytes under its name in the hover (`TokenAxis.hover_labels`)


EXACT_CELLS = 256 * 256  # up to this many cells a matrix is sent exactly; past it, as an image (module docstring)
HOVER_BLOCKS = 256  # past EXACT_CELLS, at most this many hover blocks along each axis
PLOT_PX = 760  # the longest side of a matrix's plot area, px


def _hovertemplate(text: HeatmapText, fmt: str, block: tuple[int, int] = (1, 1)) -> str:
    x, y = html.escape(text.x_title), html.escape(text.y_title)
    value = html.escape(text.value if block == (1, 1) else text.block.format(value=text.value, rows=block[0], cols=block[1]))
    return f"{y}: %{{y}}<br>{x}: %{{x}}<br>{value}: %{{z:{fmt}}}<extra></extra>"


LABEL_PAD = 44  # px beside the tick labels: the axis title (BASE_FONT_SIZE) and the gaps around it
LEGEND_ROOM = 30  # px above the plot for the alignment outline's legend entry
LABEL_ROOM = 140  # px of a figure's width and height left for tick labels and the colour bar


def _widest_label(axis_dict: dict) -> float:
    """Estimated px width of the widest label an axis shows (every k-th token past `axis`'s budget)."""
    return max((text_width_px(html.unescape(label), TICK_FONT_SIZE) for label in axis_dict["ticktext"]), default=0.0)


def strides(tq: int, tk: int) -> tuple[int, int]:
    """(query, key) positions per plotted cell: (1, 1) up to `EXACT_CELLS`; past it, blocks of at most
    `HOVER_BLOCKS` along each axis."""
    if tq * tk <= EXACT_CELLS:
        return 1, 1
    return -(-tq // HOVER_BLOCKS), -(-tk // HOVER_BLOCKS)


def image_stride(n: int) -> int:
    """Positions per pixel of a long matrix's image along an axis of `n` positions: at most `PLOT_PX` pixels."""
    return -(-n // PLOT_PX)


def image_side(n: int) -> int:
    """Pixels of a long matrix's image along an axis of `n` positions."""
    return -(-n // image_stride(n))


def matrix_bytes(tq: int, tk: int) -> float:
    """An upper estimate of `matrix_figure`'s payload for a (Tq, Tk) matrix: its float32 cells up to `EXACT_CELLS`;
    past it, the hover blocks' float32 and the image's pixels (counted as `viz.payload` counts a grid's)."""
    sq, sk = strides(tq, tk)
    if (sq, sk) == (1, 1):
        return tq * tk * EXACT_BYTES_PER_CELL
    blocks = -(-tq // sq) * -(-tk // sk)
    return blocks * EXACT_BYTES_PER_CELL + image_side(tq) * image_side(tk) * GRID_BYTES_PER_CELL


def position(i: int | float, stride: int) -> float:
    """Where position `i`'s centre sits on an axis whose cells each hold `stride` positions (cell centres are the
    integers 0, 1, …): `i` itself when `stride` is 1."""
    return (i + 0.5) / stride - 0.5


def alignment_shapes(alignment: Alignment, tq: int, tk: int, name: str, block: tuple[int, int] = (1, 1)) -> list[dict]:
    """Square outlines of the gold (row, source key) cells, in data coordinates (cell centres are integers;
    `block`: positions per plotted cell, as `strides`).

    The first shape carries the legend entry, so the outline is named once in the legend.
    """
    sq, sk = block
    return [
        {
            "type": "rect",
            "xref": "x",
            "yref": "y",
            "x0": position(k - 0.5, sk),
            "x1": position(k + 0.5, sk),
            "y0": position(q - 0.5, sq),
            "y1": position(q + 0.5, sq),
            "line": {"color": ALIGNMENT_COLOR, "width": 3},
            "fillcolor": "rgba(0,0,0,0)",
            "layer": "above",
            "name": html.escape(name),
            "showlegend": i == 0,
            "legendgroup": "alignment",
        }
        for i, (q, k) in enumerate(aligned_cells(alignment, tq, tk))
    ]


def size_px(tq: int, tk: int, *, cell_px: float = 40.0, max_px: int = PLOT_PX, min_px: int = 520) -> tuple[int, int]:
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

    Up to `EXACT_CELLS` cells, `values` are sent exactly (float32, base64) and hovered cell by cell; past it, as an
    image with a hover per block (module docstring). `query_tokens` may be a decoder `TokenAxis` (rows named by
    what they write); `alignment`, if given, outlines the gold cells (row i, source alignment[i]).
    """
    values = np.asarray(values, dtype=np.float32)  # (Tq, Tk)
    tq, tk = values.shape
    query_tokens, key_tokens = as_axis(query_tokens), as_axis(key_tokens)
    if (tq, tk) != (len(query_tokens), len(key_tokens)):
        raise ValueError(f"values {values.shape} do not match {len(query_tokens)} query and {len(key_tokens)} key tokens")
    block = strides(tq, tk)
    width, height = size_px(tq, tk)
    tick_font = {"size": TICK_FONT_SIZE}
    title_room = 34 if text.title else 0
    x_axis, y_axis = axis(key_tokens, text.x_title), axis(query_tokens, text.y_title)
    x_axis["tickvals"] = [position(i, block[1]) for i in x_axis["tickvals"]]
    y_axis["tickvals"] = [position(i, block[0]) for i in y_axis["tickvals"]]
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
            shapes=alignment_shapes(alignment, tq, tk, text.alignment, block),
            showlegend=True,
            height=layout["height"] + LEGEND_ROOM,
            legend={"orientation": "h", "x": 0.0, "y": 1.0, "xanchor": "left", "yanchor": "bottom"},
        )
    heatmap = {  # layout passed to go.Figure, not via update_layout: several times cheaper to build
        "zmin": zmin,
        "zmax": zmax,
        "colorscale": colorscale,
        "hovertemplate": _hovertemplate(text, fmt, block),
        "colorbar": {"title": {"text": html.escape(text.value), "side": "right"}, "thickness": 14},
    }
    if block == (1, 1):
        gap = 1 if max(tq, tk) <= 40 else 0
        x, y = key_tokens.hover_labels(text.bytes), query_tokens.hover_labels(text.bytes)
        trace = go.Heatmap(z=values, x=x, y=y, xgap=gap, ygap=gap, **heatmap)
        return go.Figure(trace, layout=layout)
    layout["images"] = [matrix_image(values, zmin, zmax, colorscale, block)]
    hover = go.Heatmap(  # transparent: the colours are the image under it; its colour bar still shows the scale
        z=max_pool(values, *block),  # (⌈Tq/sq⌉, ⌈Tk/sk⌉)
        x=block_labels(key_tokens, block[1], text.bytes),
        y=block_labels(query_tokens, block[0], text.bytes),
        opacity=0,
        **heatmap,
    )
    return go.Figure(hover, layout=layout)


def matrix_image(values: np.ndarray, zmin: float, zmax: float, colorscale: object, block: tuple[int, int]) -> dict:
    """A (Tq, Tk) matrix as a layout image over the axes' `block`-position cells: at most `PLOT_PX` pixels a side
    (each the largest value of the cells it covers), `zmin`..`zmax` spread over the colour scale's 256 levels (NaN
    draws as `zmin`)."""
    tq, tk = values.shape
    pixels = max_pool(values, image_stride(tq), image_stride(tk))  # (image_side(Tq), image_side(Tk))
    span = zmax - zmin if zmax > zmin else 1.0
    levels = np.rint(np.clip(np.nan_to_num((pixels - zmin) / span), 0.0, 1.0) * LEVELS).astype(np.uint8)
    colours = palette() if colorscale is ATTENTION_SCALE else colour_table(colorscale)  # type: ignore[arg-type]
    return {
        "source": data_uri(encode_palette_png(levels, colours)),
        "xref": "x",
        "yref": "y",
        "x": position(-0.5, block[1]),  # the first cell's outer corner
        "y": position(-0.5, block[0]),
        "sizex": tk / block[1],
        "sizey": tq / block[0],
        "xanchor": "left",
        "yanchor": "top",
        "sizing": "stretch",
        "layer": "below",
    }


def block_labels(tokens: TokenAxis, stride: int, bytes_line: str = "") -> list[str]:
    """Unique hover names of an axis's cells of `stride` positions: "412–415: the … cat" (escaped); the positions'
    own "3: l" names (with a byte-level piece's raw bytes, `bytes_line`) when `stride` is 1."""
    if stride == 1:
        return tokens.hover_labels(bytes_line)
    labels = tokens.long_labels()
    names = []
    for first in range(0, len(labels), stride):
        last = min(first + stride, len(labels)) - 1
        names.append(f"{first}: {labels[first]}" if first == last else f"{first}–{last}: {labels[first]} … {labels[last]}")
    return names


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
