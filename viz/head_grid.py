"""Every layer × head of one attention kind as one small-multiples picture, sent compactly.

The tiles are quantized to uint8 and laid out as one mosaic image, encoded as a palette PNG
(see viz/png.py): about 0.5–0.9 bytes a cell in the figure JSON, where float32 z would cost 5.6.
Exact weights are for the single enlarged head (viz/heatmap.py; past 256 × 256 cells it too is an
image). On top of the image sit two tiny scatter traces: the "L0 H1" labels, and one invisible point per tile centre whose hover
names the tile and whose click selects it (plotly heatmaps and images cannot be clicked-to-select;
with `hoverdistance=-1` the nearest centre wins, and on a regular grid that is the tile under the
pointer).

Options a page can turn on: `stretch` scales each tile to its own largest weight (at 100+
tokens every weight is near 1/T and a fixed 0–1 scale looks blank); `importance`/`marked` put a
thick orange outline and a ★ on the heads whose removal changes the output, with the importance
in the tile hover; `query_axis`/`key_axis` list in each tile's hover where its first rows look
most, naming decoder rows by the token they write (viz/tokens.py `TokenAxis`).
"""

from __future__ import annotations

import functools
import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from hook_names import ordinal
from viz.png import data_uri, encode_palette_png
from viz.style import ATTENTION_SCALE, MARK_COLOR, base_layout
from viz.tokens import Labels, as_axis

LEVELS = 255  # weights map to palette indices 0..255 (gaps are 0: white)
FRAME_COLOR = "#9a9a9a"  # a thin outline, so a tile whose edge is 0 (white) still shows where it ends
MARGIN = {"l": 4, "r": 4, "t": 4, "b": 4}
MARK = " ★"  # after an important head's tile label: marked without relying on colour
# (L, H, Tq, Tk) weights: one array, or one (H, Tq, Tk) array per layer (a long input's layers are not stacked)
Layers = np.ndarray | Sequence[np.ndarray]
PEAK_ROWS = 12  # rows listed in a tile's hover ("今天: today"), so the hover stays on screen


def quantize(weights: np.ndarray) -> np.ndarray:
    """Weights in [0, 1] → uint8 0..LEVELS (vectorised; never Python lists)."""
    return np.rint(np.clip(weights, 0.0, 1.0) * LEVELS).astype(np.uint8)


def stretch_tiles(tiles: np.ndarray) -> np.ndarray:
    """(..., tq, tk) tiles each divided by its own largest value, so its peak is the darkest colour.

    An all-zero tile stays zero. What head_figure's stretch does for one head, per tile.
    """
    peak = tiles.max(axis=(-2, -1), keepdims=True)  # (..., 1, 1)
    return np.divide(tiles, peak, out=np.zeros(tiles.shape, dtype=np.float32), where=peak > 0)


