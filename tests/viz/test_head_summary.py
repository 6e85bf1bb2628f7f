"""The per-head score picture (the scores themselves: tests/transformer/probes/test_head_scores.py)."""

import numpy as np

from viz.head_summary import MetricText, metric_figure


def test_metric_figure_prints_values_with_translated_labels():
    fig = metric_figure(np.array([[0.1, 0.9]]), MetricText(title="前一个词元", layer="层", head="头"), zmax=1.0)
    assert fig.data[0].texttemplate == "%{z:.2f}"
    assert fig.layout.xaxis.title.text == "头" and fig.layout.yaxis.title.text == "层"
    assert "前一个词元" in fig.data[0].hovertemplate
