"""`runs.lesson.step_numbers`: the one call per lesson step gives the step's answer and its figure's arrays."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from runs import lesson
from runs.heads import gold_alignment
from runs.model_ref import ModelRef, load_bundle
from runs.text_run import run_text

TEXT = "i read a book in the library today"


@pytest.fixture(scope="module")
def bundle():
    return load_bundle(ModelRef.parse("translate-en-zh"))


@pytest.fixture(scope="module")
def trace(bundle):
    return run_text(bundle, TEXT)


@pytest.mark.parametrize("step", lesson.STEPS)
def test_every_step_has_its_numbers(bundle, trace, step):
    numbers = lesson.step_numbers(step, bundle, trace)
    assert numbers is not None, step  # every step of a trained translator has a live answer
    assert dataclasses.is_dataclass(numbers) and type(numbers).__dataclass_params__.frozen, step  # a typed record


def test_task_matrix_is_the_gold_alignment(bundle, trace):
    found = lesson.alignment_matrix(bundle, trace)
    alignment = gold_alignment(bundle, trace)
    assert found is not None and alignment is not None
    values, source = found  # (T_out, T_src)
    assert source == trace.src_tokens
    assert values.shape == (len(trace.output_tokens), len(trace.src_tokens))
    for row, key in enumerate(alignment):
        expected = np.zeros(len(trace.src_tokens))
        if key is not None:
            expected[key] = 1.0
        np.testing.assert_array_equal(values[row], expected)


def test_heads_step_marks_only_the_chosen_head(bundle, trace):
    numbers = lesson.step_numbers("heads", bundle, trace)
    marked, choice = numbers.marked, numbers.choice
    assert marked.shape == trace.patterns(choice.kind).shape[:2]
    assert marked.sum() == 1 and marked[choice.layer, choice.head]
    assert numbers.before == trace.output_text and numbers.after == numbers_ablated(bundle, choice).output_text
    assert numbers.from_table


def numbers_ablated(bundle, choice):
    return run_text(bundle, TEXT, interventions=lesson.ablation_specs(choice))
