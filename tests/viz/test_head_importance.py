"""The head-importance table and figure: ranks, marks and printed values from a plain (L, H) array."""

import json

import numpy as np
import pytest

from viz.head_importance import HeadImportance, ImportanceText, importance_figure
from viz.style import MARK_COLOR

CHANGED = np.array([[0.0, 0.05, 0.0], [0.35, 0.0, 0.05]])
DROP = np.array([[0.01, 0.4, 0.0], [2.5, 0.02, 0.9]])


def test_ranked_rows_put_the_heads_that_change_outputs_first():
    table = HeadImportance(CHANGED, DROP)
    rows = table.ranked_rows()
    assert [(r["layer"], r["head"]) for r in rows[:3]] == [(1, 0), (1, 2), (0, 1)]  # 0.05 tie: larger drop first
    assert rows[0]["changed"] == pytest.approx(0.35) and rows[0]["logprob_drop"] == pytest.approx(2.5)
    assert table.most_important() == (1, 0)
    assert table.important.tolist() == [[False, True, False], [True, False, True]]


def test_shapes_must_agree():
    with pytest.raises(ValueError, match="layers, heads"):
        HeadImportance(np.zeros((2, 3)), np.zeros((3, 2)))


def test_figure_prints_both_numbers_and_outlines_important_heads():
    fig = importance_figure(
        HeadImportance(CHANGED, DROP), ImportanceText(changed="输出改变", drop="<b>drop</b>", layer="层", head="头")
    )
    spec = json.loads(fig.to_json())
    changed, drop = spec["data"]
    assert changed["texttemplate"] == "%{z:.0%}" and changed["zmax"] == 1.0
    assert drop["texttemplate"] == "%{z:.2f}" and drop["zmax"] == pytest.approx(2.5)
    assert "&lt;b&gt;drop&lt;/b&gt;" in drop["hovertemplate"] and "<b>drop" not in json.dumps(spec)
    outlines = [s for s in spec["layout"]["shapes"] if s["line"]["color"] == MARK_COLOR]
    assert len(outlines) == 2 * 3  # three important heads, in both panels
    assert {(s["y0"] + 0.5, s["x0"] + 0.5) for s in outlines} == {(1, 2), (2, 1), (2, 3)}  # layers and heads from 1
    assert spec["layout"]["yaxis"]["title"]["text"] == "层"
