"""The sinusoidal positional encoding as pictures (paper §3.5): the table, its waves, its similarity.

PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(...). Each sin/cos pair is a clock
hand turning at its own speed; the speeds form a geometric progression, so low dimensions tell
neighbouring positions apart and high dimensions tell far-apart regions apart — like the digits of
a number. Builders take the table as a NumPy array (the page computes it with
`transformer.positional.sinusoidal_encoding`), so every picture shows the model's own formula.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.figure_parts import MARGIN, TOP_LEGEND, TOP_LEGEND_MARGIN, reference_line
from viz.style import DIVERGING_SCALE, QUALITATIVE, base_layout

MAX_HEATMAP_CELLS = 80_000  # float32 cells cost ~7 bytes in the figure JSON: about 560 kB at most


def wavelengths(d_model: int) -> np.ndarray:
    """(ceil(d_model/2),) wavelength of each sin/cos pair: 2π·10000^(2i/d_model), from 2π towards 10000·2π."""
    i = np.arange(0, d_model, 2, dtype=np.float64)  # 2i
    return 2 * np.pi * 10000.0 ** (i / d_model)


def position_stride(n_positions: int, n_dims: int, max_cells: int = MAX_HEATMAP_CELLS) -> int:
    """Show every k-th position so that a (positions × dims) heatmap stays within `max_cells`.

    Only positions are thinned: thinning dimensions would drop every cosine (odd) column.
    """
    return max(1, -(-n_positions * n_dims // max_cells))


def square_stride(n: int, max_cells: int = MAX_HEATMAP_CELLS) -> int:
    """Every k-th row and column of an (n, n) heatmap, so that it stays within `max_cells`."""
    return max(1, math.ceil(n / math.sqrt(max_cells)))


@dataclass(frozen=True)
class PositionalText:
    """The translated words of the positional-encoding figures (the sinusoid table, its waves and similarity, the
    relative-position matrices, the learned table and the user's tokens); pages pass them in, the defaults are
    the English ones."""

    position: str = "position"  # axis titles
    dimension: str = "dimension"
    token: str = "token"
    value: str = "value"  # an encoding's value, in hovers and colour bars
    wavelength: str = "wavelength (positions, log scale)"  # the wavelengths figure: its y axis,
    span: str = "{n} positions shown"  # the line at the positions shown ({n}),
    chosen: str = "chosen dimensions"  # and the dimensions drawn as waves
    dot: str = "PE(p)·PE(q)"  # the similarity figure
    offset: str = "distance k (PE(0)·PE(k))"
    closed: str = "M_k from the formula (k = {k})"  # the relative-position matrices ({k}: the offset)
    fitted: str = "M_k fitted from the table (k = {k})"
    out_dim: str = "output dimension"
    in_dim: str = "input dimension"
    learned_table: str = "learned table"  # the learned table's four panels
    sinusoid_table: str = "sinusoids (same size)"
    learned_sim: str = "learned: similarity between positions"
    sinusoid_sim: str = "sinusoids: similarity between positions"
    cosine: str = "cosine"
    scaled: str = "√d_model · embedding"  # the user's tokens: the three panels
    pe: str = "+ PE"
    sum: str = "= input of layer 1"
    norm: str = "length (L2 norm)"  # and their lengths: the axis and the four bars
    norm_raw: str = "raw lookup E[token]"
    norm_scaled: str = "√d_model · E[token]"
    norm_pe: str = "PE"
    norm_total: str = "sum"
    pe_reference: str = "√(d_model/2) = {value}"  # the line at the length of a PE row ({value}: two decimals)
    bytes: str = "bytes: {hex}"  # a byte-level piece's raw bytes, a hover line under its token (`TokenAxis.hover_labels`)


def pe_heatmap(pe: np.ndarray, text: PositionalText = PositionalText(), stride: int = 1) -> go.Figure:
    """The PE table, position down the side, dimension across: fast stripes left, slow ones right.

    Args:
        pe: (max_pos, d_model) table.
        stride: show every `stride`-th position (see `position_stride`).
    """
    x_title, y_title, value = text.dimension, text.position, text.value
    shown = np.ascontiguousarray(pe[::stride], dtype=np.float32)  # (P / stride, d_model)
    positions = np.arange(0, pe.shape[0], stride)
    fig = go.Figure(
        go.Heatmap(
            z=shown,
            x=np.arange(pe.shape[1]),
            y=positions,
            zmin=-1,
            zmax=1,
            colorscale=DIVERGING_SCALE,
            colorbar={"title": {"text": value}, "thickness": 14},
            hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>{value} %{{z:.3f}}<extra></extra>",
        )
    )
    fig.update_layout(**base_layout(height=460, margin=MARGIN))
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title, autorange="reversed")
    return fig


def pe_curves(pe: np.ndarray, dims: Sequence[int], text: PositionalText = PositionalText()) -> go.Figure:
    """PE(pos, dim) against position for the chosen dimensions: even ones are sines, odd ones cosines."""
    x_title, y_title, dim_label = text.position, text.value, text.dimension
    positions = np.arange(pe.shape[0])
    fig = go.Figure()
    for n, dim in enumerate(dims):
        wave = "sin" if dim % 2 == 0 else "cos"
        fig.add_trace(
            go.Scatter(
                x=positions,
                y=pe[:, dim].astype(np.float32),
                mode="lines+markers" if pe.shape[0] <= 60 else "lines",
                name=f"{dim_label} {dim} ({wave})",
                line={"color": QUALITATIVE[n % len(QUALITATIVE)], "width": 2.5},
                marker={"size": 5},
            )
        )
    fig.update_layout(**base_layout(height=380, margin=TOP_LEGEND_MARGIN, legend=TOP_LEGEND))
    fig.update_xaxes(title_text=x_title, showgrid=True, gridcolor="#eee")
    fig.update_yaxes(title_text=y_title, range=[-1.1, 1.1], showgrid=True, gridcolor="#eee", zerolinecolor="#bbb")
    return fig


def wavelength_figure(d_model: int, max_pos: int, dims: Sequence[int], text: PositionalText = PositionalText()) -> go.Figure:
    """Wavelength of each dimension on a log axis (a straight line: a geometric progression).

    A dashed line marks the number of positions shown: dimensions far above it barely change over
    the sequence, so they carry coarse position only.
    """
    x_title, y_title, span_label, chosen_label = text.dimension, text.wavelength, text.span.format(n=max_pos), text.chosen
    lam = wavelengths(d_model)  # (d/2,)
    dim_index = np.arange(d_model)
    per_dim = lam[dim_index // 2]  # (d_model,): a sin/cos pair shares its wavelength
    fig = go.Figure(
        go.Scatter(
            x=dim_index,
            y=per_dim,
            mode="markers",
            marker={"size": 6, "color": QUALITATIVE[0]},
            name=y_title,
            hovertemplate=f"{x_title} %{{x}}<br>{y_title} %{{y:.4g}}<extra></extra>",
        )
    )
    chosen = [d for d in dims if 0 <= d < d_model]
    if chosen:
        fig.add_trace(
            go.Scatter(
                x=chosen,
                y=per_dim[chosen],
                mode="markers",
                name=chosen_label,
                marker={"size": 13, "color": QUALITATIVE[1], "symbol": "diamond", "line": {"width": 1, "color": "black"}},
            )
        )
    fig.add_trace(reference_line([0, d_model - 1], max_pos, span_label))
    fig.update_layout(**base_layout(height=380, margin=TOP_LEGEND_MARGIN, legend=TOP_LEGEND))
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title, type="log", showgrid=True, gridcolor="#eee")
    return fig


def similarity(pe: np.ndarray) -> np.ndarray:
    """(P, P) dot products PE(p)·PE(q) = Σ_i cos(ω_i (p − q)): they depend only on the distance p − q."""
    pe64 = pe.astype(np.float64)
    return pe64 @ pe64.T


def similarity_figure(sim: np.ndarray, text: PositionalText = PositionalText(), stride: int = 1) -> go.Figure:
    """Left: the (P, P) similarity heatmap (a bright diagonal that fades); right: PE(0)·PE(k) against k."""
    x_title = y_title = text.position
    value, offset_title = text.dot, text.offset
    fig = make_subplots(rows=1, cols=2, column_widths=[0.55, 0.45], horizontal_spacing=0.2)
    shown = np.ascontiguousarray(sim[::stride, ::stride], dtype=np.float32)
    ticks = np.arange(0, sim.shape[0], stride)
    peak = float(np.abs(sim).max()) or 1.0
    fig.add_trace(
        go.Heatmap(
            z=shown,
            x=ticks,
            y=ticks,
            colorscale=DIVERGING_SCALE,
            zmin=-peak,
            zmax=peak,
            colorbar={"thickness": 12, "x": 0.455, "xanchor": "left"},  # titled by the right panel's axis
            hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>{value} %{{z:.2f}}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=np.arange(sim.shape[0]),
            y=sim[0].astype(np.float32),
            mode="lines",
            line={"width": 2.5, "color": QUALITATIVE[0]},
            hovertemplate=f"{offset_title} %{{x}}<br>{value} %{{y:.2f}}<extra></extra>",
            showlegend=False,
        ),
        row=1,
        col=2,
    )
    fig.update_layout(**base_layout(height=420, margin=MARGIN))
    fig.update_xaxes(title_text=x_title, row=1, col=1)
    fig.update_yaxes(title_text=y_title, autorange="reversed", row=1, col=1)
    fig.update_xaxes(title_text=offset_title, showgrid=True, gridcolor="#eee", row=1, col=2)
    fig.update_yaxes(title_text=value, showgrid=True, gridcolor="#eee", row=1, col=2)
    return fig
