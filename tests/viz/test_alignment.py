"""Gold word alignment: the score on hand-made patterns and against the training evaluation, and its outline."""

import json

import numpy as np
import pytest
import torch

from hook_names import act_name, head_label, parse_head_label
from transformer.engine.decoding import trace_text
from transformer.hooks import capture
from transformer.probes.head_scores import ALIGNMENT, HeadScores, alignment_score
from transformer.storage.registry import load_model
from transformer.tasks import get_task
from transformer.training.evaluate import cross_attention_alignment, make_batch
from viz.alignment import aligned_cells
from viz.heatmap import HeatmapText, head_figure
from viz.tokens import attention_axes
from viz.trace import TraceData


def _one_hot(peaks: list[int], tk: int) -> np.ndarray:
    """(Tq, Tk) rows with all weight on key peaks[i]."""
    return np.eye(tk, dtype=np.float32)[peaks]


def test_perfect_alignment_scores_one_and_a_shifted_one_zero():
    alignment = (2, 0, 1)
    assert alignment_score(_one_hot([2, 0, 1], 3), alignment) == pytest.approx(1.0)
    assert alignment_score(_one_hot([0, 1, 2], 3), alignment) == pytest.approx(0.0)  # the off-by-one reading
    assert alignment_score(_one_hot([2, 0, 0], 3), alignment) == pytest.approx(2 / 3)


def test_unaligned_rows_and_rows_past_the_alignment_are_not_counted():
    patterns = _one_hot([1, 2, 0, 2], 3)  # the last row (writes <eos>) has no gold source
    assert alignment_score(patterns, (1, None, 0)) == pytest.approx(1.0)
    assert aligned_cells((1, None, 0), 4, 3) == [(0, 1), (2, 0)]
    assert np.isnan(alignment_score(patterns, (None, None)))


def test_scores_every_head_at_once():
    patterns = np.stack([_one_hot([0, 1], 2), _one_hot([1, 0], 2)])[None]  # (1, 2, 2, 2)
    assert alignment_score(patterns, (0, 1)).tolist() == [[1.0, 0.0]]


def test_best_aligned_head_skips_undefined_scores():
    assert HeadScores((ALIGNMENT,), np.array([[[0.2, np.nan], [0.9, 0.5]]])).top(ALIGNMENT, 1) == [(1, 0, 0.9)]
    assert HeadScores((ALIGNMENT,), np.full((1, 2, 2), np.nan)).top(ALIGNMENT, 1) == []


def test_an_alignment_of_another_sentence_raises():
    with pytest.raises(ValueError, match="outside"):
        alignment_score(_one_hot([0, 1], 2), (0, 5))


def test_outline_is_off_by_default_and_marks_the_gold_cells():
    pattern = _one_hot([2, 0, 1], 3)
    assert not head_figure(pattern, list("xyz"), list("abc")).layout.shapes
    text = HeatmapText(alignment="<b>gold</b>")
    fig = json.loads(head_figure(pattern, list("xyz"), list("abc"), text, alignment=(2, None, 1)).to_json())
    shapes = fig["layout"]["shapes"]
    assert [(s["y0"] + 0.5, s["x0"] + 0.5) for s in shapes] == [(0, 2), (2, 1)]
    assert all(s["x1"] - s["x0"] == 1 and s["line"]["width"] >= 3 and s["fillcolor"] == "rgba(0,0,0,0)" for s in shapes)
    assert [s["showlegend"] for s in shapes] == [True, False] and shapes[0]["name"] == "&lt;b&gt;gold&lt;/b&gt;"
    assert fig["layout"]["showlegend"] is True


@pytest.fixture(scope="module")
def translator():
    return load_model("translate-en-zh")


def test_score_matches_the_training_evaluation_on_one_sentence(translator):
    """The same score computed two ways: here from captured patterns, there by transformer.training.evaluate."""
    example = get_task("translate-en-zh").reference("i read a book in the library today")
    batch = make_batch(translator, [example])
    names = [act_name("cross", layer, "pattern") for layer in range(2)]
    with torch.no_grad(), capture(translator.model, names) as cache:
        translator.model(batch.src, batch.tgt_in)
    patterns = np.stack([cache[name][0].numpy() for name in names])  # (L, H, Tt, Ts)
    ours = alignment_score(patterns, example.alignment)
    theirs = cross_attention_alignment(translator, [example])
    for layer in range(2):
        for head in range(4):
            assert ours[layer, head] == pytest.approx(theirs[head_label("cross", layer, head)])


def test_default_example_alignment_head_reads_right_through_the_view_model(translator):
    """Issue 10: in the card's head, the row labelled 今天 looks at "today", the row labelled 图书馆 at "library"."""
    trace = TraceData.from_trace(trace_text(translator, "i read a book in the library today"))
    next_tokens = (*trace.output_tokens, "<eos>")  # greedy decoding: position i writes output token i
    queries, keys = attention_axes("cross", trace.src_tokens, trace.tgt_tokens, next_tokens)
    kind, layer, head = parse_head_label(translator.card["attention"]["best_cross_attention_head"])
    fig = head_figure(trace.pattern(kind, layer)[head], queries, keys)  # the card's alignment head
    rows = {label.split(": ", 1)[1]: i for i, label in enumerate(fig.data[0].y)}
    z = np.asarray(fig.data[0].z)
    looks_at = {label: keys.tokens[int(z[i].argmax())] for label, i in rows.items()}
    assert looks_at["我 → 今天"] == "today" and looks_at["在 → 图书馆"] == "library"
    assert "今天" in fig.layout.yaxis.ticktext[2]
