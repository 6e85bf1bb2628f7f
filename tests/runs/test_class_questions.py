"""The class's answer choices come from each step's real numbers, and their truth follows the sentence."""

from __future__ import annotations

import functools

import pytest

from runs import lesson
from runs.class_questions import NUMBER_MAX, ClassQuestion, range_choices, token_choices
from runs.lesson import class_question
from runs.model_ref import ModelRef, load_bundle
from runs.text_run import run_text
from transformer.storage.registry import DEFAULT_MODEL

# held-out pairs of the default model's corpus: step 1 has a human translation to judge by
SENTENCES = ("I played tennis yesterday afternoon with Tom.", "It was already twelve when he reached home.")


@functools.cache
def _questions(text: str) -> dict[str, ClassQuestion | None]:
    bundle = load_bundle(ModelRef.parse(DEFAULT_MODEL))
    trace = run_text(bundle, text, names=None)
    return {step: class_question(step, lesson.step_numbers(step, bundle, trace), trace) for step in lesson.STEPS}


@functools.cache
def _numbers(text: str) -> dict[str, lesson.StepNumbers | None]:
    bundle = load_bundle(ModelRef.parse(DEFAULT_MODEL))
    trace = run_text(bundle, text, names=None)
    return {step: lesson.step_numbers(step, bundle, trace) for step in lesson.STEPS}


@pytest.mark.parametrize("text", SENTENCES)
def test_every_step_of_the_translator_asks_the_class(text):
    questions = _questions(text)
    numbers = _numbers(text)
    assert all(questions[step] is not None for step in lesson.STEPS), [s for s, q in questions.items() if q is None]
    for step, question in questions.items():
        if question.is_number:
            assert question.normalize(question.truth) == question.truth, step
        else:
            codes = [c.code for c in question.choices]
            assert question.truth in codes and len(set(codes)) == len(codes) and 2 <= len(codes) <= 8, (step, codes)
    attention, cross = questions["attention"], questions["cross"]
    label = {c.code: c.label for c in attention.choices}[attention.truth]
    assert label == numbers["attention"].key, "the right token is the one the model attends to most"
    assert {c.code: c.label for c in cross.choices}[cross.truth] == numbers["cross"].reads
    assert questions["why_attention"].truth == str(numbers["why_attention"].rnn)
    assert questions["recap"].truth == str(numbers["recap"].heads)
    assert questions["task"].truth == ("yes" if numbers["task"].correct else "no")
    heads = numbers["heads"]
    assert questions["heads"].truth == ("same" if heads.before == heads.after else "changes")
    arch = questions["architecture"]
    assert {c.code: c.label for c in arch.choices}[arch.truth] == numbers["architecture"].word


def test_a_sentence_outside_the_corpus_gets_no_yes_or_no_question():
    """No reference translation: the class judges the output itself, so step 1 offers no right answer to score."""
    questions = _questions("The animal didn't cross the street because it was too tired.")
    assert questions["task"] is None and questions["cross"] is not None


def test_the_truth_follows_the_sentence():
    a, b = _questions(SENTENCES[0]), _questions(SENTENCES[1])
    assert [c.label for c in a["cross"].choices] != [c.label for c in b["cross"].choices]
    assert a["why_attention"].truth != b["why_attention"].truth or a["attention"].choices != b["attention"].choices


def test_a_long_sentence_keeps_eight_tokens_and_the_truth():
    tokens = (*(f"w{i}" for i in range(40)), "w3")
    for truth in (0, 17, 39, 40):
        choices, code = token_choices(tokens, truth)
        assert len(choices) == 8 and code in {c.code for c in choices}
        assert [int(c.code[1:]) for c in choices] == sorted(int(c.code[1:]) for c in choices), "sentence order"
    assert token_choices(tokens, 40)[1] == "t3", "a repeated token is right wherever it stands"


def test_ranges_cover_the_number_line():
    choices, truth = range_choices(5.3, (1, 3, 10, 30))
    assert [c.label for c in choices] == ["< 1", "1 – 3", "3 – 10", "10 – 30", "≥ 30"] and truth == "r2"
    assert range_choices(0.2, (1, 3))[1] == "r0" and range_choices(3, (1, 3))[1] == "r2"


@pytest.mark.parametrize("raw, expected", [("7", "7"), ("007", "7"), (7.0, "7"), ("7.5", None), ("-1", None), ("x", None)])
def test_typed_numbers_are_checked(raw, expected):
    question = ClassQuestion("recap", "heads_total", "24")
    assert question.normalize(raw) == expected
    assert question.normalize(str(NUMBER_MAX + 1)) is None and question.normalize("nan") is None
    assert question.normalize("inf") is None and question.normalize(True) is None


def test_a_choice_must_be_one_of_the_choices():
    question = _questions(SENTENCES[0])["task"]
    assert question.normalize("yes") == "yes" and question.normalize("maybe") is None and question.normalize(None) is None
