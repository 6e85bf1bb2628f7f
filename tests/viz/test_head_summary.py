"""The per-head score picture (the scores themselves: tests/transformer/probes/test_head_scores.py)."""

import numpy as np

from viz.head_summary import MetricText, metric_figure, prints_numbers


def test_metric_figure_prints_values_with_translated_labels():
    fig = metric_figure(np.array([[0.1, 0.9]]), MetricText(title="前一个词元", layer="层", head="头"), zmax=1.0)
    assert fig.data[0].texttemplate == "%{z:.2f}"
    assert fig.layout.xaxis.title.text == "头" and fig.layout.yaxis.title.text == "层"
    assert "前一个词元" in fig.data[0].hovertemplate


def test_numbers_are_printed_only_where_they_fit():
    """Four heads (every shipped model) print their numbers; GPT-2's or BERT's twelve, 20 px a cell in the heads
    page's column, do not (the hover and the table give them), and their hover still names each value."""
    four, twelve = (metric_figure(np.full((3, n), 0.5), zmax=1.0) for n in (4, 12))
    assert four.data[0].texttemplate == "%{z:.2f}" and not twelve.data[0].texttemplate
    assert "%{z:.2f}" in twelve.data[0].hovertemplate
    assert prints_numbers(4) and not prints_numbers(12) and prints_numbers(12, width=1200)
