"""Figures for the LayerNorm page: statistics at every norm, one norm in detail, the residual stream.

All words arrive translated in one `LayerNormText` from the page; token labels are escaped by `viz.tokens`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.figure_parts import MARGIN, TOP_LEGEND, TOP_LEGEND_MARGIN, reference_line, style_token_panels
from viz.layernorm import StackStats
from viz.style import DIVERGING_SCALE, QUALITATIVE, base_layout
from viz.tokens import Labels, axis, hover_labels

STD_SCALE = "Viridis"  # sequential, colour-blind safe; 0 is dark so "no spread" stands out


@dataclass(frozen=True)
class LayerNormText:
    """The translated words of the LayerNorm figures (pages pass them in; the defaults are the English ones)."""

    in_mean: str = "input: mean per token"  # the overview's four panel titles
    in_std: str = "input: std per token"
    out_mean: str = "output: mean per token"
    out_std: str = "output: std per token"
    mean: str = "mean"  # the overview's colour bars and the detail's panel titles
    std: str = "standard deviation"
    rms: str = "root mean square"  # RMSNorm's detail: its right panel's title
    input: str = "input of LayerNorm"  # the detail's two series
    output: str = "output of LayerNorm"
    token: str = "token"  # the detail's token axis
    gain: str = "gain g"  # the affine figure's panel titles and its axis
    bias: str = "bias b"
    feature: str = "feature (dimension)"
    stream_norm: str = "length of the residual vector"  # the residual stream's y axis, and its reference line:
    sqrt_d: str = "√d_model = {value} (a token with mean 0, std 1)"  # {value}: √d_model, one decimal
    bytes: str = "bytes: {hex}"  # a byte-level piece's raw bytes, a hover line under its token (`TokenAxis.hover_labels`)


def _two_lines(title: str) -> str:
    """A panel title broken after its colon ("input:<br>mean per token"): a quarter-width panel is narrower than
    the title on one line."""
    for colon in ("：", ": "):
        if colon in title:
            head, tail = title.split(colon, 1)
            return f"{head}{colon.strip()}<br>{tail}"
    return title


def stats_overview_figure(
    stats: StackStats,
    tokens: Labels,
    site_labels: Sequence[str],
    text: LayerNormText = LayerNormText(),
    *,
    one_row: bool = False,
) -> go.Figure:
    """2×2 heatmaps (norm site × token): input mean, input std / output mean, output std.

    Means share one diverging scale centred on 0, standard deviations one sequential scale from 0,
    so "the output rows are all ≈0 and ≈1 whatever the input" is visible at a glance.

    `one_row`: the four panels side by side (input mean, output mean, input std, output std), each colour bar as
    tall as the row: a projector's first screen has room for one row of panels under the page's heading, and two
    rows squeezed into it lost every other site name and put the lower titles on the upper panels (issue 39 §7).
    """
    if one_row:
        order = (
            (stats.in_mean, text.in_mean),
            (stats.out_mean, text.out_mean),
            (stats.in_std, text.in_std),
            (stats.out_std, text.out_std),
        )
        places = [(1, 1), (1, 2), (1, 3), (1, 4)]
        bars = ({"x": 1.01, "len": 1.0, "y": 0.5}, {"x": 1.14, "len": 1.0, "y": 0.5})
        side = "right"  # a title along its bar: two bars side by side leave no room for titles across them
    else:
        order = (
            (stats.in_mean, text.in_mean),
            (stats.in_std, text.in_std),
            (stats.out_mean, text.out_mean),
            (stats.out_std, text.out_std),
        )
        places = [(1, 1), (1, 2), (2, 1), (2, 2)]
        bars = ({"x": 1.02, "len": 0.45, "y": 0.77}, {"x": 1.02, "len": 0.45, "y": 0.23})
        side = "top"
    fig = make_subplots(
        rows=1 if one_row else 2,
        cols=4 if one_row else 2,
        subplot_titles=[_two_lines(title) if one_row else title for _, title in order],
        shared_yaxes=True,
        vertical_spacing=0.1,
        horizontal_spacing=0.02 if one_row else 0.04,
    )
    # Categorical axes named by unique strings ("3: the", site names): hover text then needs no
    # per-cell customdata arrays, which cost more than the numbers at 250 tokens × 19 norms.
    columns = hover_labels(tokens, text.bytes)
    # untitled: the panel titles say "per token", and a title hides rotated labels; a quarter-width panel holds fewer
    token_axis = axis(tokens, "", max_labels=16 if one_row else 40)
    token_axis.update(type="category", tickvals=[columns[i] for i in token_axis["tickvals"]])
    peak_mean = float(max(np.abs(stats.in_mean).max(), np.abs(stats.out_mean).max())) or 1.0
    peak_std = float(max(stats.in_std.max(), stats.out_std.max())) or 1.0
    last_row = 1 if one_row else 2
    for (z, _), (row, col) in zip(order, places, strict=True):
        is_mean = z is stats.in_mean or z is stats.out_mean
        color, label = ("coloraxis", text.mean) if is_mean else ("coloraxis2", text.std)
        fig.add_trace(
            go.Heatmap(
                z=z.astype(np.float32),
                x=columns,
                y=list(site_labels),
                coloraxis=color,
                hovertemplate=f"%{{x}}<br>%{{y}}<br>{label} %{{z:.3f}}<extra></extra>",
            ),
            row=row,
            col=col,
        )
        fig.update_xaxes(**token_axis, showticklabels=row == last_row, row=row, col=col)
        fig.update_yaxes(type="category", autorange="reversed", row=row, col=col)
    rows_px = 26 * len(site_labels) * (1 if one_row else 2)
    fig.update_layout(
        **base_layout(
            height=max(300 if one_row else 480, 200 + rows_px),
            # room for site names (and two bars, and two-line titles)
            margin={**MARGIN, "l": 190, **({"r": 180, "t": 90} if one_row else {})},
            coloraxis={
                "colorscale": DIVERGING_SCALE,
                "cmin": -peak_mean,
                "cmax": peak_mean,
                "colorbar": {"title": {"text": text.mean, "side": side}, **bars[0], "thickness": 14},
            },
            coloraxis2={
                "colorscale": STD_SCALE,
                "cmin": 0,
                "cmax": peak_std,
                "colorbar": {"title": {"text": text.std, "side": side}, **bars[1], "thickness": 14},
            },
        )
    )
    return fig


def site_detail_figure(
    stats: StackStats,
    site: int,
    tokens: Labels,
    text: LayerNormText = LayerNormText(),
) -> go.Figure:
    """One norm, per token: mean (left) and std (right) of its input and its output."""
    return _mean_spread_figure(
        tokens,
        (stats.in_mean[site], stats.in_std[site]),
        (stats.out_mean[site], stats.out_std[site]),
        text.std,
        text,
    )


def rms_detail_figure(
    tokens: Labels,
    before: tuple[np.ndarray, np.ndarray],
    after: tuple[np.ndarray, np.ndarray],
    text: LayerNormText = LayerNormText(),
) -> go.Figure:
    """One RMSNorm, per token: mean (left) and root mean square (right) of its input and its output, its gain removed
    (`before`, `after`: ((T,) means, (T,) root mean squares)). The right panel's output line sits at 1 and the left's
    does not move to 0: RMSNorm divides by the root mean square and subtracts no mean."""
    return _mean_spread_figure(tokens, before, after, text.rms, text)


def _mean_spread_figure(
    tokens: Labels,
    before: tuple[np.ndarray, np.ndarray],
    after: tuple[np.ndarray, np.ndarray],
    spread: str,
    text: LayerNormText,
) -> go.Figure:
    """Two panels over the tokens: the mean (left) and `spread` (right) of a norm's input and output."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=(text.mean, spread), horizontal_spacing=0.08)
    x = np.arange(len(tokens))
    hover = hover_labels(tokens, text.bytes)
    series = [
        ("in", text.input, *before, QUALITATIVE[0], "circle"),
        ("out", text.output, *after, QUALITATIVE[1], "diamond"),
    ]
    for key, name, mean, width, color, symbol in series:
        for col, values in ((1, mean), (2, width)):
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=np.asarray(values, dtype=np.float32),
                    mode="lines+markers",
                    name=name,
                    legendgroup=key,
                    showlegend=col == 1,
                    line={"color": color, "width": 2},
                    marker={"symbol": symbol, "size": 9},
                    customdata=hover,
                    hovertemplate=f"%{{customdata}}<br>{name}: %{{y:.3f}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
    return style_token_panels(fig, tokens, text.token)


