"""Figures of the feed-forward page: the 4× expansion of one token, the ReLU pattern of every token,
each sublayer's contribution to the residual stream, and where the parameters are.

Pure plotly over `viz.ffn` view-models; the words arrive translated in one `FeedForwardText`, tokens are
escaped here.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from hook_names import ordinal
from viz.ffn import FeedForwardView, ResidualContributions
from viz.style import ATTENTION_SCALE, DIVERGING_SCALE, QUALITATIVE, TICK_FONT_SIZE, base_layout
from viz.tokens import TokenAxis, escape_token, text_width_px, visible_token


@dataclass(frozen=True)
class FeedForwardText:
    """The translated words of the feed-forward figures (pages pass them in; the defaults are the English ones)."""

    strip_x: str = "x: what the FFN reads ({n} numbers)"  # the expansion's three strips ({n}: their width)
    strip_hidden: str = "ReLU(x W₁ + b₁): the hidden units ({n}); white = 0, the unit is silent"
    strip_out: str = "FFN(x): what it adds to the residual stream ({n} numbers)"
    unit: str = "unit"  # a hidden unit, on the expansion's and the firing figure's axes
    firing_title: str = "{stack} layer {layer}: hidden units after the ReLU"  # {layer} counts from 1
    stack_encoder: str = "Encoder"
    stack_decoder: str = "Decoder"
    token: str = "Token"
    share_firing: str = "firing"  # over the column of each token's share of firing units
    residual_all: str = "Size of each sublayer's output, mean over the tokens"  # the contributions' title,
    residual_one: str = "Size of each sublayer's output for “{token}”"  # or for one token
    layer: str = "Layer"
    size: str = "‖output‖ (L2 norm)"
    self_attn: str = "self-attention"  # the sublayers' bars
    cross_attn: str = "cross-attention"
    feed_forward: str = "feed-forward"  # also a part of the parameters:
    embeddings: str = "embeddings"
    attention: str = "attention"
    layernorm: str = "LayerNorm"
    generator: str = "output layer"
    parameters: str = "Where this model's {total} parameters are"
    bytes: str = "bytes: {hex}"  # a byte-level piece's raw bytes, a hover line under its token (`TokenAxis.hover_labels`)

    def stack(self, stack: str) -> str:
        """The name of a stack ("encoder" or "decoder")."""
        return self.stack_encoder if stack == "encoder" else self.stack_decoder

    def name(self, part: str) -> str:
        """A sublayer kind's or a parameter group's name (an unknown one keeps its key)."""
        names = {
            "self_attn": self.self_attn,
            "cross_attn": self.cross_attn,
            "feed_forward": self.feed_forward,
            "embeddings": self.embeddings,
            "attention": self.attention,
            "layernorm": self.layernorm,
            "generator": self.generator,
        }
        return names.get(part, part)


def expansion_figure(x: np.ndarray, hidden: np.ndarray, out: np.ndarray, text: FeedForwardText = FeedForwardText()) -> go.Figure:
    """Three strips, one token: x (d_model) → ReLU(x W1 + b1) (d_ff) → FFN(x) (d_model).

    The d_model strips span d_model / d_ff of the width, centred, so the widening is seen at its true ratio.
    """
    x, hidden, out = (np.asarray(a, dtype=np.float32) for a in (x, hidden, out))
    titles = (text.strip_x.format(n=len(x)), text.strip_hidden.format(n=len(hidden)), text.strip_out.format(n=len(out)))
    unit = text.unit
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


def firing_figure(view: FeedForwardView, text: FeedForwardText = FeedForwardText(), raw: Sequence[str] = ()) -> go.Figure:
    """Tokens × hidden units after the ReLU (white = exactly 0, the unit is silent), each row's share of
    firing units printed at its right. Rows are categories named "3: 你 ¹⁄₃" (unique), so the hover names the
    token, with a byte-level piece's raw bytes (`raw`, hex per token) under it, without per-cell text."""
    title = text.firing_title.format(stack=text.stack(view.stack), layer=ordinal(view.layer))
    token_label, unit, share_label = text.token, text.unit, text.share_firing
    hidden = np.asarray(view.hidden, dtype=np.float32)  # (T, d_ff)
    t = hidden.shape[0]
    labels = [escape_token(tok) for tok in view.tokens]
    names = TokenAxis(view.tokens, hex=tuple(raw)).hover_labels(text.bytes)  # (T,) unique row categories
    zmax = float(hidden.max()) or 1.0
    fig = go.Figure(
        go.Heatmap(
            z=hidden,
            x=np.arange(hidden.shape[1]),
            y=names,
            colorscale=ATTENTION_SCALE,
            zmin=0.0,
            zmax=zmax,
            showscale=False,
            hovertemplate=f"{token_label} %{{y}}<br>{unit} %{{x}}: %{{z:.3f}}<extra></extra>",
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
    fig.update_yaxes(type="category", tickvals=names, ticktext=labels, autorange="reversed", tickfont={"size": TICK_FONT_SIZE})
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
    contributions: ResidualContributions, token: int | None, text: FeedForwardText = FeedForwardText()
) -> go.Figure:
    """Grouped bars per layer: ‖attention output‖ next to ‖FFN output‖ (and cross-attention's), for one token
    or (token None) the mean over the tokens."""
    title = text.residual_all if token is None else text.residual_one.format(token=visible_token(contributions.tokens[token]))
    layer_label, size_label = text.layer, text.size
    sizes = contribution_sizes(contributions, token)  # (L, S)
    layers = [ordinal(i) for i in range(sizes.shape[0])]  # as readers count them: the first layer is 1
    fig = go.Figure(
        [
            go.Bar(
                x=layers,
                y=sizes[:, s],
                name=text.name(kind),
                marker={"color": QUALITATIVE[s]},
                hovertemplate=f"{layer_label} %{{x}}: %{{y:.3f}}<extra>{text.name(kind)}</extra>",
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


def parameter_figure(counts: Mapping[str, int], text: FeedForwardText = FeedForwardText()) -> go.Figure:
    """One horizontal stacked bar: each part's share of the parameters, in the order of `counts`."""
    title = text.parameters.format(total=f"{sum(counts.values()):,}")
    total = max(sum(counts.values()), 1)
    fig = go.Figure(
        [
            go.Bar(
                x=[n / total],
                y=[""],
                orientation="h",
                name=text.name(part),
                text=f"{100 * n / total:.0f}%",
                marker={"color": QUALITATIVE[i % len(QUALITATIVE)], "line": {"color": "white", "width": 1}},
                hovertemplate=f"{text.name(part)}: {n:,} (%{{x:.1%}})<extra></extra>",
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
