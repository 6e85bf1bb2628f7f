"""The "what can I type?" panel, input help, random sentences and the trained-length warning (pure task data)."""

from __future__ import annotations

import re

import pytest

from transformer.tasks import get_task
from transformer.tasks.describe import (
    CHINESE_PATTERNS,
    describe_grammar,
    input_description,
    length_warning,
    random_sentence,
    trained_max_len,
)
from transformer.tasks.reading import CATEGORY_NAMES
from transformer.text.tokenizer import SENTENCE_PUNCTUATION

TRANSLATORS = ["translate-en-zh", "translate-en-fr", "translate-zh-en"]


@pytest.mark.parametrize("name", TRANSLATORS)
def test_grammar_description_lists_every_source_word_by_category_with_bilingual_names(name):
    task = get_task(name)
    d = describe_grammar(task)
    listed = {w for phrases in d.lexicon.values() for phrase in phrases for w in phrase.split()}
    quoted = {slot.strip('"') for slots in d.patterns.values() for slot, _ in slots if slot.startswith('"')}
    assert set(task.source_vocabulary()) <= listed | quoted | {"the", "in", "at", "on", "of"}
    assert listed | quoted <= set(task.source_vocabulary())
    for slots in d.patterns.values():
        for slot, _ in slots:
            assert slot.startswith('"') or slot in d.category_names
    for english, chinese in d.category_names.values():
        assert english and re.search(r"[\u4e00-\u9fff]", chinese)
    assert task.reference(d.example) is not None


def test_the_chinese_description_is_in_chinese_and_explains_what_goes_with_what():
    d = describe_grammar(get_task("translate-zh-en"))
    assert d.language == "zh" and d.patterns is CHINESE_PATTERNS
    assert "图书馆" in d.lexicon["place"] and "本" in d.lexicon["measure"]
    assert "书" in d.goes_with["verb"]["读"] and "苹果" not in d.goes_with["verb"]["读"]
    assert "红色" not in d.goes_with["noun"]["苹果"]
    en = describe_grammar(get_task("translate-en-zh"))
    assert en.language == "en" and "reads" in en.lexicon["verb"] and "apples" in en.lexicon["noun"]
    assert "red" not in en.goes_with["noun"]["apple"] and en.goes_with["mass"]["tea"] == ("cup",)


@pytest.mark.parametrize("name", [*TRANSLATORS, "reverse"])
def test_random_sentences_are_seeded_heldout_and_have_a_right_answer(name):
    task = get_task(name)
    from transformer.tasks import is_heldout

    first = random_sentence(task, seed=7)
    assert first == random_sentence(task, seed=7)
    assert is_heldout(first.source)
    assert task.reference(first.source) == first
    assert len({random_sentence(task, seed=s).source for s in range(10)}) > 5
    assert not is_heldout(random_sentence(task, seed=7, split="train").source)


def test_input_descriptions_say_what_each_model_reads():
    en = input_description(get_task("translate-en-zh"))
    assert en.unit == "word" and en.lowercase and en.language == "en" and en.ignored == SENTENCE_PUNCTUATION
    assert "library" in en.symbols and en.max_symbols >= 8
    zh = input_description(get_task("translate-zh-en"))
    assert zh.unit == "chinese_word" and zh.language == "zh" and "图书馆" in zh.symbols
    chars = input_description(get_task("reverse"), {"trained_max_len": 48})
    assert chars.unit == "character" and chars.max_symbols == 48 and chars.language is None
    assert "矗" in chars.symbols and "a" in chars.symbols and "😀" not in chars.symbols


def test_a_model_without_a_task_reads_its_tokenizers_symbols():
    from transformer.config import TransformerConfig
    from transformer.storage.registry import random_bundle
    from transformer.tasks import model_input_description

    bundle = random_bundle(TransformerConfig(n_layers=1, d_model=16, n_heads=2, d_ff=32, max_len=40), seed=0, symbols="abc")
    d = model_input_description(bundle)
    assert d.unit == "character" and d.symbols == ("a", "b", "c") and d.max_symbols == 39


def test_length_warning_counts_user_perceived_characters():
    task, card = get_task("reverse"), {"trained_max_len": 4}
    assert length_warning(card, task, "abcd") is None
    assert length_warning(card, task, "ab👍🏽👩\u200d👩\u200d👧") is None  # 4 characters, 9 code points
    warning = length_warning(card, task, "abcde")
    assert (warning.length, warning.trained_max_len) == (5, 4)
    assert length_warning({}, task, "x" * 500) is None  # no trained length: no warning
    assert trained_max_len({"data": {"max_len": 32}}) == 32


def test_category_names_cover_the_roles():
    assert {"subject", "verb", "noun", "adjective", "place", "time", "measure"} <= set(CATEGORY_NAMES)