def residual_figure(
    series: Mapping[str, tuple[Sequence[str], np.ndarray]], *, d_model: int, text: LayerNormText = LayerNormText()
) -> go.Figure:
    """Norm of the residual stream along the network: one line per series (mean over tokens) with a
    min–max band over tokens; a dashed line at sqrt(d_model), the norm of a unit-variance token.

    Args:
        series: name → (point labels, (R, T) norms). Labels are categories, so a series with an
            extra point (a pre-norm stack's final LayerNorm) lines up with one without it.
    """
    fig = go.Figure()
    for n, (name, (labels, norms)) in enumerate(series.items()):
        color = QUALITATIVE[n % len(QUALITATIVE)]
        x = list(labels)
        lo, hi = norms.min(axis=1).astype(np.float32), norms.max(axis=1).astype(np.float32)
        fig.add_trace(
            go.Scatter(
                x=x + x[::-1],
                y=np.concatenate([hi, lo[::-1]]),
                fill="toself",
                fillcolor=color,
                opacity=0.18,
                line={"width": 0},
                hoverinfo="skip",
                legendgroup=name,
                showlegend=False,
            )
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=norms.mean(axis=1).astype(np.float32),
                mode="lines+markers",
                name=name,
                legendgroup=name,
                line={"color": color, "width": 3},
                marker={"size": 8},
                hovertemplate=f"%{{x}}<br>{name}: %{{y:.2f}}<extra></extra>",
            )
        )
    longest = max((list(labels) for labels, _ in series.values()), key=len, default=[])
    fig.add_trace(reference_line(longest, float(np.sqrt(d_model)), text.sqrt_d.format(value=f"{d_model**0.5:.1f}")))
    fig.update_layout(
        **base_layout(height=440, legend=TOP_LEGEND, margin={**TOP_LEGEND_MARGIN, "l": 110, "b": 150})
    )  # rotated labels reach left and down
    fig.update_xaxes(type="category", tickangle=-45)
    fig.update_yaxes(title_text=text.stream_norm, rangemode="tozero", showgrid=True, gridcolor="#eee")
    return fig


def gain_bias_figure(gain: np.ndarray, bias: np.ndarray, text: LayerNormText = LayerNormText()) -> go.Figure:
    """The learned per-feature gain g (starts at 1) and bias b (starts at 0) of one LayerNorm."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=(text.gain, text.bias), horizontal_spacing=0.08)
    dims = np.arange(gain.shape[0])
    for col, values, base, color in ((1, gain, 1.0, QUALITATIVE[0]), (2, bias, 0.0, QUALITATIVE[1])):
        fig.add_trace(
            go.Scatter(
                x=dims,
                y=values.astype(np.float32),
                mode="markers",
                marker={"color": color, "size": 7},
                showlegend=False,
                hovertemplate=f"{text.feature} %{{x}}: %{{y:.3f}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.add_hline(y=base, line_dash="dash", line_color="#555", row=1, col=col)
        fig.update_xaxes(title_text=text.feature, row=1, col=col)
        fig.update_yaxes(showgrid=True, gridcolor="#eee", row=1, col=col)
    fig.update_layout(**base_layout(height=320, margin=MARGIN))
    return fig
