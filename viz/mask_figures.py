"""Figures of a padded batch and of its masks: two colours, a legend, and "1"/"0" in every cell.

Masks are binary, so they get a two-colour discrete scale (allowed = blue, blocked = light grey,
`style.MASK_COLORS`) with a two-entry colour bar as legend, and the cell text says "1" or "0" so
the matrix still reads on a washed-out projector or for a colour-blind viewer. Axes are
categorical over unique "3: tok" names (repeated tokens stay distinct, and hover names the
position without per-cell strings); ticks show the escaped tokens (`viz.tokens`). Query rows may
be a decoder `TokenAxis` (named by the token each position writes) wherever tokens are accepted.
Figures are sized for a given width (`width_hint`): the page shows them stretched to their column.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from viz.style import MASK_COLORS, TICK_FONT_SIZE, base_layout
from viz.tokens import Labels, axis, axis_labels, escape_token, hover_labels

MIN_TEXT_CELL = 26  # px: narrower cells get no cell text (hover still gives the value)
TITLE_FONT_SIZE = 18  # px: a figure's title (smaller when it would not fit the figure's width)
BINARY_TEXT_CELL = 16  # px: a mask cell wide enough for its "1" / "0"
PAD_GREY, TOKEN_BLUE = "#b0b0b0", "#dbe9f6"


def text_px(label: str, size: int = TICK_FONT_SIZE) -> float:
    """Rough rendered width of a label: CJK and emoji are about twice as wide as Latin letters."""
    return sum(size if ord(ch) >= 0x2E80 else 0.6 * size for ch in label)


def fits_cell(labels: Iterable[str], size: int, cell: float, padding: float) -> bool:
    """Whether the widest of `labels` at `size` px, with `padding` px beside it, fits a `cell` px wide cell (what
    decides whether a heatmap prints its numbers)."""
    return max((text_px(label, size) for label in labels), default=0.0) + padding <= cell


def cell_px(n_cols: int, plot_width: float) -> float:
    """Cell width that fills `plot_width`, kept between 8 px (long inputs) and 44 px (a few tokens)."""
    return float(min(44.0, max(8.0, plot_width / max(n_cols, 1))))


def label_room(rows: Sequence[str], cols: Sequence[str], rotate: bool) -> tuple[int, int]:
    """(left, bottom) margins in px for the tick labels and axis titles."""
    left = 40 + max((text_px(r) for r in rows), default=0)
    longest = max((text_px(c) for c in cols), default=0)
    bottom = 45 + (0.87 * longest if rotate else TICK_FONT_SIZE)
    return int(left), int(bottom)


def binary_scale(off: str, on: str) -> list[list]:
    """A discrete two-colour scale for z in {0, 1}: no blending, so every cell is one of two colours."""
    return [[0.0, off], [0.5, off], [0.5, on], [1.0, on]]


def two_entry_bar(labels: tuple[str, str]) -> dict:
    """A horizontal colour bar above the plot's right end, used as a legend: (for 1, for 0)."""
    return {
        "orientation": "h",
        "x": 1.0,
        "xanchor": "right",
        "y": 1.0,
        "yanchor": "bottom",
        "len": 1.0,
        "thickness": 14,
        "tickvals": [0.25, 0.75],
        "ticktext": [html.escape(labels[1]), html.escape(labels[0])],
        "outlinewidth": 1,
        "tickfont": {"size": TICK_FONT_SIZE},
    }


def title_size(title: str, width_px: float, size: int = TITLE_FONT_SIZE, smallest: int = 12) -> int:
    """The largest font size (≤ `size`, ≥ `smallest`) at which `title` fits `width_px`: plotly clips a
    title at the figure's edge ("Decoder self-attention: padding AND caus") instead of wrapping it."""
    width_at_one = text_px(title, 1) or 1.0
    return int(max(smallest, min(size, width_px / width_at_one)))


