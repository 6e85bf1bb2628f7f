"""Chinese x tick labels are drawn upright (a rotated 一 reads as "/"), thinned where they would overlap."""

from __future__ import annotations

import plotly.graph_objects as go

from viz.cjk_ticks import PLOT_PX, label_px, upright_cjk_ticks


def _fig(labels: list[str]) -> go.Figure:
    fig = go.Figure(go.Heatmap(z=[list(range(len(labels)))]))
    fig.update_xaxes(tickmode="array", tickvals=list(range(len(labels))), ticktext=labels)
    return fig


def test_chinese_labels_stand_upright_and_all_show_when_they_fit():
    labels = ["&lt;bos&gt;", "我", "今天", "在", "图书馆", "读", "一", "本", "书"]
    axis = upright_cjk_ticks(_fig(labels)).layout.xaxis
    assert axis.tickangle == 0 and list(axis.ticktext) == labels


def test_crowded_chinese_labels_are_thinned_not_rotated():
    labels = [f"图书馆{i}" for i in range(40)]
    axis = upright_cjk_ticks(_fig(labels)).layout.xaxis
    assert axis.tickangle == 0 and 1 < len(axis.ticktext) < len(labels)
    assert max(label_px(s) for s in axis.ticktext) * len(axis.ticktext) <= PLOT_PX + label_px(labels[0])
    step = axis.tickvals[1] - axis.tickvals[0]
    assert list(axis.ticktext) == labels[::step]  # every k-th label, each at its own cell


def test_latin_labels_are_left_alone():
    fig = _fig(["the", "cat", "sat"])
    assert upright_cjk_ticks(fig) is fig
