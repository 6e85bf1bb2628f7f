"""Chinese tick labels stay upright: plotly rotates crowded x labels, and a rotated 一 reads as "/" or "|".

`upright_cjk_ticks` turns every x axis whose tick text holds CJK characters upright and, where the labels
would not fit side by side, keeps every k-th (hover still names every cell). Called once for every figure
the app draws (`ui.charts.show_figure`); a figure without such an axis is returned as is, uncopied.
"""

from __future__ import annotations

import html
import math
import re

import plotly.graph_objects as go

CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")
PLOT_PX = 600  # the narrowest plot area an x axis of tokens gets (the lesson's figure column at 1280 px)
CHAR_PX = 18  # a CJK character at the projector's tick size (Latin letters are narrower: counted as half)


def label_px(label: str) -> float:
    """The width `label` (escaped plotly text) needs upright: CJK characters full width, others half."""
    text = html.unescape(str(label))
    return sum(CHAR_PX if CJK.match(ch) else CHAR_PX / 2 for ch in text) + CHAR_PX / 2


def _needs_upright(axis: go.layout.XAxis) -> bool:
    return bool(axis.ticktext) and axis.tickangle != 0 and any(CJK.search(str(s)) for s in axis.ticktext)


def upright_cjk_ticks(fig: go.Figure) -> go.Figure:
    """`fig`, or a copy whose CJK x tick labels are upright and thinned to every k-th where they would overlap."""
    if not any(_needs_upright(axis) for axis in fig.select_xaxes()):
        return fig
    fig = go.Figure(fig)
    for axis in fig.select_xaxes():
        if not _needs_upright(axis):
            continue
        labels, values = list(axis.ticktext), list(axis.tickvals or range(len(axis.ticktext)))
        step = max(1, math.ceil(max(label_px(s) for s in labels) * len(labels) / PLOT_PX))
        axis.update(tickangle=0, tickvals=values[::step], ticktext=labels[::step])
    return fig
