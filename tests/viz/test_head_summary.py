"""Per-head statistics against values worked out by hand."""

import math

import numpy as np
import pytest

from viz.head_summary import METRICS, SELF_METRICS, MetricText, metric_figure, metrics_for, summarize


def test_previous_token_head():
    # query 0 can only look at itself; every later query looks at its previous token
    p = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=float)[None, None]  # (1, 1, 3, 3)
    s = summarize(p)
    assert s.previous[0, 0] == pytest.approx(1.0)  # queries 1, 2 → keys 0, 1
    assert s.same[0, 0] == pytest.approx(1 / 3)  # only query 0 looks at itself
    assert s.first[0, 0] == pytest.approx(2 / 3)
    assert s.entropy[0, 0] == pytest.approx(0.0)
    assert s.distance[0, 0] == pytest.approx((0 + 1 + 1) / 3)


def test_uniform_head_has_maximal_entropy():
    p = np.full((1, 1, 2, 4), 0.25)
    s = summarize(p)
    assert s.entropy[0, 0] == pytest.approx(2.0) and s.max_entropy == pytest.approx(2.0)
    assert s.first[0, 0] == pytest.approx(0.25)
    # distances: query 0 → (0+1+2+3)/4 = 1.5, query 1 → (1+0+1+2)/4 = 1.0
    assert s.distance[0, 0] == pytest.approx(1.25)


def test_mixed_row_entropy_by_hand():
    p = np.array([[0.5, 0.25, 0.25], [0.0, 0.0, 1.0]])[None, None]
    s = summarize(p)
    assert s.entropy[0, 0] == pytest.approx((1.5 + 0.0) / 2)  # 0.5·1 + 2·0.25·2 = 1.5 bits; a one-hot row is 0
    assert s.previous[0, 0] == pytest.approx(0.0)  # query 1 → key 0
    assert s.same[0, 0] == pytest.approx((0.5 + 0.0) / 2)


def test_cross_attention_shapes_and_undefined_previous():
    p = np.full((2, 3, 1, 5), 0.2)  # one query: no previous token exists
    s = summarize(p)
    assert s.entropy.shape == (2, 3)
    assert np.isnan(s.previous).all()
    assert s.same[0, 0] == pytest.approx(0.2) and s.max_entropy == pytest.approx(math.log2(5))


def test_rows_list_every_head_with_every_metric():
    s = summarize(np.full((2, 3, 4, 4), 0.25))
    rows = s.rows()
    assert len(rows) == 6 and rows[4]["layer"] == 1 and rows[4]["head"] == 1
    assert set(rows[0]) == {"layer", "head", *METRICS}
    with pytest.raises(KeyError):
        s.metric("nonsense")


def test_metric_figure_prints_values_with_translated_labels():
    fig = metric_figure(np.array([[0.1, 0.9]]), MetricText(title="前一个词元", layer="层", head="头"), zmax=1.0)
    assert fig.data[0].texttemplate == "%{z:.2f}"
    assert fig.layout.xaxis.title.text == "头" and fig.layout.yaxis.title.text == "层"
    assert "前一个词元" in fig.data[0].hovertemplate


def test_cross_attention_drops_the_index_metrics_and_reports_alignment():
    p = np.stack([np.eye(3)[[2, 0, 1]], np.eye(3)])[None].astype(np.float32)  # (1, 2, 3, 3): an aligner, a diagonal
    cross = summarize(p, kind="cross", alignment=(2, 0, 1))
    assert cross.metrics == ("entropy", "first", "alignment") == metrics_for("cross", has_alignment=True)
    assert cross.metric("alignment").tolist() == [[1.0, 0.0]]  # the diagonal head scores nothing
    for name in ("previous", "same", "distance"):
        with pytest.raises(KeyError):
            cross.metric(name)
    assert set(cross.rows()[0]) == {"layer", "head", "entropy", "first", "alignment"}
    assert summarize(p, kind="cross").metrics == ("entropy", "first")  # no gold alignment: no score


@pytest.mark.parametrize("kind", ["encoder", "decoder", None])
def test_self_attention_keeps_the_index_metrics(kind):
    s = summarize(np.full((1, 1, 3, 3), 1 / 3), kind=kind, alignment=(0, 1, 2))
    assert s.metrics == SELF_METRICS == metrics_for(kind)
    assert s.metric("same")[0, 0] == pytest.approx(1 / 3)
