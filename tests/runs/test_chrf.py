"""The app's chrF is sacrebleu's sentence chrF (computed two ways, compared)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runs.chrf import best_chrf, chrf

sacrebleu = pytest.importorskip("sacrebleu")
TEXT = st.text(alphabet="abc de我你好。,", max_size=30)


@given(TEXT, TEXT)
@settings(max_examples=200, deadline=None)
def test_chrf_is_sacrebleus_sentence_chrf(hypothesis: str, reference: str) -> None:
    expected = sacrebleu.sentence_chrf(hypothesis, [reference]).score
    assert chrf(hypothesis, reference) == pytest.approx(expected, abs=1e-9)


def test_known_values_and_the_best_of_several_references() -> None:
    assert chrf("He is tired", "He is tired") == 100.0
    assert chrf("abc", "xyz") == 0.0
    low, high = chrf("我喜欢茶", "他们去看电影"), chrf("我喜欢茶", "我喜欢喝茶")
    assert best_chrf("我喜欢茶", ["他们去看电影", "我喜欢喝茶"]) == high > low
    assert best_chrf("x", []) == 0.0
