"""The task's verdict on a run: right or wrong output, held out or not, and no right output when there is
nothing to compare with (untrained model: no verdict; a sentence outside the grammar or a translator's unknown
word: a warning with the diagnosis). A character task's unknown symbol is judged as <unk> in its place."""

from dataclasses import replace

import pytest

from runs.reference import check_reference
from runs.text_run import run_text
from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.storage.registry import list_models, load_model, random_bundle
from transformer.tasks import diagnose, get_task, is_heldout
from viz.trace import TraceData


def _run(bundle, text: str) -> TraceData:
    return TraceData.from_trace(trace_text(bundle, text, names=()))


@pytest.fixture(scope="module")
def reverse():
    return load_model("reverse")


@pytest.fixture(scope="module")
def en_zh():
    return load_model("translate-en-zh")


def test_a_right_output_is_correct_and_the_expected_text_is_the_tasks(reverse):
    check = check_reference(reverse, _run(reverse, "hello 世界"))
    assert check is not None and check.expected == "界世 olleh" and check.correct


def test_a_changed_output_is_wrong(reverse):
    trace = _run(reverse, "abcdef")
    wrong = replace(trace, output_tokens=trace.output_tokens[::-1])
    assert not check_reference(reverse, wrong).correct


def test_heldout_follows_the_tasks_split(en_zh):
    task = get_task("translate-en-zh")
    heldout = task.examples(1, "heldout", seed=3)[0].source
    train = task.examples(1, "train", seed=3)[0].source
    assert check_reference(en_zh, _run(en_zh, heldout.upper())).heldout  # case is normalised as the task does
    check = check_reference(en_zh, _run(en_zh, train))
    assert not check.heldout and check.expected == task.reference(train).target and not is_heldout(train)


def test_outside_the_grammar_there_is_no_right_output(en_zh):
    check = check_reference(en_zh, _run(en_zh, "i read"))
    assert check is not None and check.expected is None and not check.correct


def test_no_verdict_without_a_task_and_a_translators_unknown_word_is_not_judged(en_zh):
    untrained = random_bundle(TransformerConfig(n_layers=1, d_model=16, n_heads=2, d_ff=32), seed=0)
    assert check_reference(untrained, _run(untrained, "abc")) is None
    check = check_reference(en_zh, _run(en_zh, "i read a zorblax"))  # not judged, but the grammar says why
    assert check is not None and check.expected is None and not check.correct and check.unknown
    first = check.diagnosis.problems[0]
    assert first.kind == "unknown_word" and first.words == ("zorblax",)


def test_a_character_tasks_unknown_symbol_is_judged_as_unk_in_its_place(reverse):
    """ "张梓涵" once came back as "涵" from a model without 梓: the unknown symbol and all after it dropped. The
    right output for the model keeps <unk> where the symbol goes, so that is judged wrong and <unk> in place right."""
    trace = _run(reverse, "ab\U0001f600cd")
    assert list(trace.unknown) == ["\U0001f600"]
    in_place = check_reference(reverse, replace(trace, output_tokens=["d", "c", "<unk>", "b", "a"]))
    assert in_place.expected == "dc\U0001f600ba" and in_place.unknown and in_place.correct
    dropped = check_reference(reverse, replace(trace, output_tokens=["d", "c"]))
    assert dropped.expected == "dc\U0001f600ba" and not dropped.correct
    assert not check_reference(reverse, _run(reverse, "abcd")).unknown


def test_outside_the_grammar_the_diagnosis_names_the_combination_and_the_nearest_sentence(en_zh):
    text = "i eat red apples"
    check = check_reference(en_zh, _run(en_zh, text))
    assert check.diagnosis == diagnose(get_task("translate-en-zh"), text)
    problem = check.diagnosis.problems[0]
    assert problem.kind == "adjective_noun" and problem.params == {"adjective": "red", "noun": "apples"}
    nearest = check_reference(en_zh, _run(en_zh, check.diagnosis.nearest))
    assert nearest.expected is not None and nearest.diagnosis is None  # the offered sentence is inside the grammar


def test_a_sentence_inside_the_grammar_has_no_diagnosis(en_zh, reverse):
    assert check_reference(en_zh, _run(en_zh, "i read a book")).diagnosis is None
    assert check_reference(reverse, _run(reverse, "abc")).diagnosis is None


@pytest.mark.parametrize("name", [info.name for info in list_models()])
def test_every_shipped_models_card_example_is_judged_correct_on_the_page(name):
    """Issue 13: induction has no <eos> and writes on to its length limit; the page judges the continuation on
    the reference's length, as `transformer.training.evaluate` does, so its own card example reads "correct"."""
    bundle = load_model(name)
    trace = run_text(bundle, str(bundle.card["example"]))
    verdict = check_reference(bundle, trace)
    assert verdict is not None and verdict.expected is not None and verdict.correct, (trace.output_tokens, verdict)
    expected = bundle.target_tokenizer.tokenize(verdict.expected)
    ends = "<eos>" in trace.output_tokens or len(trace.output_tokens) == len(expected)
    assert verdict.judged == (None if ends else len(expected))  # the page says when only a prefix was judged


def test_an_endless_continuation_is_still_wrong_when_its_first_tokens_are():
    bundle = load_model("induction")
    trace = run_text(bundle, str(bundle.card["example"]))
    expected = bundle.target_tokenizer.tokenize(check_reference(bundle, trace).expected)
    assert len(trace.output_tokens) > len(expected)  # it wrote on past the answer
    wrong = next(s for s in bundle.target_tokenizer.vocab[4:] if s != trace.output_tokens[0])
    assert not check_reference(bundle, replace(trace, output_tokens=(wrong, *trace.output_tokens[1:]))).correct
    assert not check_reference(bundle, replace(trace, output_tokens=trace.output_tokens[: len(expected) - 1])).correct
