"""runs.sentence_batch: the default lines of the batch are sentences with a right answer, and the
padded batch names each decoder position by the token it writes."""

import pytest

from runs.model_ref import ModelRef, load_bundle, shipped_models
from runs.reference import model_task
from runs.sentence_batch import batch_row, default_more, mask_batch
from runs.text_run import run_text
from transformer.text.tokenizer import PAD


def _reader(bundle):
    return bundle.source_tokenizer or bundle.target_tokenizer


@pytest.mark.parametrize("name", shipped_models())
def test_every_default_line_has_a_right_answer_and_is_shorter(name):
    bundle = load_bundle(ModelRef.parse(name))
    task = model_task(bundle)
    example = str(bundle.card["example"])
    lines = default_more(example, _reader(bundle), task).splitlines()
    assert 1 <= len(lines) <= 3
    lengths = [len(_reader(bundle).tokenize(line)) for line in lines]
    assert len(set(lengths)) == len(lengths), "lines of different lengths, so the batch shows padding"
    assert all(n < len(_reader(bundle).tokenize(example)) for n in lengths)
    for line in lines:
        assert task.reference(line) is not None, f"{line!r} is outside {name}'s grammar"


def test_word_task_lines_come_from_the_sampler_not_prefixes():
    """The old default cut the example ("i read a book in the library today" → "i read a book", "i read"),
    and a prefix is usually no sentence of the grammar."""
    bundle = load_bundle(ModelRef.parse("translate-en-zh"))
    task = model_task(bundle)
    example = str(bundle.card["example"])
    assert task.reference(" ".join(example.split()[:2])) is None  # why prefixes cannot be used
    lines = default_more(example, _reader(bundle), task).splitlines()
    assert not any(example.startswith(line) for line in lines)
    assert lines == default_more(example, _reader(bundle), task).splitlines()  # deterministic


def test_without_a_task_the_lines_are_prefixes():
    bundle = load_bundle(ModelRef.random())
    assert default_more("abcdefgh", _reader(bundle)).splitlines() == ["abcd", "abcdef"]


def test_decoder_rows_are_named_by_what_they_write():
    bundle = load_bundle(ModelRef.parse("translate-en-zh"))
    traces = [run_text(bundle, text, names=()) for text in ("i read a book in the library today", "they sell one photo")]
    view = mask_batch(bundle, traces)
    assert [len(r) for r in view.tgt_next] == [len(r) for r in view.tgt_tokens]
    for trace, written, read in zip(traces, view.tgt_next, view.tgt_tokens, strict=True):
        n = len(trace.tgt_tokens)
        assert written[:n] == trace.next_tokens and set(written[n:]) <= {PAD}
        assert written[: n - 1] == read[1:n], "a generated row writes the next input token"
    axis = view.query_labels(0)
    assert axis.plain_long(0) == "<bos> → 我" and axis.plain_long(1) == "我 → 今天"
    row = batch_row(bundle, traces, 1, names=())
    assert row.next_tokens == view.tgt_next[1] and len(row.next_tokens) == len(row.tgt_tokens)
