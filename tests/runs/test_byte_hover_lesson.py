"""The lesson's architecture step hovers each written piece's raw bytes (issue 36 §3): on tiny random GPT-2 and Qwen2
folders, the hex beside each written token is the one the folder's own tokenizer gives the id the model wrote, read
through `transformers` (never the app's labels); a model whose pieces are text has none."""

import pytest

from runs import lesson
from runs.text_run import run_text
from tests.byte_hex import their_hex
from transformer.storage.registry import DEFAULT_MODEL, load_model
from viz.lesson_figures import LessonText, probability_figure
from viz.tokens import TokenAxis

TEXT = "你好 猫"


@pytest.mark.parametrize("family", ["gpt2", "qwen2"])
def test_the_written_tokens_hover_the_bytes_their_tokenizer_gives(pretrained_dir, family):
    bundle = load_model(pretrained_dir / f"tiny-{family}")
    trace = run_text(bundle, TEXT, names=(lesson.GENERATOR_LOGITS,))
    numbers = lesson.architecture_numbers(bundle, trace)
    rows = lesson.written_rows(trace)
    assert len(rows) == len(numbers.probabilities) == len(numbers.raw) > 0
    ids = list(trace.tgt_ids)  # row i writes decoder input i + 1; the row past them writes <eos>, a special: no bytes
    expected = [their_hex(bundle, ids[i + 1]) if i + 1 < len(ids) else "" for i in rows]
    assert list(numbers.raw) == expected
    assert any(expected), expected  # the random model wrote byte-level pieces: the check above had something to check
    words = TokenAxis(tuple(w for w, _ in numbers.probabilities), hex=numbers.raw)
    fig = probability_figure(words, [p for _, p in numbers.probabilities], LessonText(bytes="字节：{hex}"))
    for name, raw in zip(fig.data[0].customdata, expected, strict=True):
        assert name.endswith(f"<br>字节：{raw}") if raw else "字节" not in name, (name, raw)


def test_a_shipped_models_written_tokens_have_no_bytes():
    bundle = load_model(DEFAULT_MODEL)
    trace = run_text(bundle, "we are happy today", names=(lesson.GENERATOR_LOGITS,))
    numbers = lesson.architecture_numbers(bundle, trace)
    assert numbers.probabilities and not any(numbers.raw)