def _block_max(x: np.ndarray, stride: int, axis: int) -> np.ndarray:
    """The maximum of each run of `stride` entries along `axis` (-2 or -1); the last run may be shorter."""
    n = x.shape[axis]
    full = n - n % stride
    if axis == -2:
        blocks = x[..., :full, :].reshape(*x.shape[:-2], full // stride, stride, x.shape[-1]).max(axis=-2)
        tail = x[..., full:, :].max(axis=-2, keepdims=True) if full < n else None
    else:
        # the i-th key of every run at once, `stride` whole-array passes: NumPy's reduction over a short last axis
        # took four times as long (19 ms against 4.5 for a GPT-2-sized stack's rows at stride 15)
        blocks = x[..., 0:full:stride].copy()  # (..., full / stride)
        for i in range(1, stride):
            np.maximum(blocks, x[..., i:full:stride], out=blocks)
        tail = x[..., full:].max(axis=-1, keepdims=True) if full < n else None
    return blocks if tail is None else np.concatenate([blocks, tail], axis=axis)


SIGN_BIT = 0x8000  # a float16's sign: set only on negative numbers and -0, which weights never are


def max_pool(patterns: np.ndarray, stride: int, key_stride: int | None = None) -> np.ndarray:
    """Downsample the last two axes by `stride` (keys by `key_stride`, if given), keeping each block's maximum
    (sharp heads stay visible).

    The last block of an axis whose length its stride does not divide is shorter (as if padded with zeros:
    weights are ≥ 0). Rows are pooled first, `stride` contiguous rows at a time, without a padded copy of the
    (possibly 1,024²-cell) input: five times `np.maximum.reduceat`'s speed there.
    """
    key_stride = stride if key_stride is None else key_stride
    if stride <= 1 and key_stride <= 1:
        return patterns
    if patterns.dtype == np.float16:
        # a bfloat16 run's float16 weights: NumPy's float16 maximum is ten times float32's, and widening costs as
        # much again; for numbers ≥ +0 the bit patterns, read as integers, are ordered as the numbers are. A block
        # holding a negative number or -0 (sign bit set) pools to an integer ≥ SIGN_BIT, so the pooled blocks say
        # whether that held, without a pass over every weight first; if not, the float16 maximum after all.
        pooled = max_pool(patterns.view(np.uint16), stride, key_stride)
        if not (pooled >= SIGN_BIT).any():
            return pooled.view(np.float16)
    rows = _block_max(patterns, stride, axis=-2) if stride > 1 else patterns  # (..., ⌈Tq/s⌉, Tk)
    return _block_max(rows, key_stride, axis=-1) if key_stride > 1 else rows  # (..., ⌈Tq/s⌉, ⌈Tk/s⌉)


def colour_table(colorscale: str | Sequence[Sequence[object]]) -> np.ndarray:
    """(256, 3) uint8: a plotly colour scale (a name or [[position, colour], …]) at every quantization level."""
    scale = plotly.colors.get_colorscale(colorscale) if isinstance(colorscale, str) else colorscale
    colours = plotly.colors.sample_colorscale(scale, list(np.linspace(0.0, 1.0, LEVELS + 1)), colortype="rgb")
    table = np.array([[round(float(v)) for v in re.findall(r"[\d.]+", c)[:3]] for c in colours], dtype=np.uint8)
    table.setflags(write=False)
    return table


@functools.cache
def palette() -> np.ndarray:
    """`colour_table(ATTENTION_SCALE)`, computed once (read-only)."""
    return colour_table(ATTENTION_SCALE)


@dataclass(frozen=True)
class GridGeometry:
    """Where each tile sits in the mosaic, in image pixels (one pixel = one, possibly pooled, cell)."""

    n_layers: int
    n_heads: int
    tq: int  # tile height in cells, after pooling
    tk: int  # tile width in cells, after pooling
    stride: int  # pooling applied to the patterns (1 = every weight its own cell)
    zoom: int  # image pixels per cell side: short inputs get big cells, yet thin gaps and label bands
    gap: int  # image pixels between tiles
    band: int  # image pixels above each tile row, for its labels
    scale: float  # screen pixels per image pixel

    @property
    def tile(self) -> tuple[int, int]:
        """(height, width) of one tile in image pixels."""
        return self.tq * self.zoom, self.tk * self.zoom

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, cols) of the mosaic image."""
        height, width = self.tile
        return (
            self.n_layers * (self.band + height) + (self.n_layers - 1) * self.gap,
            self.n_heads * width + (self.n_heads - 1) * self.gap,
        )

    def origin(self, row: int, head: int) -> tuple[int, int]:
        """Top-left pixel of the tile of layer row `row` (0 = first shown layer) and `head`."""
        height, width = self.tile
        return row * (self.band + height + self.gap) + self.band, head * (width + self.gap)

    @property
    def size_px(self) -> tuple[int, int]:
        """(width, height) of the figure in screen pixels."""
        rows, cols = self.shape
        return (
            math.ceil(cols * self.scale) + MARGIN["l"] + MARGIN["r"],
            math.ceil(rows * self.scale) + MARGIN["t"] + MARGIN["b"],
        )


def grid_geometry(
    n_layers: int,
    n_heads: int,
    tq: int,
    tk: int,
    *,
    min_stride: int = 1,
    width_px: int = 1000,
    max_tile_px: int = 200,
    gap_px: int = 14,
    label_px: int = 22,
) -> GridGeometry:
    """Fit `n_heads` tiles side by side in `width_px`; pool long inputs so a cell is at least one pixel."""
    room = width_px - gap_px * (n_heads - 1)
    cell = min(max_tile_px / max(tq, tk), room / (n_heads * tk))  # screen pixels per cell
    stride = max(min_stride, math.ceil(1 / cell) if cell < 1 else 1)
    pq, pk = -(-tq // stride), -(-tk // stride)
    cell = min(max_tile_px / max(pq, pk), room / (n_heads * pk))
    zoom = max(1, min(16, int(cell // 4)))
    scale = cell / zoom
    return GridGeometry(
        n_layers, n_heads, pq, pk, stride, zoom, max(1, math.ceil(gap_px / scale)), max(1, math.ceil(label_px / scale)), scale
    )


def mosaic(patterns: Layers, geometry: GridGeometry, stretch: bool = False) -> np.ndarray:
    """(L, H, Tq, Tk) weights → (rows, cols) uint8 palette indices, gaps and label bands 0 (white).

    Pooled layer by layer: the (L, H, Tq, Tk) stack of a long input is never built.
    """
    # float32 tiles whatever the run kept (a bfloat16 run's float16 weights are quantized as float32's would be)
    pooled = np.stack([max_pool(layer, geometry.stride).astype(np.float32, copy=False) for layer in patterns])  # (L, H, tq, tk)
    tiles = quantize(stretch_tiles(pooled) if stretch else pooled)  # (L, H, tq, tk)
    tiles = tiles.repeat(geometry.zoom, axis=-2).repeat(geometry.zoom, axis=-1)  # (L, H, tq·zoom, tk·zoom)
    height, width = geometry.tile
    image = np.zeros(geometry.shape, dtype=np.uint8)
    for row in range(tiles.shape[0]):
        for head in range(tiles.shape[1]):
            r, c = geometry.origin(row, head)
            image[r : r + height, c : c + width] = tiles[row, head]
    return image


def _outlines(origins: list[tuple[int, int]], geo: GridGeometry, pad: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """One polyline around every tile, `pad` image pixels outside it (NaN breaks the line between tiles)."""
    x, y = [], []
    for r, c in origins:
        top, left = r - 0.5 - pad, c - 0.5 - pad
        bottom, right = r + geo.tile[0] - 0.5 + pad, c + geo.tile[1] - 0.5 + pad
        x += [left, right, right, left, left, np.nan]
        y += [top, top, bottom, bottom, top, np.nan]
    return np.array(x, dtype=np.float32), np.array(y, dtype=np.float32)


def peak_lines(
    patterns: Layers,
    query_axis: Labels,
    key_axis: Labels,
    template: str = "{query}: {key}",
    max_rows: int = PEAK_ROWS,
    bytes_line: str = "",
) -> list[list[str]]:
    """Per tile, one hover line per query row (the first `max_rows`): the row and the key it weights most.

    Rows are named by `query_axis`'s long labels ("我 → 今天" for decoder rows), keys by theirs; escaped. With
    `bytes_line` ("bytes: {hex}", translated) a line naming a byte-level piece ("你 ¹⁄₃") ends with the raw bytes of
    its row and key, in the same template ("你 ¹⁄₃: 好 ²⁄₃ · bytes: e4: e5").
    Returns an (L, H) nested list of "<br>"-joinable lines.
    """
    q_axis, k_axis = as_axis(query_axis), as_axis(key_axis)
    queries, keys = q_axis.long_labels(), k_axis.long_labels()
    has_raw = bool(bytes_line) and any(a.hex or a.reads_hex for a in (q_axis, k_axis))

    def raw(i: int, k: int) -> str:
        q_hex, k_hex = q_axis.raw_bytes(i), k_axis.raw_bytes(k)
        if not has_raw or not (q_hex or k_hex):
            return ""
        return " · " + html.escape(bytes_line.format(hex=template.format(query=q_hex or "–", key=k_hex or "–")))

    tq = patterns[0].shape[-2]
    n_rows = min(max_rows, tq)
    peaks = np.stack([layer[..., :n_rows, :].argmax(axis=-1) for layer in patterns])  # (L, H, rows)
    more = ["…"] if tq > n_rows else []
    return [
        [[template.format(query=queries[i], key=keys[k]) + raw(i, k) for i, k in enumerate(head)] + more for head in layer]
        for layer in peaks.tolist()
    ]


@dataclass(frozen=True)
class GridText:
    """The translated templates a grid shows (pages pass them in; the defaults are the English ones). Hashable:
    part of the grid figure's cache key."""

    tile_label: str = "L{layer} H{head}"  # over each tile; {layer} and {head} count from 1
    hover: str = "Layer {layer}, head {head}: click to enlarge"  # the tile's hover, then its extra lines:
    importance_hover: str = (
        "Removing it changes {importance:.0%} of outputs"  # the share of outputs that change without the head,
    )
    peak_template: str = "{query}: {key}"  # and where each of its first rows looks most,
    bytes: str = "bytes: {hex}"  # with a byte-level piece's raw bytes (`peak_lines`)


