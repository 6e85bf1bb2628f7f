"""The next-token distribution as a bar chart: the k most probable tokens, most probable on top.

The bars are the model's own probabilities softmax(z / T) (no renormalisation over the k shown), so
they sum to at most 1 (`rest_of_vocabulary` is what the other tokens share, for the page to state). The token the run
chose is drawn in a second colour, so greedy (always the top bar) and sampling (any bar) differ on sight.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from viz.style import MARK_COLOR, QUALITATIVE, TICK_FONT_SIZE, base_layout
from viz.tokens import escape_token, text_width_px


@dataclass(frozen=True)
class DistributionText:
    """The translated words of the distribution (pages pass them in; the defaults are the English ones). Plain
    text: the title is escaped here, tokens and all."""

    title: str = ""  # the step shown (the page fills in the position, what it reads and the temperature)
    x_title: str = "probability"
    chosen: str = "◀ written"  # beside the chosen token's bar
    hover: str = "%{y}: p = %{x:.4f}"
    bytes: str = "bytes: {hex}"  # a byte-level piece's raw bytes, a line under its name in the hover


def distribution_figure(
    tokens: Sequence[str], probs: Sequence[float], chosen: int | None, text: DistributionText, raw: Sequence[str] = ()
) -> go.Figure:
    """Horizontal bars of `probs` (most probable first, on top); bar `chosen` (an index into `tokens`) highlighted.

    Tokens are escaped and placed at integer positions, so equal-looking labels never merge. `raw`: each token's
    raw bytes as hex ("e4 bd"; "" or empty where the label is the text), a line under its name in the hover.
    """
    p = np.asarray(probs, dtype=np.float64)  # (k,)
    n = len(p)
    colors = [MARK_COLOR if i == chosen else QUALITATIVE[0] for i in range(n)]
    labels = [escape_token(tok) for tok in tokens]
    if len(raw) == n:
        lines = [f"<br>{html.escape(text.bytes.format(hex=h))}" if h else "" for h in raw]
        labels = [label + line for label, line in zip(labels, lines, strict=True)]
    fig = go.Figure(
        go.Bar(
            x=p,
            y=np.arange(n),
            orientation="h",
            marker={"color": colors},
            text=[f"{v:.3f}" for v in p],
            textposition="outside",
            customdata=labels,
            hovertemplate=text.hover.replace("%{y}", "%{customdata}") + "<extra></extra>",
            cliponaxis=False,
        )
    )
    fig.update_layout(
        **base_layout(
            title={"text": html.escape(text.title), "x": 0.0, "xanchor": "left", "font": {"size": 15}},
            height=max(260, 44 + 30 * n),
            margin={
                "l": 16 + int(max((text_width_px(tok, TICK_FONT_SIZE) for tok in tokens), default=0)),
                "r": 70,
                "t": 50,
                "b": 40,
            },
            showlegend=False,
        )
    )
    fig.update_yaxes(tickvals=list(range(n)), ticktext=labels, autorange="reversed", tickfont={"size": TICK_FONT_SIZE})
    fig.update_xaxes(range=[0, 1.08], title={"text": text.x_title}, tickformat=".1f")
    if chosen is not None and 0 <= chosen < n:
        fig.add_annotation(
            x=float(p[chosen]), y=chosen, text=text.chosen, showarrow=False, xanchor="left", xshift=44, font={"color": MARK_COLOR}
        )
    return fig


def rest_of_vocabulary(probs: Sequence[float]) -> float:
    """The probability the tokens not shown share: 1 − the shown bars (never below 0 from rounding)."""
    return max(0.0, 1.0 - float(np.sum(np.asarray(probs, dtype=np.float64))))
