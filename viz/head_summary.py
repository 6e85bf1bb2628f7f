"""One per-head score drawn as a small layer × head heatmap, each cell printed where its number fits, so the odd
head stands out.

The scores (entropy, previous token, diagonal, first token, distance, alignment: `transformer.probes.head_scores`,
one vocabulary with the head detectors) are computed in the run layer (`runs.heads.head_summary`); this module
only draws them.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from hook_names import ordinal
from viz.mask_figures import fits_cell
from viz.style import ATTENTION_SCALE, BASE_FONT_SIZE, base_layout

COLUMN_PX = 320
"""The figure's width on the heads page: its right column at a 1280 px window with the sidebar open."""
MARGIN_LEFT, MARGIN_RIGHT = 66, 10  # px: the layer axis's title and ticks; the right edge
CELL_PADDING = 4  # px left free beside a cell's number


def prints_numbers(n_heads: int, fmt: str = ".2f", width: int = COLUMN_PX) -> bool:
    """Whether a cell's number ("0.00") fits its cell when `n_heads` columns share a `width` px figure.

    Four heads (every shipped model) leave 60 px a cell; GPT-2's or BERT's twelve leave 20, where the numbers ran
    into each other. There the colours, the hover and the table under the figure give the values, and the browser
    is spared drawing and measuring 144 numbers: 0.1 s of a GPT-2-sized heads page from Enter to painted.
    """
    cell = (width - MARGIN_LEFT - MARGIN_RIGHT) / max(n_heads, 1)
    return fits_cell([format(0.0, fmt)], BASE_FONT_SIZE, cell, CELL_PADDING)  # plotly prints them at the figure's font


@dataclass(frozen=True)
class MetricText:
    """The translated words of a metric's figure (pages pass them in; the defaults are the English ones)."""

    title: str = ""  # the metric's name
    layer: str = "Layer"
    head: str = "Head"


def metric_figure(
    values: np.ndarray, text: MetricText = MetricText(), *, zmax: float | None = None, fmt: str = ".2f"
) -> go.Figure:
    """A small layer × head heatmap of one metric, each cell printed where its number fits (`prints_numbers`), so
    the odd head stands out."""
    n_layers, n_heads = values.shape
    layers, heads = [ordinal(i) for i in range(n_layers)], [ordinal(h) for h in range(n_heads)]  # as readers count
    layer, head, value = (html.escape(s) for s in (text.layer, text.head, text.title))
    layout = base_layout(
        title={"text": value, "x": 0.0, "xanchor": "left", "font": {"size": 15}},
        template="none",
        # Fixed margins for the axis titles and ≤ 2-digit tick labels (automargin would draw the figure twice).
        height=110 + 44 * n_layers,
        margin={"l": MARGIN_LEFT, "r": MARGIN_RIGHT, "t": 36, "b": 66},
        xaxis={
            "title": {"text": head},
            "tickmode": "array",
            "tickvals": heads,
            "showgrid": False,
            "zeroline": False,
            "fixedrange": True,
        },
        yaxis={
            "title": {"text": layer},
            "tickmode": "array",
            "tickvals": layers,
            "autorange": "reversed",
            "showgrid": False,
            "zeroline": False,
            "fixedrange": True,
        },
    )
    return go.Figure(
        go.Heatmap(  # layout passed here, not via update_layout: several times cheaper to build
            z=np.asarray(values, dtype=np.float32),
            x=heads,
            y=layers,
            colorscale=ATTENTION_SCALE,
            zmin=0.0,
            zmax=zmax,
            texttemplate=f"%{{z:{fmt}}}" if prints_numbers(n_heads, fmt) else "",
            showscale=False,
            hovertemplate=f"{layer} %{{y}}, {head} %{{x}}<br>{value}: %{{z:{fmt}}}<extra></extra>",
            xgap=2,
            ygap=2,
        ),
        layout=layout,
    )
