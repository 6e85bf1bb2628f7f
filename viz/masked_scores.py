"""One head's scores before masking, after masking, and after softmax, side by side.

The model replaces a blocked score by the most negative float32 (about -3.4e38) before softmax, so
exp() of it is exactly 0. Drawn as a number that value would squash every other score into one
colour; here blocked cells are left out of the colour scale and drawn grey with "−∞", which is
what the value means. After softmax they read exactly "0". One head is small, so exact float32
values are sent (hover shows them); cell text appears when cells are wide enough to read: each
panel uses the most decimals whose widest number fits its cells (scores 1 or 0, weights ".25" or
".3"), and no text at all when even that would overlap its neighbours (at 1280 px, three panels
of a 12-token sentence leave ~15 px a cell).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from hook_names import act_name
from viz.mask_figures import MaskText, fits_cell, hovertemplate, matrix_layout
from viz.style import ATTENTION_SCALE, DIVERGING_SCALE, TICK_FONT_SIZE
from viz.tokens import Labels, hover_labels

SCORE_HOOKS = ("hook_scores", "hook_mask", "hook_masked_scores", "hook_pattern")
MINUS_INF = "−∞"
MASKED_GREY = "#c4c4c4"
PANEL_GAP = 60  # px between panels: room for a colour bar
CELL_FONT = TICK_FONT_SIZE - 3  # px: numbers inside cells
CELL_PADDING = 3  # px left free beside the widest number of a cell (estimates are generous already)
SCORE_DIGITS, WEIGHT_DIGITS = (1, 0), (2, 1)  # decimals to try, most first


def score_hook_names(kind: str, layer: int) -> tuple[str, ...]:
    """The four hook names this view needs from one attention module (ask `get_trace` for no more)."""
    return tuple(act_name(kind, layer, hook) for hook in SCORE_HOOKS)


@dataclass(frozen=True)
class ScoreSteps:
    """One head of one module (batch item 0), each (Tq, Tk)."""

    scores: np.ndarray  # Q Kᵀ / sqrt(d_k)
    allowed: np.ndarray  # bool: the mask the module used
    masked: np.ndarray  # masked scores for display: NaN where blocked (the model holds -3.4e38 there)
    pattern: np.ndarray  # softmax: rows sum to 1, blocked cells exactly 0

    @property
    def n_blocked(self) -> int:
        return int((~self.allowed).sum())


def masked_for_display(masked_scores: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Masked scores with blocked cells as NaN, so they stay out of the colour scale (float32)."""
    return np.where(allowed, masked_scores, np.nan).astype(np.float32)


def score_steps(arrays: Mapping[str, np.ndarray], kind: str, layer: int, head: int) -> ScoreSteps:
    """Read one head's three steps and its mask from captured arrays (`TraceData.arrays`)."""
    allowed = arrays[act_name(kind, layer, "mask")][0, 0].astype(bool)  # (Tq, Tk)
    return ScoreSteps(
        scores=arrays[act_name(kind, layer, "scores")][0, head],
        allowed=allowed,
        masked=masked_for_display(arrays[act_name(kind, layer, "masked_scores")][0, head], allowed),
        pattern=arrays[act_name(kind, layer, "pattern")][0, head],
    )


def score_range(scores: np.ndarray) -> tuple[float, float]:
    """A symmetric colour range around 0 covering every score (before and after masking)."""
    peak = float(np.abs(scores).max(initial=0.0)) or 1.0
    return -peak, peak