def hovertemplate(y_title: str, x_title: str, value: str) -> str:
    """Hover: the query and key named by position and token, then the cell's value."""
    y, x = html.escape(y_title), html.escape(x_title)
    return f"{y}: %{{y}}<br>{x}: %{{x}}<br>{value}<extra></extra>"


@dataclass(frozen=True)
class MaskText:
    """The translated words of the mask figures and the score steps (pages pass them in; the defaults are the
    English ones). `title` names the one matrix drawn, so a page sets it per figure (`dataclasses.replace`)."""

    title: str = ""
    key: str = "key"  # the matrices' axes
    query: str = "query"
    allowed: str = "1 = may attend"  # a mask's legend
    blocked: str = "0 = blocked"
    token: str = "token (1)"  # the padded batch's legend,
    pad: str = "<pad> (0)"
    position: str = "position"  # its columns
    sentence: str = "Sentence {n}"  # and its rows ({n} counts from 1)
    score: str = "score"  # the score steps: what a cell holds,
    weight: str = "weight"
    masked: str = "masked"  # a blocked score's note in the hover,
    scores_title: str = "1 · Scores"  # and the three panels
    masked_title: str = "2 · After masking (grey = −∞)"
    pattern_title: str = "3 · After softmax"
    bytes: str = "bytes: {hex}"  # a byte-level piece's raw bytes, a hover line under its token (`TokenAxis.hover_labels`)


def binary_heatmap(
    allowed: np.ndarray, *, row_tokens: Labels, col_tokens: Labels, text: MaskText = MaskText(), width_hint: int = 480
) -> go.Figure:
    """One mask as a matrix: rows are queries, columns are keys.

    Args:
        allowed: (Tq, Tk) boolean, True = may attend.
        row_tokens / col_tokens: raw tokens labelling the axes (escaped here), or a `TokenAxis`.
    """
    title, x_title, y_title, legend = text.title, text.key, text.query, (text.allowed, text.blocked)
    allowed = np.asarray(allowed, dtype=bool)
    trace = go.Heatmap(
        z=allowed.astype(np.uint8),  # (Tq, Tk): 1 allowed, 0 blocked; about 1.3 bytes a cell in the JSON
        x=hover_labels(col_tokens, text.bytes),
        y=hover_labels(row_tokens, text.bytes),
        zmin=0,
        zmax=1,
        colorscale=binary_scale(MASK_COLORS["blocked"], MASK_COLORS["allowed"]),
        xgap=1,
        ygap=1,
        colorbar=two_entry_bar(legend),
        hovertemplate=hovertemplate(y_title, x_title, "<b>%{z}</b>"),
    )
    fig = go.Figure(trace)
    cell = matrix_layout(fig, title, x_title, y_title, row_tokens, col_tokens, width_hint)
    if cell >= BINARY_TEXT_CELL:
        size = TICK_FONT_SIZE if cell >= MIN_TEXT_CELL else TICK_FONT_SIZE - 3
        fig.data[0].update(texttemplate="%{z}", textfont={"size": size})
    return fig


