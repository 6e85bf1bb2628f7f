"""Figures of the feed-forward page: the 4× expansion of one token, the ReLU pattern of every token,
each sublayer's contribution to the residual stream, and where the parameters are.

Pure plotly over `viz.ffn` view-models; labels arrive translated, tokens are escaped here.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from hook_names import ordinal
from viz.ffn import FeedForwardView, ResidualContributions
from viz.style import ATTENTION_SCALE, DIVERGING_SCALE, QUALITATIVE, TICK_FONT_SIZE, base_layout
from viz.tokens import escape_token, text_width_px


def expansion_figure(x: np.ndarray, hidden: np.ndarray, out: np.ndarray, titles: Sequence[str], unit: str) -> go.Figure:
    """Three strips, one token: x (d_model) → ReLU(x W1 + b1) (d_ff) → FFN(x) (d_model).

    The d_model strips span d_model / d_ff of the width, centred, so the widening is seen at its true ratio.
    """
    x, hidden, out = (np.asarray(a, dtype=np.float32) for a in (x, hidden, out))
    fig = make_subplots(rows=3, cols=1, subplot_titles=[html.escape(x) for x in titles], vertical_spacing=0.3)
    ratio = len(x) / max(len(hidden), 1)
    lo, hi = 0.5 - ratio / 2, 0.5 + ratio / 2
    for row, (values, scale, zmid) in enumerate(
        ((x, DIVERGING_SCALE, 0.0), (hidden, ATTENTION_SCALE, None), (out, DIVERGING_SCALE, 0.0)), start=1
    ):
        bound = float(np.abs(values).max()) or 1.0
        trace = go.Heatmap(
            z=values[None, :],
            x=np.arange(len(values)),
            colorscale=scale,
            showscale=False,
            zmin=-bound if zmid is not None else 0.0,
            zmax=bound,
            hovertemplate=f"{unit} %{{x}}: %{{z:.3f}}<extra></extra>",
        )
        fig.add_trace(trace, row=row, col=1)
        fig.update_yaxes(showticklabels=False, ticks="", showgrid=False, row=row, col=1)
        fig.update_xaxes(tickfont={"size": TICK_FONT_SIZE - 3}, showgrid=False, row=row, col=1)
    fig.update_layout(**base_layout(height=340, margin={"l": 10, "r": 10, "t": 40, "b": 20}))
    fig.update_layout(xaxis={"domain": [lo, hi]}, xaxis3={"domain": [lo, hi]})
    for annotation, (a, b) in zip(fig.layout.annotations, ((lo, hi), (0, 1), (lo, hi)), strict=True):
        annotation.x = (a + b) / 2
    return fig


def firing_figure(view: FeedForwardView, title: str, token_label: str, unit: str, share_label: str) -> go.Figure:
    """Tokens × hidden units after the ReLU (white = exactly 0, the unit is silent), each row's share of
    firing units printed at its right."""
    hidden = np.asarray(view.hidden, dtype=np.float32)  # (T, d_ff)
    t = hidden.shape[0]
    labels = [escape_token(tok) for tok in view.tokens]
    zmax = float(hidden.max()) or 1.0
    fig = go.Figure(
        go.Heatmap(
            z=hidden,
            x=np.arange(hidden.shape[1]),
            y=np.arange(t),
            colorscale=ATTENTION_SCALE,
            zmin=0.0,
            zmax=zmax,
            showscale=False,
            hovertemplate=f"{token_label} %{{y}} · {unit} %{{x}}: %{{z:.3f}}<extra></extra>",
        )
    )
    for row, share in enumerate(view.fraction_firing):
        fig.add_annotation(
            x=1.0,
            xref="paper",
            xanchor="left",
            y=row,
            text=f"{100 * share:.0f}%",
            showarrow=False,
            font={"size": TICK_FONT_SIZE - 2},
        )
    left = 16 + int(max((text_width_px(tok, TICK_FONT_SIZE) for tok in view.tokens), default=0))
    fig.update_layout(
        **base_layout(
            title={"text": html.escape(title)}, height=max(260, 110 + 24 * t), margin={"l": left, "r": 70, "t": 50, "b": 50}
        )
    )
    fig.update_yaxes(tickvals=list(range(t)), ticktext=labels, autorange="reversed", tickfont={"size": TICK_FONT_SIZE})
    fig.update_xaxes(title={"text": unit})
    fig.add_annotation(
        x=1.0,
        xref="paper",
        xanchor="left",
        y=-0.6,
        yanchor="bottom",
        text=f"<i>{html.escape(share_label)}</i>",
        showarrow=False,
        font={"size": TICK_FONT_SIZE - 2},
    )
    return fig


def contribution_sizes(contributions: ResidualContributions, token: int | None) -> np.ndarray:
    """(L, S) the size of what each sublayer adds: for one token, or the mean over tokens (token None)."""
    norms = contributions.norms  # (L, S, T)
    return norms.mean(axis=-1) if token is None else norms[..., token]


def contributions_figure(
    contributions: ResidualContributions,
    token: int | None,
    kind_names: Mapping[str, str],
    title: str,
    layer_label: str,
    size_label: str,
) -> go.Figure:
    """Grouped bars per layer: ‖attention output‖ next to ‖FFN output‖ (and cross-attention's)."""
    sizes = contribution_sizes(contributions, token)  # (L, S)
    layers = [ordinal(i) for i in range(sizes.shape[0])]  # as readers count them: the first layer is 1
    fig = go.Figure(
        [
            go.Bar(
                x=layers,
                y=sizes[:, s],
                name=kind_names.get(kind, kind),
                marker={"color": QUALITATIVE[s]},
                hovertemplate=f"{layer_label} %{{x}}: %{{y:.3f}}<extra>{kind_names.get(kind, kind)}</extra>",
            )
            for s, kind in enumerate(contributions.kinds)
        ]
    )
    fig.update_layout(
        **base_layout(
            title={"text": html.escape(title), "x": 0.0, "xanchor": "left"},
            barmode="group",
            height=360,
            legend={"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 1.0, "xanchor": "right"},
            margin={"l": 70, "r": 10, "t": 80, "b": 50},
        )
    )
    fig.update_xaxes(title={"text": layer_label}, tickvals=list(layers))
    fig.update_yaxes(title={"text": size_label}, rangemode="tozero")
    return fig


def parameter_figure(counts: Mapping[str, int], names: Mapping[str, str], title: str) -> go.Figure:
    """One horizontal stacked bar: each part's share of the parameters, in the order of `counts`."""
    total = max(sum(counts.values()), 1)
    fig = go.Figure(
        [
            go.Bar(
                x=[n / total],
                y=[""],
                orientation="h",
                name=names.get(part, part),
                text=f"{100 * n / total:.0f}%",
                marker={"color": QUALITATIVE[i % len(QUALITATIVE)], "line": {"color": "white", "width": 1}},
                hovertemplate=f"{names.get(part, part)}: {n:,} (%{{x:.1%}})<extra></extra>",
            )
            for i, (part, n) in enumerate(counts.items())
            if n
        ]
    )
    fig.update_layout(
        **base_layout(
            title={"text": html.escape(title)},
            barmode="stack",
            height=170,
            showlegend=True,
            legend={"orientation": "h", "y": -0.4},
            margin={"l": 10, "r": 10, "t": 40, "b": 10},
        )
    )
    fig.update_xaxes(range=[0, 1], tickformat=".0%")
    return fig
