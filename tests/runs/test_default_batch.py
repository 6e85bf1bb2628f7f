"""The Masks page's default batch is the page's own example: every line of it, run through each shipped model, is
the task's right output (a natural translator's: word for word one of its corpus's translations). Issue 39: the
default `en-zh` batch showed "He is my elder." → 他是我的老人 (its corpus: 他是我的长辈)."""

from __future__ import annotations

import pytest

from runs.model_ref import ModelRef, load_bundle, shipped_models
from runs.reference import check_reference, model_task
from runs.sentence_batch import default_more
from runs.text_run import run_text
from ui.inputs import example_text


@pytest.mark.parametrize("name", shipped_models())
def test_every_default_batch_line_is_translated_right(name):
    bundle = load_bundle(ModelRef.parse(name))
    task = model_task(bundle)
    reader = bundle.source_tokenizer or bundle.target_tokenizer
    lines = default_more(example_text(bundle), reader, task, bundle.card.get("batch") or ()).split("\n")  # as ui/batch.py
    assert lines and all(lines), lines
    for line in lines:
        trace = run_text(bundle, line, names=())
        check = check_reference(bundle, trace)
        assert check is not None and check.correct, (name, line, trace.output_text, check and check.expected)
