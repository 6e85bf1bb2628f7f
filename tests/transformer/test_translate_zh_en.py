"""translate-zh-en: the en-zh grammar read backwards, one English answer per Chinese sentence, spaces optional."""

from __future__ import annotations

import random

import pytest

from transformer.tasks import TASKS, get_task, is_heldout
from transformer.tasks.phrase import Phrase
from transformer.tasks.translate_zh_en import reversed_phrase
from transformer.text.tokenizer import segment
from transformer.training.train import tokenizers_for

TASK = get_task("translate-zh-en")
EN_ZH = get_task("translate-en-zh")


@pytest.fixture(scope="module")
def samples():
    rng = random.Random(0)
    return [TASK.sample(rng) for _ in range(3000)]


def test_registered_with_a_bilingual_description():
    assert "translate-zh-en" in TASKS and TASK.name == "translate-zh-en" and TASK.level == "word"
    assert TASK.description_en and TASK.description_zh


def test_every_sample_parses_back_with_and_without_spaces(samples):
    for e in samples:
        assert TASK.reference(e.source) == e
        assert TASK.reference(e.source.replace(" ", "")) == e
        assert TASK.reference(e.source.replace(" ", "") + "。") == e


def test_samples_are_the_en_zh_grammar_backwards(samples):
    for e in samples[:500]:
        forward = EN_ZH.reference(e.target)
        assert forward is not None and forward.target == e.source, e
        for j, i in enumerate(e.alignment):  # English word j ← Chinese word i, and en-zh aligns i back to j
            assert i is None or forward.alignment[i] == j


def test_vocabularies_cover_every_sample_and_nothing_unused(samples):
    source, target = set(TASK.source_vocabulary()), set(TASK.target_vocabulary())
    assert source == set(EN_ZH.target_vocabulary())
    used = {w for e in samples for w in e.target.split()}
    assert used <= target
    for e in samples:
        assert set(e.source.split()) <= source


@pytest.mark.parametrize(
    ("chinese", "english"),
    [
        ("我今天在图书馆读一本书", "i read a book in the library today"),
        ("他读一本书", "he reads a book"),
        ("我吃一个苹果", "i eat an apple"),  # 一 reads "a", and "a" becomes "an"
        ("我们喝两杯水", "we drink two cups of water"),  # 杯 reads "cup" when the drink has both cup and glass
        ("他们喝一杯果汁", "they drink a glass of juice"),  # juice only comes in glasses
        ("汤姆今天晚上看一部电影", "tom watches a film tonight"),  # 今天 晚上: "tonight" comes first in the lexicon
        ("我的朋友们每个星期在公园踢三个球", "my friends kick three balls in the park every week"),
    ],
)
def test_hand_written_translations(chinese, english):
    assert TASK.reference(chinese).target == english


def test_sentences_outside_the_grammar_have_no_reference():
    for text in ("我读一个书", "我吃红色的苹果", "我很好", "今天我读一本书", ""):
        assert TASK.reference(text) is None, text


def test_segmentation_is_greedy_longest_match_and_keeps_unknown_runs_together():
    words = frozenset(TASK.source_vocabulary())
    longest = max(map(len, words))
    assert segment("我们的老师", words, longest) == ["我们", "的", "老师"]
    assert segment("在车站", words, longest) == ["在", "车站"]
    assert segment("我很好吗", words, longest) == ["我", "很好吗"]
    assert TASK.split_source("我 今天，在图书馆!") == ["我", "今天", "在", "图书馆"]


def test_the_models_tokenizer_segments_like_the_task(samples):
    source, _ = tokenizers_for(TASK)
    for e in samples[:300]:
        assert source.tokenize(e.source.replace(" ", "")) == e.source.split()


def test_heldout_split_is_on_the_spaced_chinese(samples):
    assert 0.02 < sum(is_heldout(e.source) for e in samples) / len(samples) < 0.08
    assert all(is_heldout(e.source) for e in TASK.examples(20, "heldout", seed=1))


def test_reversed_phrase_points_each_english_word_at_its_first_chinese_word():
    phrase = Phrase(("tonight",), ("今天", "晚上"), (0, 0))
    assert reversed_phrase(phrase) == Phrase(("今天", "晚上"), ("tonight",), (0,))
    phrase = Phrase(("the", "teacher"), ("老师",), (1,))
    assert reversed_phrase(phrase).alignment == (None, 0)