def batch_heatmap(
    tokens: Sequence[Sequence[str]],
    is_real: np.ndarray,
    text: MaskText = MaskText(),
    width_hint: int = 960,
    raw: Sequence[Sequence[str]] = (),
) -> go.Figure:
    """The padded batch as a table: one row per sentence, each cell its token; <pad> cells grey.

    Args:
        tokens: (B, T) padded tokens (raw; escaped here).
        is_real: (B, T) boolean, False where the cell is padding (the padding mask).
        raw: (B, T) each token's raw bytes as hex ("e4 bd"; "" where the label is the text, a <pad>): a byte-level
            piece's label ("你 ¹⁄₂") names a character it holds only part of, so its bytes go under it in the hover.
    """
    is_real = np.asarray(is_real, dtype=bool)
    n_rows, n_cols = is_real.shape
    words = text
    title, x_title, legend = text.title, text.position, (text.token, text.pad)
    row_labels = [text.sentence.format(n=i + 1) for i in range(n_rows)]
    text = [[escape_token(tok) for tok in row] for row in tokens]  # (B, T): a handful of sentences
    raw_rows = [list(r) + [""] * (n_cols - len(r)) for r in raw] if len(raw) == n_rows else [[""] * n_cols] * n_rows
    lines = [[f"<br>{html.escape(words.bytes.format(hex=h))}" if h else "" for h in r[:n_cols]] for r in raw_rows]
    left, bottom = label_room(row_labels, ["00"], rotate=False)
    cell = (width_hint - left - 20) / n_cols  # the table stretches: cells may be wide
    longest = max((text_px(tok, 13) for row in tokens for tok in row), default=0)
    fig = go.Figure(
        go.Heatmap(
            z=is_real.astype(np.uint8),
            x=np.arange(n_cols),
            y=np.arange(n_rows),
            zmin=0,
            zmax=1,
            colorscale=binary_scale(PAD_GREY, TOKEN_BLUE),
            xgap=2,
            ygap=2,
            text=text,
            texttemplate="%{text}" if cell >= max(MIN_TEXT_CELL, longest) else None,
            textfont={"size": 13},
            colorbar=two_entry_bar(legend),
            customdata=lines,
            hovertemplate="%{y}, %{x}: <b>%{text}</b>%{customdata}<extra></extra>",
        )
    )
    fig.update_layout(
        **base_layout(
            title={"text": html.escape(title), "x": 0, "xanchor": "left"},
            height=int(90 + 40 * n_rows + bottom),
            margin={"l": 10, "r": 10, "t": 80, "b": 10},
            template="none",
        ),
        xaxis={**axis([str(i) for i in range(n_cols)], x_title), "tickfont": {"size": TICK_FONT_SIZE}, "automargin": True},
        yaxis={**axis(row_labels), "autorange": "reversed", "tickfont": {"size": TICK_FONT_SIZE}, "automargin": True},
    )
    return fig


def _plain_ticks(labels: Labels) -> list[str]:
    """The tick labels an axis shows, unescaped: what their drawn width depends on."""
    return [html.unescape(label) for label in axis_labels(labels)]


def matrix_layout(
    fig: go.Figure,
    title: str,
    x_title: str,
    y_title: str,
    rows: Labels,
    cols: Labels,
    width_hint: int,
    n_panels: int = 1,
    panel_gap: int = 0,
    top: int = 95,
) -> float:
    """Token ticks on both axes (first query on top) and a height giving near-square cells.

    Returns:
        the cell width in px at `width_hint`, so callers know whether cell text fits.
    """
    row_ticks, col_ticks = _plain_ticks(rows), _plain_ticks(cols)
    rotate = len(col_ticks) > 6 or max((text_px(c) for c in col_ticks), default=0) > 40
    left, bottom = label_room(row_ticks, col_ticks, rotate)
    cell = cell_px(len(col_ticks), (width_hint - left - 20 - panel_gap * (n_panels - 1)) / n_panels)
    fig.update_layout(
        **base_layout(
            title={"text": html.escape(title), "x": 0, "xanchor": "left", "font": {"size": title_size(title, width_hint - 30)}},
            height=int(top + cell * len(row_ticks) + bottom),
            margin={"l": 10, "r": 10, "t": top, "b": 10},
            template="none",
        ),
        xaxis={
            **axis(cols, x_title),
            "type": "category",
            "tickangle": -60 if rotate else 0,
            "tickfont": {"size": TICK_FONT_SIZE},
            "automargin": True,
        },
        yaxis={
            **axis(rows, y_title),
            "type": "category",
            "autorange": "reversed",
            "tickfont": {"size": TICK_FONT_SIZE},
            "automargin": True,
        },
    )
    return cell
