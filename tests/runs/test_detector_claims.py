"""The head-detectors section's sentences, stated against their numbers on every shipped model, a random model and
converted GPT-2 and BERT folders, in both languages (issue 39 §3: on the trained `en-zh` it said "typical of
untrained weights" and "no task with a known word alignment" under a page that opened on its card's alignment head).
"""

from __future__ import annotations

import numpy as np
import pytest

from runs.detector_claims import alignment_claim, highest, none_marked_claim
from runs.head_detectors import detector_table
from runs.heads import opening
from runs.model_ref import ModelRef, is_untrained, load_bundle, shipped_models
from transformer.storage.registry import load_model
from ui.i18n import catalog
from viz.detector_figure import MARK_AT_LEAST, marked_heads

UNTRAINED_WORDS = ("untrained", "未训练", "没有训练")


@pytest.fixture(scope="module")
def models(pretrained_dir) -> list[tuple[str, object]]:
    found = [(name, load_bundle(ModelRef.parse(name))) for name in shipped_models()]
    found.append(("random", load_bundle(ModelRef.random())))
    return found + [(f"tiny-{family}", load_model(pretrained_dir / f"tiny-{family}")) for family in ("gpt2", "bert")]


def _say(words: dict[str, str], key: str, params: dict) -> str:
    """What the page renders (`ui.pages.heads.detectors.say`): layers and heads from 1, the score by its name."""
    shown = {**params}
    for name in ("layer", "head"):
        if name in shown:
            shown[name] += 1
    if "name" in shown:
        shown["name"] = words[f"detectors.name_{shown['name']}"]
    return words[key].format(**shown)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_head_marked_names_the_highest_and_says_untrained_only_of_an_untrained_model(models, lang):
    words, met = catalog(lang), set()
    for name, bundle in models:
        table = detector_table(bundle)
        for kind, scores in table.scores.items():
            if any(marked_heads(scores).values()):
                continue  # the section lists the marked heads instead
            claim = none_marked_claim(bundle, scores)
            score, layer, head, value = highest(scores)
            assert value == np.nanmax(scores.scores) < MARK_AT_LEAST, (name, kind)
            assert scores.score(score)[layer, head] == value
            sentence = _say(words, claim.key, claim.params)
            assert f"{value:.2f}" in sentence and str(layer + 1) in sentence and words[f"detectors.name_{score}"] in sentence
            said_untrained = any(w in sentence for w in UNTRAINED_WORDS)
            assert said_untrained == is_untrained(bundle), (name, kind, sentence)
            met.add((is_untrained(bundle), kind))
    assert (False, "cross") in met  # a trained translator's cross-attention reaches no mark (en-zh: its sink score)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_alignment_sentence_agrees_with_the_card_and_the_heads_page_opening(models, lang):
    words, met = catalog(lang), set()
    for name, bundle in models:
        table = detector_table(bundle)
        if "cross" not in table.kinds:
            continue
        claim = alignment_claim(bundle, table)
        sentence = _say(words, claim.key, claim.params)
        met.add(claim.key)
        if claim.key == "detectors.alignment_measured":
            assert claim.params["n"] == table.alignment_examples > 0
            assert "source_alignment" in table.scores["cross"].names
        elif claim.key == "detectors.alignment_card":
            opened = opening(bundle, ["cross"], None)  # the head the heads page opens on, and its number
            assert opened.reason == "alignment", name
            assert (claim.params["layer"], claim.params["head"]) == (opened.layer, opened.head)
            assert claim.params["score"] == opened.score
            assert claim.params["n"] == bundle.card["attention"]["n_examples"]
            assert f"{opened.score:.0%}" in sentence and str(opened.layer + 1) in sentence
        else:
            assert table.alignment_examples == 0 and "best_cross_attention_head" not in bundle.card.get("attention", {})
    assert {"detectors.alignment_measured", "detectors.alignment_card", "detectors.no_alignment"} <= met


def test_no_detectors_sentence_is_written_for_one_kind_of_model():
    for lang in ("en", "zh"):
        for key, sentence in catalog(lang).items():
            if key.startswith("detectors.") and key != "detectors.none_marked_untrained":
                assert not any(w in sentence for w in UNTRAINED_WORDS), (lang, key, sentence)
