"""Decoder query rows are named by the token they write, with the input alongside, in every figure."""

import json

import numpy as np
import pytest

from viz.heatmap import HeatmapText, head_figure, matrix_figure
from viz.mask_figures import binary_heatmap
from viz.masked_scores import ScoreSteps, pattern_figure, steps_figure
from viz.tokens import ROOM_PX, TokenAxis, as_axis, attention_axes, axis, decoder_query_axis, hover_labels

INPUTS = ("<bos>", "我", "今天")
WRITES = ("我", "今天", "<eos>")


def _uniform(tq: int, tk: int) -> np.ndarray:
    return np.full((tq, tk), 1.0 / tk, dtype=np.float32)


def test_written_token_is_the_label_and_the_input_goes_alongside():
    queries = decoder_query_axis(INPUTS, WRITES)
    assert queries.short_labels() == ["我", "今天", "&lt;eos&gt;"]
    assert queries.long_labels() == ["&lt;bos&gt; → 我", "我 → 今天", "今天 → &lt;eos&gt;"]
    assert queries.hover_labels() == ["0: &lt;bos&gt; → 我", "1: 我 → 今天", "2: 今天 → &lt;eos&gt;"]
    assert queries.option_label(1) == "1: 我 → 今天"  # plain text for a Streamlit picker
    assert queries.tick_labels() == queries.long_labels()  # short labels: room for both


def test_long_labels_fall_back_to_the_written_token_when_there_is_no_room():
    long_word = "extraordinarily"
    queries = decoder_query_axis(["<bos>", long_word], [long_word, long_word])
    assert queries.tick_labels() == [long_word, long_word]
    assert queries.tick_labels(room_px=10 * ROOM_PX) == queries.long_labels()
    assert queries.hover_labels()[1] == f"1: {long_word} → {long_word}"  # the hover always has both


def test_token_lists_keep_their_old_labels():
    tokens = ["a", "a", " "]
    assert hover_labels(tokens) == ["0: a", "1: a", "2: ␣"]
    assert as_axis(tokens) == TokenAxis(("a", "a", " "))
    assert axis(tokens)["ticktext"] == ["a", "a", "␣"]


def test_mismatched_lengths_raise():
    with pytest.raises(ValueError, match="do not match"):
        decoder_query_axis(["<bos>", "a"], ["a"])


@pytest.mark.parametrize("kind", ["encoder", "decoder", "cross"])
def test_attention_axes_name_only_decoder_queries_by_what_they_write(kind):
    src, tgt, nxt = ("i", "today", "<eos>"), INPUTS, WRITES
    queries, keys = attention_axes(kind, src, tgt, nxt)
    if kind == "encoder":
        assert queries.tokens == src and queries.reads is None
    else:
        assert queries.tokens == nxt and queries.reads == tgt
    assert keys.reads is None  # keys are named by the token they read
    assert keys.tokens == {"encoder": src, "decoder": tgt, "cross": src}[kind]


def test_head_figure_rows_are_named_by_what_they_write():
    queries = decoder_query_axis(("<bos>", "<b>x</b>"), ("<b>x</b>", "<eos>"))
    fig = json.loads(head_figure(_uniform(2, 3), queries, ["i", "<i>", "x"]).to_json())
    assert fig["layout"]["yaxis"]["ticktext"] == ["&lt;bos&gt; → &lt;b&gt;x&lt;/b&gt;", "&lt;b&gt;x&lt;/b&gt; → &lt;eos&gt;"]
    assert fig["data"][0]["y"] == ["0: &lt;bos&gt; → &lt;b&gt;x&lt;/b&gt;", "1: &lt;b&gt;x&lt;/b&gt; → &lt;eos&gt;"]
    assert fig["data"][0]["x"] == ["0: i", "1: &lt;i&gt;", "2: x"]
    assert "<b>" not in json.dumps(fig["layout"]) and "<b>x" not in json.dumps(fig["data"])


def test_margin_grows_with_the_long_labels():
    plain = head_figure(_uniform(3, 3), list(WRITES), ["a", "b", "c"])
    both = head_figure(_uniform(3, 3), decoder_query_axis(INPUTS, WRITES), ["a", "b", "c"])
    assert both.layout.margin.l > plain.layout.margin.l + 20


def test_rollout_matrix_takes_a_decoder_axis():
    queries = decoder_query_axis(INPUTS, WRITES)
    fig = matrix_figure(np.eye(3, dtype=np.float32), queries, list(INPUTS), HeatmapText(title="rollout"))
    assert list(fig.data[0].y) == queries.hover_labels() and list(fig.data[0].x) == ["0: &lt;bos&gt;", "1: 我", "2: 今天"]


def test_mask_figures_take_a_decoder_axis():
    queries = decoder_query_axis(INPUTS, WRITES)
    mask = binary_heatmap(np.tril(np.ones((3, 3), dtype=bool)), row_tokens=queries, col_tokens=INPUTS)
    assert list(mask.data[0].y) == queries.hover_labels()
    assert list(mask.layout.yaxis.ticktext) == queries.long_labels()
    assert list(mask.layout.xaxis.ticktext) == ["&lt;bos&gt;", "我", "今天"]
    allowed = np.tril(np.ones((3, 3), dtype=bool))
    scores = np.arange(9, dtype=np.float32).reshape(3, 3)
    steps = ScoreSteps(scores=scores, allowed=allowed, masked=np.where(allowed, scores, np.nan), pattern=_uniform(3, 3))
    fig = steps_figure(steps, row_tokens=queries, col_tokens=INPUTS)
    assert all(list(trace.y) == queries.hover_labels() for trace in fig.data)
    single = pattern_figure(_uniform(3, 3), row_tokens=queries, col_tokens=INPUTS)
    assert list(single.layout.yaxis.ticktext) == queries.long_labels()
