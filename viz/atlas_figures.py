"""The corpus pages' figures: a head's pattern drawn small, a small multiple of one head over many sentences, and the
map of queries and keys (a `Scattergl`: WebGL keeps a few thousand points responsive where SVG markers do not).

No torch and no `transformer`: arrays and words come from the caller (`runs.atlas_page`, `runs.qk_map`, the page).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.style import ATTENTION_SCALE, QUALITATIVE, base_layout
from viz.tokens import READS_WRITES, Labels, as_axis, escape_token, visible_token

QUERY_COLOR, KEY_COLOR, USER_COLOR = QUALITATIVE[0], QUALITATIVE[1], QUALITATIVE[5]  # Okabe–Ito blue, orange, vermillion
THUMB_PX = 220  # a small pattern's side
HOVER = "%{{customdata[0]}} → %{{customdata[1]}}%{{customdata[2]}}<br>{weight} %{{z:.2f}}<extra></extra>"


def _pairs(query_tokens: Labels, key_tokens: Labels, shape: tuple[int, ...], bytes_line: str) -> list[list[list[str]]]:
    """(Tq, Tk, 3) hover labels [query token, key token, raw bytes line], escaped (a token such as <bos> is text, not
    markup); the third is "<br>bytes: e4 → bd" where either is a byte-level piece (`TokenAxis.hex`), else ""."""
    queries, keys = as_axis(query_tokens), as_axis(key_tokens)
    qs = [escape_token(q) for q in queries.tokens[: shape[0]]]
    ks = [escape_token(k) for k in keys.tokens[: shape[1]]]
    q_hex = list(queries.hex or ())[: shape[0]] or [""] * len(qs)
    k_hex = list(keys.hex or ())[: shape[1]] or [""] * len(ks)

    def line(q: str, k: str) -> str:
        if not (q or k):
            return ""
        return "<br>" + html.escape(bytes_line.format(hex=f"{q or '–'}{READS_WRITES}{k or '–'}"))

    return [[[q, k, line(qh, kh)] for k, kh in zip(ks, k_hex, strict=True)] for q, qh in zip(qs, q_hex, strict=True)]


@dataclass(frozen=True)
class MultipleText:
    """A small pattern's words (`thumbnail`, `small_multiple`): the hover's name for an attention weight."""

    weight: str
    bytes: str = "bytes: {hex}"  # the raw bytes of byte-level pieces, a hover line (query → key)


def thumbnail(pattern: np.ndarray, query_tokens: Labels, key_tokens: Labels, words: MultipleText) -> go.Figure:
    """One head's weights (Tq, Tk) on one sentence, drawn small (hover names the query and key tokens)."""
    weights = np.asarray(pattern, dtype=float)
    fig = go.Figure(
        go.Heatmap(
            z=weights,
            x=list(range(weights.shape[1])),
            y=list(range(weights.shape[0])),
            customdata=_pairs(query_tokens, key_tokens, weights.shape, words.bytes),
            hovertemplate=HOVER.format(weight=html.escape(words.weight)),
            colorscale=ATTENTION_SCALE,
            zmin=0,
            zmax=1,
            showscale=False,
        )
    )
    fig.update_layout(
        **base_layout(height=THUMB_PX, margin=dict(l=4, r=4, t=4, b=4)),
    )
    fig.update_xaxes(showticklabels=False, ticks="", showgrid=False, zeroline=False)
    fig.update_yaxes(showticklabels=False, ticks="", showgrid=False, zeroline=False, autorange="reversed", scaleanchor="x")
    return fig


