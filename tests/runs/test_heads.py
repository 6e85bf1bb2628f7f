"""The heads page's numbers through the run layer (runs.heads, runs.head_importance) on the shipped translator.

What a newcomer reads on the default example: decoder rows named by the token they write, the
card's alignment head putting "今天" on "today" and "图书馆" on "library", the gold alignment the
page outlines, and the heads that matter.
"""

import dataclasses

import numpy as np
import pytest

from runs import head_importance, heads
from runs.model_ref import ModelRef, load_bundle
from runs.text_run import attention_kinds, attention_names, run_text

DEFAULT = "i read a book in the library today"


@pytest.fixture(scope="module")
def zh():
    bundle = load_bundle(ModelRef("translate-en-zh"))
    return bundle, run_text(bundle, DEFAULT, attention_names(bundle))


def _row(axis, written: str) -> int:
    return axis.tokens.index(written)


def test_the_card_head_reads_today_in_the_row_that_writes_it(zh):
    bundle, trace = zh
    layer, head = heads.card_alignment_head(bundle)
    assert layer == 1, "the card names a head of decoder.layers.1"
    queries, keys = heads.axes_of(trace, "cross")
    pattern = trace.pattern("cross", layer)[head]  # (Tq, Tk)
    looks_at = {queries.tokens[i]: keys.tokens[k] for i, k in enumerate(pattern.argmax(axis=-1))}
    assert looks_at["今天"] == "today" and looks_at["图书馆"] == "library"
    assert queries.plain_long(_row(queries, "今天")) == "我 → 今天"  # reads 我, writes 今天


def test_gold_alignment_names_the_source_word_of_each_written_word(zh):
    bundle, trace = zh
    alignment = heads.gold_alignment(bundle, trace)
    queries, keys = heads.axes_of(trace, "cross")
    gold = {queries.tokens[i]: keys.tokens[k] for i, k in enumerate(alignment) if k is not None}
    assert gold["今天"] == "today" and gold["图书馆"] == "library" and gold["书"] == "book"
    summary = heads.head_summary(trace, "cross", alignment)
    assert summary.names == ("entropy", "first_token", "alignment")  # no index scores across two languages
    layer, head = heads.card_alignment_head(bundle)
    aligned = summary.score("alignment")
    assert aligned[layer, head] >= 0.8 > float(np.nanmean(aligned[0]))


def test_no_gold_alignment_when_the_output_is_not_the_right_answer(zh):
    bundle, _ = zh
    outside = run_text(bundle, "i read a", attention_names(bundle))  # not a sentence of the grammar
    assert heads.gold_alignment(bundle, outside) is None
    random = load_bundle(ModelRef.random())
    assert heads.gold_alignment(random, run_text(random, "hi", attention_names(random))) is None


def test_the_page_opens_on_the_alignment_head_for_translators_and_the_most_important_head_otherwise(zh):
    bundle, trace = zh
    table = head_importance.stored_importance(bundle)
    assert table is not None, "the shipped translator carries its importance table"
    assert heads.opening_head(bundle, trace.kinds(), table) == ("cross", *heads.card_alignment_head(bundle))
    best = next(s for s in table.important() if s.kind != "cross")  # without cross-attention: the most important head
    assert heads.opening_head(bundle, ["encoder", "decoder"], table) == (best.kind, best.layer, best.head)
    assert heads.opening_head(bundle, ["encoder", "decoder"], None) == ("encoder", 0, 0)


def test_kind_importance_marks_the_heads_whose_removal_changes_an_output(zh):
    bundle, trace = zh
    table = head_importance.stored_importance(bundle)
    view = head_importance.kind_importance(table, "cross", trace.n_layers("cross"), trace.pattern("cross", 0).shape[0])
    expected = {(s.layer, s.head) for s in table.important("cross")}
    assert {tuple(map(int, cell)) for cell in np.argwhere(view.important)} == expected
    fig = heads.kind_grid(trace, "cross", range(2), 1, marks=heads.GridMarks.of(view.changed))
    labels = next(d.text for d in fig.data if getattr(d, "mode", None) == "text")
    assert sum("★" in label for label in labels) == len(expected)


def test_untrained_models_measure_importance_on_the_copy_sample_with_progress():
    bundle = load_bundle(ModelRef.random(n_layers=1, d_model=16, n_heads=2, max_len=64))
    assert head_importance.stored_importance(bundle) is None
    calls = []
    table = head_importance.measure_importance(bundle, lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 6) and calls[-1] == (6, 6)  # 3 kinds × 1 layer × 2 heads
    assert table.split == "given" and table.n == head_importance.RANDOM_SAMPLE_SIZE
    decoder_only = load_bundle(ModelRef.random(architecture="decoder-only", n_layers=1, d_model=16, n_heads=2))
    assert attention_kinds(decoder_only) == ("decoder",) and head_importance.stored_importance(decoder_only) is None
    calls.clear()
    table = head_importance.measure_importance(decoder_only, lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 2) and calls[-1] == (2, 2)  # self-attention only: 1 layer × 2 heads
    assert {s.kind for s in table.heads} == {"decoder"} and table.n == head_importance.RANDOM_SAMPLE_SIZE


@pytest.mark.parametrize(
    ("name", "key", "reason"),
    [("gpt-translate-en-zh", "best_prompt_attention_head", "prompt"), ("induction", "induction_head", "induction")],
)
def test_decoder_only_models_open_on_the_head_their_card_names_with_its_numbers(name, key, reason):
    bundle = load_bundle(ModelRef(name))
    table = head_importance.stored_importance(bundle)
    assert table is not None, f"regenerate: python -m transformer importance --model {name}"
    kinds = attention_kinds(bundle)
    opened = heads.opening(bundle, kinds, table)
    layer, head = heads.card_head(bundle, key, "decoder")
    assert (opened.key, opened.reason) == (("decoder", layer, head), reason)
    assert opened.row == table.score("decoder", layer, head)
    card = bundle.card
    expected = card["metrics"]["induction_score"] if reason == "induction" else card["attention"]["alignment_argmax_match"]
    assert opened.score == pytest.approx(expected)
    if reason == "induction":
        assert layer == bundle.config.n_layers - 1 and opened.score >= 0.9  # issue 13's claim, as the caption states it
    assert heads.opening_head(bundle, kinds, table) == opened.key


def test_without_a_named_head_the_page_opens_on_the_most_important_head_and_says_why():
    bundle = load_bundle(ModelRef("gpt-translate-en-zh"))
    table = head_importance.stored_importance(bundle)
    unnamed = dataclasses.replace(bundle, card={**bundle.card, "attention": {}})
    opened = heads.opening(unnamed, ["decoder"], table)
    best = table.important()[0]
    assert best.changed > 0 and (opened.key, opened.reason, opened.row) == (("decoder", best.layer, best.head), "important", best)
    assert heads.opening(unnamed, ["decoder"], None) == heads.Opening("decoder", 0, 0, heads.FIRST)
