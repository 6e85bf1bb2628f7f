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
from viz.tokens import axis, hover_labels

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
    input: str = "input of LayerNorm"  # the detail's two series
    output: str = "output of LayerNorm"
    token: str = "token"  # the detail's token axis
    gain: str = "gain g"  # the affine figure's panel titles and its axis
    bias: str = "bias b"
    feature: str = "feature (dimension)"
    stream_norm: str = "length of the residual vector"  # the residual stream's y axis, and its reference line:
    sqrt_d: str = "√d_model = {value} (a token with mean 0, std 1)"  # {value}: √d_model, one decimal


def stats_overview_figure(
    stats: StackStats,
    tokens: Sequence[str],
    site_labels: Sequence[str],
    text: LayerNormText = LayerNormText(),
) -> go.Figure:
    """2×2 heatmaps (norm site × token): input mean, input std / output mean, output std.

    Means share one diverging scale centred on 0, standard deviations one sequential scale from 0,
    so "the output rows are all ≈0 and ≈1 whatever the input" is visible at a glance.
    """
    fig = make_subplots(
        rows=2,
        cols=2,
        subplot_titles=(text.in_mean, text.in_std, text.out_mean, text.out_std),
        shared_yaxes=True,
        vertical_spacing=0.1,
        horizontal_spacing=0.04,
    )
    # Categorical axes named by unique strings ("3: the", site names): hover text then needs no
    # per-cell customdata arrays, which cost more than the numbers at 250 tokens × 19 norms.
    columns = hover_labels(tokens)
    token_axis = axis(tokens, "", max_labels=40)  # untitled: the panel titles say "per token", and a title hides rotated labels
    token_axis.update(type="category", tickvals=[columns[i] for i in token_axis["tickvals"]])
    peak_mean = float(max(np.abs(stats.in_mean).max(), np.abs(stats.out_mean).max())) or 1.0
    peak_std = float(max(stats.in_std.max(), stats.out_std.max())) or 1.0
    cells = [
        (stats.in_mean, 1, 1, "coloraxis", text.mean),
        (stats.in_std, 1, 2, "coloraxis2", text.std),
        (stats.out_mean, 2, 1, "coloraxis", text.mean),
        (stats.out_std, 2, 2, "coloraxis2", text.std),
    ]
    for z, row, col, color, label in cells:
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
        fig.update_xaxes(**token_axis, showticklabels=row == 2, row=row, col=col)
        fig.update_yaxes(type="category", autorange="reversed", row=row, col=col)
    fig.update_layout(
        **base_layout(
            height=max(480, 200 + 2 * 26 * len(site_labels)),
            margin={**MARGIN, "l": 190},  # room for site names
            coloraxis={
                "colorscale": DIVERGING_SCALE,
                "cmin": -peak_mean,
                "cmax": peak_mean,
                "colorbar": {"title": {"text": text.mean}, "x": 1.02, "len": 0.45, "y": 0.77, "thickness": 14},
            },
            coloraxis2={
                "colorscale": STD_SCALE,
                "cmin": 0,
                "cmax": peak_std,
                "colorbar": {"title": {"text": text.std}, "x": 1.02, "len": 0.45, "y": 0.23, "thickness": 14},
            },
        )
    )
    return fig


def site_detail_figure(
    stats: StackStats,
    site: int,
    tokens: Sequence[str],
    text: LayerNormText = LayerNormText(),
) -> go.Figure:
    """One norm, per token: mean (left) and std (right) of its input and its output."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=(text.mean, text.std), horizontal_spacing=0.08)
    x = np.arange(len(tokens))
    hover = hover_labels(tokens)
    series = [
        ("in", text.input, stats.in_mean[site], stats.in_std[site], QUALITATIVE[0], "circle"),
        ("out", text.output, stats.out_mean[site], stats.out_std[site], QUALITATIVE[1], "diamond"),
    ]
    for key, name, mean, std, color, symbol in series:
        for col, values in ((1, mean), (2, std)):
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=values.astype(np.float32),
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
