"""Why LayerNorm and not BatchNorm, on the user's own sentences.

BatchNorm normalizes each feature j with a mean and variance pooled over the whole batch (every
sentence, every position): μ_j = mean over (b, t) of x[b, t, j]. With sentences of different
lengths those statistics move whenever the batch changes — another sentence, or more padding —
so the same sentence is normalized differently depending on who it shares a batch with (and at
test time there is no batch at all). LayerNorm's μ and σ belong to one token (mean over j of
x[b, t, j]), so nothing outside that token can change them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.figure_parts import TOP_LEGEND, TOP_LEGEND_MARGIN, style_token_panels
from viz.layernorm import token_stats
from viz.style import QUALITATIVE, base_layout
from viz.tokens import TokenAxis, hover_labels

EPS = 1e-5


@dataclass(frozen=True)
class PaddedBatch:
    """Activations of a padded batch: sentence b's real tokens are values[b, :lengths[b]]."""

    values: np.ndarray  # (B, T, d)
    lengths: np.ndarray  # (B,)
    tokens: tuple[tuple[str, ...], ...]  # real tokens of each sentence
    # each token's raw bytes as hex ("e4 bd"; "" where the label is the text), for a hover: a byte-level piece's
    # label ("你 ¹⁄₂") names a character it holds only part of; () for a run without them
    raw: tuple[tuple[str, ...], ...] = ()

    def first(self, n: int) -> PaddedBatch:
        """The batch of the first `n` sentences, padded only to their own longest length.

        Exact for a model that keeps sentences independent (pad keys get zero attention): a
        sentence's activations, padding positions included, do not depend on the other rows.
        """
        width = int(self.lengths[:n].max())
        return PaddedBatch(self.values[:n, :width], self.lengths[:n], self.tokens[:n], self.raw[:n])

    def valid(self) -> np.ndarray:
        """(B, T) True at real tokens, False at padding."""
        return np.arange(self.values.shape[1])[None, :] < self.lengths[:, None]


def batch_stats(batch: PaddedBatch, include_padding: bool) -> tuple[np.ndarray, np.ndarray]:
    """BatchNorm's per-feature mean and (biased) variance over every (sentence, position): (d,), (d,)."""
    x = batch.values.astype(np.float64)
    rows = x.reshape(-1, x.shape[-1]) if include_padding else x[batch.valid()]  # (N, d)
    return rows.mean(axis=0), rows.var(axis=0)


def batchnorm(batch: PaddedBatch, include_padding: bool) -> np.ndarray:
    """(B, T, d) values normalized BatchNorm-style with this batch's statistics (no gain/bias)."""
    mean, var = batch_stats(batch, include_padding)
    return (batch.values.astype(np.float64) - mean) / np.sqrt(var + EPS)


def layernorm(batch: PaddedBatch) -> np.ndarray:
    """(B, T, d) values normalized LayerNorm-style, each token by its own statistics (no gain/bias)."""
    mean, std = token_stats(batch.values)
    return (batch.values.astype(np.float64) - mean[..., None]) / np.sqrt(std[..., None] ** 2 + EPS)


@dataclass(frozen=True)
class Contrast:
    """Sentence 1 seen in a smaller batch (the first n−1 sentences) and in the full batch.

    All `*_change` values are max absolute differences between the two batches.
    """

    small: PaddedBatch
    large: PaddedBatch
    mean_small: np.ndarray  # (d,) batch mean, real tokens only
    mean_large: np.ndarray
    mean_small_pad: np.ndarray  # (d,) batch mean, padding included
    mean_large_pad: np.ndarray
    batch_mean_change: float  # of the per-feature batch mean (real tokens only)
    batch_mean_change_pad: float  # ... padding included
    bn_output_change: float  # of sentence 1's BatchNorm output (real tokens only)
    ln_stats_change: float  # of sentence 1's per-token LayerNorm mean and std
    ln_output_change: float  # of sentence 1's LayerNorm output

    @classmethod
    def compute(cls, batch: PaddedBatch) -> Contrast:
        if batch.values.shape[0] < 2:
            raise ValueError("the contrast needs at least two sentences")
        small, large = batch.first(batch.values.shape[0] - 1), batch
        n1 = int(batch.lengths[0])
        ms, _ = batch_stats(small, False)
        ml, _ = batch_stats(large, False)
        msp, _ = batch_stats(small, True)
        mlp, _ = batch_stats(large, True)
        bn_s, bn_l = batchnorm(small, False)[0, :n1], batchnorm(large, False)[0, :n1]
        ln_s, ln_l = layernorm(small)[0, :n1], layernorm(large)[0, :n1]
        st_s, st_l = np.stack(token_stats(small.values[0, :n1])), np.stack(token_stats(large.values[0, :n1]))
        return cls(
            small,
            large,
            ms,
            ml,
            msp,
            mlp,
            float(np.abs(ml - ms).max()),
            float(np.abs(mlp - msp).max()),
            float(np.abs(bn_l - bn_s).max()),
            float(np.abs(st_l - st_s).max()),
            float(np.abs(ln_l - ln_s).max()),
        )

    def most_shifted_feature(self) -> int:
        """The feature whose batch mean moves most when the last sentence joins (the one to show)."""
        return int(np.abs(self.mean_large - self.mean_small).argmax())