def number_text(values: np.ndarray, digits: int, weights: bool | None = None) -> np.ndarray:
    """Cell text with `digits` decimals (weights drop the leading zero to fit: ".25"); exact zeros read
    "0", exact ones "1", NaN "". `weights` defaults to `digits > 1` (the softmax panel's two decimals).

    An exact "0" is the point of the softmax panel: a masked weight is not small, it is zero.
    """
    weights = digits > 1 if weights is None else weights
    text = np.char.mod(f"%.{digits}f", np.nan_to_num(values)).astype(object)  # (Tq, Tk)
    zero = f"0.{'0' * digits}" if digits else "0"
    text[text == f"-{zero}"] = zero  # a tiny negative score is not "-0.0"
    if weights and digits:  # weights: ".25" is as clear as "0.25" and fits a narrow cell
        text = np.array([s.replace("0.", ".", 1) for s in text.ravel()], dtype=object).reshape(values.shape)
    text[values == 0] = "0"
    text[values == 1] = "1"
    text[np.isnan(values)] = ""
    return text


def fitting_text(values: np.ndarray, digits: Sequence[int], cell: float, *, weights: bool) -> np.ndarray | None:
    """Cell text with the most decimals (of `digits`, most first) whose widest number fits a `cell` px
    wide cell. Past that, weights keep only their exact "0" and "1" (the softmax panel's point: a
    blocked weight is exactly 0), other panels no text (hover still has every number); None: no text."""
    for d in digits:
        text = number_text(values, d, weights)
        if _fits(text, cell):
            return text
    if weights and _fits(np.array(["0"]), cell):
        text = number_text(values, digits[-1], weights)
        text[(values != 0) & (values != 1)] = ""
        return text
    return None


def _fits(text: np.ndarray, cell: float, size: int = CELL_FONT) -> bool:
    return fits_cell(text.ravel(), size, cell, CELL_PADDING)


def panel_traces(
    values: np.ndarray,
    *,
    x: Sequence[str],
    y: Sequence[str],
    zrange: tuple[float, float],
    colorscale: object,
    hover: str,
    digits: Sequence[int],
    cell: float,
    weights: bool = False,
    blocked: np.ndarray | None = None,
    blocked_hover: str = "",
    xaxis: str = "x",
    colorbar: dict | None = None,
) -> list[go.Heatmap]:
    """A panel's heatmap (cell text if it fits `cell`), plus a grey "−∞" overlay on `blocked` cells."""
    numbers = fitting_text(values, digits, cell, weights=weights)
    text = {"text": numbers.tolist(), "texttemplate": "%{text}", "textfont": {"size": CELL_FONT}} if numbers is not None else {}
    main = go.Heatmap(
        z=values.astype(np.float32),
        x=x,
        y=y,
        zmin=zrange[0],
        zmax=zrange[1],
        colorscale=colorscale,
        xgap=1,
        ygap=1,
        hoverongaps=False,
        hovertemplate=hover,
        xaxis=xaxis,
        yaxis="y",
        showscale=colorbar is not None,
        colorbar=colorbar,
        **text,
    )
    if blocked is None or not blocked.any():
        return [main]
    grey = (
        {
            "text": np.where(blocked, MINUS_INF, "").tolist(),
            "texttemplate": "%{text}",
            "textfont": {"size": CELL_FONT, "color": "#222222"},
        }
        if _fits(np.array([MINUS_INF]), cell)
        else {}
    )
    overlay = go.Heatmap(
        z=np.where(blocked, 1.0, np.nan).astype(np.float32),
        x=x,
        y=y,
        colorscale=[[0, MASKED_GREY], [1, MASKED_GREY]],
        showscale=False,
        xgap=1,
        ygap=1,
        hoverongaps=False,
        hovertemplate=blocked_hover,
        xaxis=xaxis,
        yaxis="y",
        **grey,
    )
    return [main, overlay]