def _tile_hovers(names: dict[str, list[int]], hover: str, notes: list[list[str]]) -> list[str]:
    """Each tile's hover: the tile's name, then its extra lines (importance, where rows look)."""
    return [
        "<br>".join([hover.format(layer=ordinal(layer), head=ordinal(head)), *lines]) + "<extra></extra>"
        for layer, head, lines in zip(names["layer"], names["head"], notes, strict=True)
    ]


def grid_figure(
    patterns: Layers,
    text: GridText = GridText(),
    *,
    first_layer: int = 0,
    min_stride: int = 1,
    width_px: int = 1000,
    stretch: bool = False,
    importance: np.ndarray | None = None,
    marked: np.ndarray | None = None,
    query_axis: Labels | None = None,
    key_axis: Labels | None = None,
) -> go.Figure:
    """Small multiples of (L, H, Tq, Tk) `patterns` whose layer numbers start at `first_layer`.

    Each tile is labelled and hovered by `text`'s templates; each scatter point's `customdata` is
    [layer, head], so a click tells the page which head to enlarge.
    `stretch` scales each tile to its own peak. `importance` (L, H) (e.g. the share of outputs
    that change without the head) goes in the tile hover through `text.importance_hover`; `marked`
    (L, H) bool (default: importance > 0) outlines those tiles and adds ★ to their labels.
    `query_axis` and `key_axis` add where each tile's first rows look most to its hover.
    """
    n_layers, (n_heads, tq, tk) = len(patterns), patterns[0].shape
    geo = grid_geometry(n_layers, n_heads, tq, tk, min_stride=min_stride, width_px=width_px)
    source = data_uri(encode_palette_png(mosaic(patterns, geo, stretch), palette()))
    tiles = [(row, head) for row in range(n_layers) for head in range(n_heads)]
    origins = [geo.origin(row, head) for row, head in tiles]
    centre_x = [c + (geo.tile[1] - 1) / 2 for _, c in origins]
    names = {"layer": [first_layer + row for row, _ in tiles], "head": [head for _, head in tiles]}
    if marked is None:
        marked = np.zeros((n_layers, n_heads), dtype=bool) if importance is None else np.asarray(importance) > 0
    marked = np.asarray(marked, dtype=bool)
    if marked.shape != (n_layers, n_heads) or (importance is not None and np.shape(importance) != (n_layers, n_heads)):
        raise ValueError(f"importance and marked must be ({n_layers}, {n_heads}), one value per tile shown")
    notes: list[list[str]] = [[] for _ in tiles]
    if importance is not None:
        for note, (row, head) in zip(notes, tiles, strict=True):
            note.append(html.escape(text.importance_hover.format(importance=float(importance[row, head]))))
    if query_axis is not None and key_axis is not None:
        peaks = peak_lines(patterns, query_axis, key_axis, text.peak_template, bytes_line=text.bytes)
        for note, (row, head) in zip(notes, tiles, strict=True):
            note.extend(peaks[row][head])
    outline_x, outline_y = _outlines(origins, geo)
    width, height = geo.size_px
    hidden = {"visible": False, "fixedrange": True}
    layout = base_layout(
        margin=MARGIN,
        width=width,
        height=height,
        template="none",
        hoverdistance=-1,
        dragmode=False,
        xaxis=hidden,
        yaxis={**hidden, "autorange": "reversed"},
    )
    labels = [
        text.tile_label.format(layer=ordinal(layer), head=ordinal(head)) + (MARK if marked[row, head] else "")
        for (row, head), layer in zip(tiles, names["layer"], strict=True)
    ]
    traces = [
        go.Image(source=source, hoverinfo="skip"),
        go.Scatter(
            x=outline_x, y=outline_y, mode="lines", line={"color": FRAME_COLOR, "width": 1}, hoverinfo="skip", showlegend=False
        ),
        go.Scatter(  # labels, in the band above each tile
            x=centre_x,
            y=[r - (geo.band + 1) / 2 for r, _ in origins],
            mode="text",
            hoverinfo="skip",
            text=labels,
            textfont={"size": 13},
            showlegend=False,
        ),
        go.Scatter(  # click targets: one per tile centre
            x=centre_x,
            y=[r + (geo.tile[0] - 1) / 2 for r, _ in origins],
            mode="markers",
            marker={"size": 1, "opacity": 0},
            showlegend=False,
            hoverlabel={"bgcolor": "white", "bordercolor": FRAME_COLOR, "font": {"color": "#1d0f5e"}},
            customdata=[list(pair) for pair in zip(*names.values(), strict=True)],  # plain lists: a click reports them as is
            hovertemplate=_tile_hovers(names, text.hover, notes),
        ),
    ]
    if marked.any():  # a thick outline around important tiles, drawn over the thin frame
        mark_x, mark_y = _outlines(
            [o for o, (row, head) in zip(origins, tiles, strict=True) if marked[row, head]], geo, pad=1.5 / geo.scale
        )
        traces.insert(
            2,
            go.Scatter(
                x=mark_x, y=mark_y, mode="lines", line={"color": MARK_COLOR, "width": 4}, hoverinfo="skip", showlegend=False
            ),
        )
    return go.Figure(traces, layout=layout)  # layout passed here, not via update_layout: several times cheaper to build