@dataclass(frozen=True)
class ContrastText:
    """The translated words of the BatchNorm contrast (pages pass them in; the defaults are the English ones)."""

    small: str = "batch of the first {n}"  # the two batches ({n}: how many sentences),
    large: str = "batch of all {n}"
    with_padding: str = "{batch}, padding counted"  # and either with its padding counted
    feature: str = "feature (dimension)"  # the batch means' axes
    batch_mean: str = "BatchNorm mean of the feature"
    sentence_bn: str = "Sentence 1, feature {feature} after BatchNorm"  # sentence 1's two panels
    sentence_ln: str = "Sentence 1, LayerNorm mean (solid) and std (dotted)"
    token: str = "token"
    bytes: str = "bytes: {hex}"  # a byte-level piece's raw bytes, a hover line under its token

    def batches(self, c: Contrast) -> tuple[str, str]:
        """The names of the small and the large batch of `c`."""
        return self.small.format(n=len(c.small.lengths)), self.large.format(n=len(c.large.lengths))


def batch_mean_figure(c: Contrast, n_features: int, text: ContrastText = ContrastText()) -> go.Figure:
    """Per-feature batch mean of the first `n_features` features in both batches, with and without padding."""
    small, large = text.batches(c)
    names = [small, large, text.with_padding.format(batch=small), text.with_padding.format(batch=large)]
    n = min(n_features, c.mean_small.shape[0])
    x = np.arange(n)
    fig = go.Figure()
    traces = [
        (c.mean_small, 0, "solid", "circle"),
        (c.mean_large, 1, "solid", "diamond"),
        (c.mean_small_pad, 0, "dot", "circle-open"),
        (c.mean_large_pad, 1, "dot", "diamond-open"),
    ]
    for name, (mean, color, dash, symbol) in zip(names, traces, strict=True):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=mean[:n].astype(np.float32),
                name=name,
                mode="lines+markers",
                line={"color": QUALITATIVE[color], "dash": dash, "width": 2},
                marker={"symbol": symbol, "size": 9},
                hovertemplate=f"{text.feature} %{{x}}<br>{name}: %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_layout(**base_layout(height=400, margin=TOP_LEGEND_MARGIN, legend=TOP_LEGEND))
    fig.update_xaxes(title_text=text.feature, dtick=max(1, n // 16), zeroline=False, range=[-0.5, n - 0.5])
    fig.update_yaxes(title_text=text.batch_mean, showgrid=True, gridcolor="#eee", zerolinecolor="#999")
    return fig


def sentence_one_figure(c: Contrast, feature: int, text: ContrastText = ContrastText()) -> go.Figure:
    """Sentence 1's tokens in both batches. Left: one feature after BatchNorm (it moves with the batch).
    Right: each token's LayerNorm mean and std (identical: the markers sit on top of each other).
    """
    names = text.batches(c)
    titles = (text.sentence_bn.format(feature=feature), text.sentence_ln)
    n1 = int(c.large.lengths[0])
    tokens = c.large.tokens[0]
    x = np.arange(n1)
    hover = hover_labels(TokenAxis(tokens, hex=c.large.raw[0] if c.large.raw else None), text.bytes)
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=0.1)
    for i, (batch, symbol) in enumerate(((c.small, "circle"), (c.large, "x"))):
        bn = batchnorm(batch, False)[0, :n1, feature]  # (n1,)
        mean, std = token_stats(batch.values[0, :n1])
        style = {"color": QUALITATIVE[i], "symbol": symbol, "size": 12 if i else 14}
        fig.add_trace(
            go.Scatter(
                x=x,
                y=bn.astype(np.float32),
                mode="markers",
                name=names[i],
                legendgroup=str(i),
                marker=style,
                customdata=hover,
                hovertemplate=f"%{{customdata}}<br>{names[i]}: %{{y:.3f}}<extra></extra>",
            ),
            row=1,
            col=1,
        )
        for values, dash in ((mean, "solid"), (std, "dot")):
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=values.astype(np.float32),
                    mode="markers+lines",
                    legendgroup=str(i),
                    showlegend=False,
                    marker=style,
                    line={"color": QUALITATIVE[i], "dash": dash, "width": 1},
                    customdata=hover,
                    hovertemplate=f"%{{customdata}}<br>{names[i]}: %{{y:.3f}}<extra></extra>",
                ),
                row=1,
                col=2,
            )
    return style_token_panels(fig, tokens, text.token, max_labels=30)