def steps_figure(
    steps: ScoreSteps, *, row_tokens: Labels, col_tokens: Labels, text: MaskText = MaskText(), width_hint: int = 960
) -> go.Figure:
    """Three panels sharing the query axis: scores | masked scores (grey −∞) | softmax weights.

    Scores and masked scores share one diverging colour scale centred on 0; weights use 0..1.
    `row_tokens` may be a decoder `TokenAxis` (rows named by the token each position writes).
    """
    titles, x_title, y_title = (text.scores_title, text.masked_title, text.pattern_title), text.key, text.query
    score_label, weight_label, blocked_label = text.score, text.weight, text.masked
    x, y = hover_labels(col_tokens, text.bytes), hover_labels(row_tokens, text.bytes)
    fig = go.Figure()
    cell = matrix_layout(fig, "", x_title, y_title, row_tokens, col_tokens, width_hint, n_panels=3, panel_gap=PANEL_GAP, top=50)
    zrange = score_range(steps.scores)
    gap = PANEL_GAP / (0.85 * width_hint)  # as a fraction of the plot area (the page stretches the figure)
    panel = (1 - 2 * gap) / 3
    domains = [(i * (panel + gap), i * (panel + gap) + panel) for i in range(3)]
    bar = {"thickness": 12, "len": 0.9, "y": 0.5, "x": domains[1][1] + 0.01, "xanchor": "left", "xref": "paper"}
    score_hover = hovertemplate(y_title, x_title, f"{score_label} = %{{z:.6~g}}")
    panels = [
        panel_traces(
            steps.scores,
            x=x,
            y=y,
            zrange=zrange,
            colorscale=DIVERGING_SCALE,
            hover=score_hover,
            digits=SCORE_DIGITS,
            cell=cell,
            xaxis="x",
        ),
        panel_traces(
            steps.masked,
            x=x,
            y=y,
            zrange=zrange,
            colorscale=DIVERGING_SCALE,
            hover=score_hover,
            digits=SCORE_DIGITS,
            cell=cell,
            blocked=~steps.allowed,
            xaxis="x2",
            colorbar=bar,
            blocked_hover=hovertemplate(y_title, x_title, f"{score_label} = {MINUS_INF} ({blocked_label})"),
        ),
        panel_traces(
            steps.pattern,
            x=x,
            y=y,
            zrange=(0.0, 1.0),
            colorscale=ATTENTION_SCALE,
            digits=WEIGHT_DIGITS,
            hover=hovertemplate(y_title, x_title, f"{weight_label} = %{{z:.6~g}}"),
            cell=cell,
            weights=True,
            xaxis="x3",
            colorbar={**bar, "x": 1.0 + 0.005},
        ),
    ]
    for traces in panels:
        fig.add_traces(traces)
    base_x = fig.layout.xaxis.to_plotly_json()
    fig.update_layout(
        xaxis={**base_x, "domain": domains[0]},
        xaxis2={**base_x, "domain": domains[1], "anchor": "y"},
        xaxis3={**base_x, "domain": domains[2], "anchor": "y"},
        margin={"t": 50, "r": 60},
        annotations=[
            {
                "text": f"<b>{html.escape(title)}</b>",
                "x": (a + b) / 2,
                "y": 1.0,
                "xref": "paper",
                "yref": "paper",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": TICK_FONT_SIZE + 1},
            }
            for title, (a, b) in zip(titles, domains, strict=True)
        ],
    )
    return fig


def pattern_figure(
    pattern: np.ndarray, *, row_tokens: Labels, col_tokens: Labels, text: MaskText = MaskText(), width_hint: int = 480
) -> go.Figure:
    """One head's weights on the 0..1 scale with exact values on hover; zero weights read "0"."""
    title, x_title, y_title, weight_label = text.title, text.key, text.query, text.weight
    fig = go.Figure()
    cell = matrix_layout(fig, title, x_title, y_title, row_tokens, col_tokens, width_hint, top=60)
    fig.add_traces(
        panel_traces(
            pattern,
            x=hover_labels(col_tokens, text.bytes),
            y=hover_labels(row_tokens, text.bytes),
            zrange=(0.0, 1.0),
            colorscale=ATTENTION_SCALE,
            digits=WEIGHT_DIGITS,
            cell=cell,
            weights=True,
            hover=hovertemplate(y_title, x_title, f"{weight_label} = %{{z:.6~g}}"),
            colorbar={"thickness": 12, "len": 0.9},
        )
    )
    return fig
