"""Grammar diagnosis: which word or combination is the problem, and the nearest sentence the grammar makes."""

from __future__ import annotations

import random

import pytest

from transformer.tasks import get_task
from transformer.tasks.diagnosis import Diagnosis, diagnose, edit_distance

TRANSLATORS = ["translate-en-zh", "translate-en-fr", "translate-zh-en"]


def _kinds(d: Diagnosis) -> list[str]:
    return [p.kind for p in d.problems]


@pytest.mark.parametrize("name", TRANSLATORS)
def test_sentences_of_the_grammar_have_no_diagnosis(name):
    task = get_task(name)
    for e in task.examples(30, "heldout", seed=3):
        assert diagnose(task, e.source) is None
        assert diagnose(task, e.source + ".") is None


@pytest.mark.parametrize("name", TRANSLATORS)
def test_the_nearest_sentence_is_in_the_grammar_and_no_farther_than_a_one_word_change(name):
    """Break a grammatical sentence by one word (drop or swap it): the nearest sentence is at distance <= 1."""
    task = get_task(name)
    rng = random.Random(0)
    vocabulary = task.source_vocabulary()
    for e in task.examples(40, "heldout", seed=4):
        words = e.source.split()
        i = rng.randrange(len(words))
        broken = words[:i] + words[i + 1 :] if rng.random() < 0.5 else [*words[:i], rng.choice(vocabulary), *words[i + 1 :]]
        d = diagnose(task, " ".join(broken))
        if d is None:  # the change made another sentence of the grammar
            continue
        assert d.nearest is not None and task.reference(d.nearest) is not None, broken
        assert d.distance == edit_distance(task.split_source(" ".join(broken)), d.nearest.split())
        assert d.distance <= 1, (broken, d)
        assert d.problems


@pytest.mark.parametrize(
    ("name", "text", "kind", "params", "nearest"),
    [
        ("translate-en-zh", "i eat red apples", "adjective_noun", {"adjective": "red", "noun": "apples"}, None),
        ("translate-en-zh", "i read apples", "verb_object", {"verb": "read", "noun": "apples"}, None),
        (
            "translate-en-zh",
            "i drink a bowl of tea",
            "container_mass",
            {"container": "bowl", "noun": "tea"},
            "i drink a cup of tea",
        ),
        ("translate-en-zh", "he read a book", "word_form", {"typed": "read", "expected": "reads"}, "he reads a book"),
        ("translate-en-zh", "i eat a apple", "word_form", {"typed": "a", "expected": "an"}, "i eat an apple"),
        ("translate-en-zh", "i read a book today in the library", "word_order", {}, "i read a book in the library today"),
        ("translate-en-zh", "i read", "missing_role", {"role": "object"}, "i read a book"),
        (
            "translate-en-fr",
            "the girl reads a red book in the garden",
            "adjective_noun",
            {"adjective": "red", "noun": "book"},
            "the girl reads a book in the garden",
        ),
        ("translate-zh-en", "我吃红色的苹果", "adjective_noun", {"adjective": "红色", "noun": "苹果"}, None),
        ("translate-zh-en", "我喝一碗茶", "container_mass", {"container": "碗", "noun": "茶"}, "我 喝 一 杯 茶"),
        ("translate-zh-en", "我读一个书", "word_form", {"typed": "个", "expected": "本"}, "我 读 一 本 书"),
        ("translate-zh-en", "今天我读一本书", "word_order", {}, "我 今天 读 一 本 书"),
    ],
)
def test_named_problems(name, text, kind, params, nearest):
    d = diagnose(get_task(name), text)
    assert d is not None
    problem = d.problems[0]
    assert problem.kind == kind, d
    assert {k: problem.params[k] for k in params} == params
    if nearest is not None:
        assert d.nearest == nearest
    assert get_task(name).reference(d.nearest) is not None


def test_unknown_words_come_first_and_the_rest_still_gets_a_nearest_sentence():
    d = diagnose(get_task("translate-en-zh"), "i read a book in the libary")
    assert d.problems[0].kind == "unknown_word" and d.problems[0].params == {"word": "libary"}
    assert d.nearest == "i read a book in the library"
    d = diagnose(get_task("translate-zh-en"), "我很好")
    assert d.problems[0] == d.problems[0].__class__("unknown_word", ("很好",), {"word": "很好"})
    assert {"verb", "object"} <= {p.params.get("role") for p in d.problems}


def test_empty_input_misses_every_part():
    d = diagnose(get_task("translate-en-zh"), "")
    assert [p.params["role"] for p in d.problems] == ["subject", "verb", "object"]
    assert get_task("translate-en-zh").reference(d.nearest) is not None


def test_edit_distance():
    assert edit_distance(["a", "b", "c"], ["a", "c"]) == 1
    assert edit_distance([], ["a", "b"]) == 2
    assert edit_distance(["a", "b"], ["b", "a"]) == 2
