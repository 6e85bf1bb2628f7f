"""A natural translator's verdict: a match with the corpus, how close it comes, or no reference — never 'wrong'."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from runs.reference import check_reference
from transformer.engine.decoding import trace_text
from transformer.storage.checkpoint import ModelBundle
from transformer.tasks import get_task
from transformer.training.train import TrainSettings, build_bundle
from viz.trace import TraceData

TINY = {"n_layers": 1, "d_model": 32, "n_heads": 2, "d_ff": 64}


@pytest.fixture(scope="module", params=["en-zh", "zh-en"])
def translator(request) -> ModelBundle:
    """Random weights with the natural task's tokenizers and card (the verdict reads only the card's task)."""
    torch.manual_seed(0)
    bundle = build_bundle(get_task(request.param), TrainSettings(task=request.param, config=TINY))
    return replace(bundle, card={"task": request.param})


def _run(bundle: ModelBundle, text: str) -> TraceData:
    return TraceData.from_trace(trace_text(bundle, text, names=()))


def test_a_sentence_outside_the_corpus_has_no_reference_and_is_not_called_wrong(translator) -> None:
    text = "Zebras rarely read poetry on Tuesdays." if translator.card["task"] == "en-zh" else "斑马星期二很少读诗。"
    check = check_reference(translator, _run(translator, text))
    assert check is not None and check.corpus
    assert check.expected is None and check.references == () and check.chrf is None and check.diagnosis is None


def test_a_corpus_sentence_gets_its_references_and_a_chrf(translator) -> None:
    task = get_task(translator.card["task"])
    example = task.examples(1, "heldout", seed=4)[0]
    trace = _run(translator, example.source)
    check = check_reference(translator, trace)
    assert check.corpus and check.heldout and check.references == task.references(example.source)
    assert check.expected == check.references[0] and 0 <= check.chrf <= 100
    right = replace(trace, output_text=check.references[-1])  # any of the corpus's translations is a match
    matched = check_reference(translator, right)
    assert matched.correct and matched.chrf == 100.0


def test_a_training_sentence_says_the_model_saw_it(translator) -> None:
    task = get_task(translator.card["task"])
    example = task.examples(1, "train", seed=2)[0]
    check = check_reference(translator, _run(translator, example.source))
    assert check.references and not check.heldout
