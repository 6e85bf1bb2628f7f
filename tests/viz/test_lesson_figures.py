"""The lesson's own figures take their words as one LessonText and fill in its templates where they draw."""

from __future__ import annotations

import pytest

from viz.lesson_figures import LessonText, head_count_figure, parameter_figure, probability_figure


def test_parameter_bars_are_named_by_part_and_escaped():
    fig = parameter_figure({"attention": 10, "feed_forward": 20}, LessonText(attention="<b>A</b>"))
    assert list(fig.data[0].x) == ["&lt;b&gt;A&lt;/b&gt;", "Feed-forward"]
    with pytest.raises(KeyError):
        parameter_figure({"decoder": 1})  # a part the lesson has no word for is a bug, not a blank bar


def test_probabilities_name_their_tokens_and_the_smoothing_cap():
    fig = probability_figure(["a", "b"], [0.5, 0.9], cap=0.9)
    assert fig.layout.xaxis.title.text == "Token written" and fig.data[1].name == "1 − ε = 0.90"
    untrained = probability_figure(["a"], [0.1], written=False)
    assert untrained.layout.xaxis.title.text == "Token predicted" and len(untrained.data) == 1  # no cap, no line


def test_head_count_numbers_every_head():
    fig = head_count_figure(["encoder, layer 1", "decoder, layer 1"], 4)
    assert fig.data[0].text[-1][-1] == "8" and fig.layout.xaxis.title.text == "Head"