def small_multiple(
    patterns: Sequence[np.ndarray],
    query_tokens: Sequence[Labels],
    key_tokens: Sequence[Labels],
    titles: Sequence[str],
    words: MultipleText,
) -> go.Figure:
    """One head over many sentences: a grid of its patterns, one per sentence (up to 4 a row); `titles` are the
    sentences themselves (escaped here), `words` the figure's own."""
    n = len(patterns)
    if n == 0:
        raise ValueError("a small multiple needs at least one pattern")
    cols = min(4, n)
    rows = -(-n // cols)
    fig = make_subplots(
        rows=rows, cols=cols, subplot_titles=[html.escape(t[:24]) for t in titles], horizontal_spacing=0.03, vertical_spacing=0.08
    )
    for i, (pattern, qs, ks) in enumerate(zip(patterns, query_tokens, key_tokens, strict=True)):
        weights = np.asarray(pattern, dtype=float)
        fig.add_trace(
            go.Heatmap(
                z=weights,
                customdata=_pairs(qs, ks, weights.shape, words.bytes),
                hovertemplate=HOVER.format(weight=html.escape(words.weight)),
                colorscale=ATTENTION_SCALE,
                zmin=0,
                zmax=1,
                showscale=False,
            ),
            row=i // cols + 1,
            col=i % cols + 1,
        )
    fig.update_layout(**base_layout(height=200 * rows + 40, margin=dict(l=4, r=4, t=40, b=4)))
    fig.update_annotations(font_size=12)
    fig.update_xaxes(showticklabels=False, ticks="", showgrid=False, zeroline=False)
    fig.update_yaxes(showticklabels=False, ticks="", showgrid=False, zeroline=False, autorange="reversed")
    return fig


@dataclass(frozen=True)
class MapText:
    """The map's words in the reader's language."""

    queries: str
    keys: str
    user: str
    x: str  # e.g. "PCA 1 (41 % of the variance)"
    y: str
    sentence: str  # hover label of the sentence
    bytes: str = "bytes: {hex}"  # a byte-level piece's raw bytes, a hover line under its token


def qk_figure(
    xy: np.ndarray,
    is_query: np.ndarray,
    tokens: Sequence[str],
    sentence: np.ndarray,
    user: np.ndarray,
    texts: Sequence[str],
    words: MapText,
    *,
    height: int = 560,
    raw: Sequence[str] = (),
) -> go.Figure:
    """Queries and keys of one head in 2-D, in two colours; the user's sentence's points ringed and labelled by
    token. Each point's customdata is [sentence index, token, sentence, raw bytes line]: a click selects its
    sentence. `raw`: each point's token's raw bytes (hex, "" where its label is the text), a hover line."""
    xy = np.asarray(xy, dtype=float)
    is_query, user, sentence = np.asarray(is_query, bool), np.asarray(user, bool), np.asarray(sentence, int)
    fig = go.Figure()
    short = [html.escape(t if len(t) <= 60 else t[:59] + "…") for t in texts]
    plain = [visible_token(t) for t in tokens]  # WebGL text labels are drawn as plain text: never escaped
    tokens = [escape_token(t) for t in tokens]  # hover text is plotly's markup: escaped
    raw = raw if len(raw) == len(tokens) else [""] * len(tokens)
    lines = [f"<br>{html.escape(words.bytes.format(hex=h))}" if h else "" for h in raw]  # under the token, in the hover
    for chosen, name, color, symbol in (
        (is_query, words.queries, QUERY_COLOR, "circle"),
        (~is_query, words.keys, KEY_COLOR, "diamond"),
    ):
        idx = np.flatnonzero(chosen)
        fig.add_trace(
            go.Scattergl(
                x=xy[idx, 0],
                y=xy[idx, 1],
                mode="markers",
                name=name,
                marker=dict(color=color, size=7, symbol=symbol, opacity=0.75),
                customdata=[[int(sentence[i]), tokens[i], short[sentence[i]], lines[i]] for i in idx],
                hovertemplate="<b>%{customdata[1]}</b>%{customdata[3]}<br>"
                + words.sentence
                + ": %{customdata[2]}<extra>"
                + name
                + "</extra>",
            )
        )
    mine = np.flatnonzero(user)
    if mine.size:
        fig.add_trace(
            go.Scattergl(
                x=xy[mine, 0],
                y=xy[mine, 1],
                mode="markers+text",
                name=words.user,
                text=[("Q " if is_query[i] else "K ") + plain[i] for i in mine],
                textposition="top center",
                textfont=dict(color=USER_COLOR, size=13),
                marker=dict(color="rgba(0,0,0,0)", size=13, line=dict(color=USER_COLOR, width=2)),
                customdata=[[int(sentence[i]), tokens[i], short[sentence[i]], lines[i]] for i in mine],
                hovertemplate="<b>%{customdata[1]}</b>%{customdata[3]}<br>"
                + words.sentence
                + ": %{customdata[2]}<extra>"
                + words.user
                + "</extra>",
            )
        )
    fig.update_layout(
        **base_layout(height=height, margin=dict(l=50, r=10, t=30, b=50)),
        legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0),
        xaxis_title=words.x,
        yaxis_title=words.y,
        dragmode="pan",
    )
    return fig
