"""`runs.model_kind`: what a model is, read from its config and card, never from its name."""

from __future__ import annotations

import dataclasses

import pytest

from runs.model_kind import model_kind
from runs.model_ref import ModelRef, load_bundle

EXPECTED = {  # name → (trained, task family, architecture, label smoothing, judged)
    "translate-en-zh": (True, "translation", "encoder-decoder", 0.1, True),
    "translate-zh-en": (True, "translation", "encoder-decoder", 0.1, True),
    "reverse": (True, "reverse", "encoder-decoder", 0.1, True),
    "gpt-translate-en-zh": (True, "translation", "decoder-only", 0.1, True),
    "induction": (True, "induction", "decoder-only", 0.0, True),
    "random": (False, None, "encoder-decoder", None, False),
}


@pytest.mark.parametrize(("name", "expected"), EXPECTED.items())
def test_each_model_is_described_by_what_it_is(name, expected):
    kind = model_kind(load_bundle(ModelRef.parse(name)))
    assert (kind.trained, kind.task, kind.architecture, kind.label_smoothing, kind.judged) == expected


def test_a_renamed_or_unknown_model_is_described_by_its_card_not_its_name():
    bundle = load_bundle(ModelRef.parse("reverse"))
    renamed = dataclasses.replace(bundle, name="translate-en-zh")  # the name says translator: the card says reverse
    assert model_kind(renamed).task == "reverse"
    language_model = dataclasses.replace(bundle, card={"summary": "a language model"})  # trained, no task with rules
    kind = model_kind(language_model)
    assert kind.trained and kind.task == "completion" and not kind.judged and kind.label_smoothing is None


def test_what_each_architecture_has():
    random_decoder = model_kind(load_bundle(ModelRef.random(architecture="decoder-only")))
    assert not random_decoder.trained and random_decoder.wording == "untrained"
    assert random_decoder.has_decoder and not random_decoder.has_encoder and not random_decoder.has_cross
    assert not random_decoder.generates  # untrained models are teacher-forced
