"""A single corpus lookup (`references`, `is_heldout`) answers exactly as the full reference table does, without
building it: the home page's first figure judges one sentence, and the 60,000-entry table was the largest piece of
that first run after the model's load (issue 39 §9, benchmarks/README.md §5b)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from transformer.tasks import get_task
from transformer.tasks.corpus import normal


@pytest.mark.parametrize("name", ["en-zh", "zh-en"])
def test_one_lookup_agrees_with_the_whole_table_and_leaves_it_unbuilt(name):
    full = get_task(name)
    fast = dataclasses.replace(full)  # its own instance: nothing cached yet
    sources = fast._sources
    rng = random.Random(0)
    queries = rng.sample(sources, 400) + [sources[i] for ids in fast._unusual.values() for i in ids]
    queries += [f"  {q} " for q in queries[:50]] + [q.replace(" ", "\u00a0 ") for q in queries[:50]]  # typed untidily
    queries += ["a sentence that is not in the corpus", "", "ﬁ", "e\u0301"]
    for query in queries:
        expected = full._references.get(normal(query))
        assert fast.references(query) == (expected[0] if expected else ()), query
        assert fast.is_heldout(query) == (expected is not None and expected[1]), query
    assert "_references" not in fast.__dict__  # answered without the table


@pytest.mark.parametrize("name", ["en-zh", "zh-en"])
def test_the_unusual_sources_are_exactly_those_normal_changes(name):
    task = get_task(name)
    changed = {i for i, source in enumerate(task._sources) if normal(source) != source}
    assert {i for ids in task._unusual.values() for i in ids} == changed
    assert all(normal(task._sources[i]) == key for key, ids in task._unusual.items() for i in ids)


def test_every_kind_of_untidy_source_is_found_and_matched():
    from transformer.tasks.corpus import CorpusPair

    untidy = [" lead", "trail ", "dou  ble", "tab\there", "nb\u00a0sp", "ideo\u3000space", "e\u0301", "ok line", "ok", "x\u2009y"]
    task = dataclasses.replace(get_task("en-zh"))
    task.__dict__["pairs"] = tuple(CorpusPair(f"译{i}", en, False) for i, en in enumerate(untidy))
    changed = {i for i, source in enumerate(untidy) if normal(source) != source}
    assert {i for ids in task._unusual.values() for i in ids} == changed == set(range(len(untidy))) - {7, 8}
    for i, source in enumerate(untidy):
        assert task.references(normal(source)) == (f"译{i}",), source
