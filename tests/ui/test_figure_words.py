"""Each figure's words come from one builder in ui/figure_words.py; in English it gives the class's defaults.

The defaults of a `*Text` class are what tests and benchmarks draw with, so they must be the English
catalog's words (fields without a default, such as a model's box names, come from the model); and a
Chinese template must keep the placeholders the figure fills in (`{n}`, `{h}`).
"""

from __future__ import annotations

import dataclasses
import inspect
import string
import typing

import pytest
import streamlit as st

import ui.figure_words
from transformer.config import TransformerConfig
from ui.figure_words import architecture_text, detector_text, metric_text
from ui.i18n import catalog
from viz.architecture import architecture_boxes

CONFIG = TransformerConfig()  # the paper's encoder-decoder: every box of the diagram
SCORES = [key.removeprefix("detectors.name_") for key in catalog("en") if key.startswith("detectors.name_")]
ARGUMENTS = {
    architecture_text: (CONFIG, architecture_boxes(CONFIG.is_encoder_decoder, CONFIG.norm_position)),
    detector_text: (SCORES,),
    metric_text: ("previous",),
}
BUILDERS = [
    fn
    for _, fn in inspect.getmembers(ui.figure_words, inspect.isfunction)
    if fn.__module__ == ui.figure_words.__name__ and not fn.__name__.startswith("_")
]


def _built(builder, lang: str):
    st.session_state["lang"] = lang  # bare mode: t() reads the language from here
    try:
        return builder(*ARGUMENTS.get(builder, ()))
    finally:
        del st.session_state["lang"]


def _placeholders(words: object) -> set[str]:
    texts = words.values() if isinstance(words, typing.Mapping) else [words]
    return {name for text in texts for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_every_builder_builds_a_frozen_text_class():
    assert BUILDERS
    for builder in BUILDERS:
        cls = typing.get_type_hints(builder)["return"]
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, builder.__name__
        assert cls.__name__.endswith("Text"), builder.__name__


@pytest.mark.parametrize("builder", BUILDERS, ids=lambda fn: fn.__name__)
def test_english_words_are_the_defaults(builder):
    english = _built(builder, "en")
    fields = dataclasses.fields(english)  # a default "" is a title the page gives each figure: no English word
    defaults = {f.name: f.default for f in fields if f.default not in (dataclasses.MISSING, "")}
    assert defaults  # the English words live in the class, once
    assert {name: getattr(english, name) for name in defaults} == defaults


@pytest.mark.parametrize("builder", BUILDERS, ids=lambda fn: fn.__name__)
def test_chinese_words_keep_the_placeholders(builder):
    english, chinese = _built(builder, "en"), _built(builder, "zh")
    for field in dataclasses.fields(english):
        en, zh = getattr(english, field.name), getattr(chinese, field.name)
        assert _placeholders(zh) == _placeholders(en), field.name
        if en:
            assert zh, field.name
