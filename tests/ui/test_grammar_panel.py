"""The input help's "reads" line claims nothing the model's tokenizer does not read (issue 10 §4): a character
model's set is described from its own vocabulary (Chinese characters only when it has them) and its length is
the one it was trained on; a translator's line promises ignored punctuation only when its tokenizer ignores it."""

from __future__ import annotations

import re

import pytest
import streamlit as st

from runs.reference import model_task
from transformer.storage.registry import list_models, load_model
from transformer.tasks import model_input_description
from transformer.tasks.corpus import NaturalTranslation
from transformer.tasks.describe import trained_max_len
from transformer.text.tokenizer import SENTENCE_PUNCTUATION
from ui.grammar_panel import reads_line
from ui.i18n import catalog

MODELS = [info.name for info in list_models()]
# CJK unified ideographs and extension A, compatibility ideographs, extensions B-G (level 2 has 𠳐 𥻗 𬉼)
HANZI = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]$")
HANZI_WORD = {"en": "Chinese characters", "zh": "汉字"}


def _line(name: str, lang: str) -> str:
    st.session_state["lang"] = lang  # bare mode: t() reads the language from here
    try:
        return reads_line(load_model(name))
    finally:
        del st.session_state["lang"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", MODELS)
def test_the_reads_line_matches_the_models_tokenizer(name, lang):
    bundle = load_model(name)
    reader = bundle.source_tokenizer or bundle.target_tokenizer
    symbols = reader.vocab[4:]  # after the four specials
    line = _line(name, lang)
    desc = model_input_description(bundle)
    task = model_task(bundle)
    if isinstance(task, NaturalTranslation):  # any text of its language, up to the trained length
        unit = "english_text" if task.direction == "en-zh" else "chinese_text"
        assert line == catalog(lang)[f"grammar.reads_{unit}"].format(n=task.max_len, count=f"{len(symbols):,}"), line
        return
    if reader.level == "char":
        counted = line[line.index("(" if lang == "en" else "（") :]
        numbers = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", counted)]
        length = trained_max_len(bundle.card) or model_task(bundle).max_len
        assert numbers[-1] == length and length < bundle.config.max_len  # the trained length, which the model can read
        hanzi = sum(bool(HANZI.match(s)) for s in symbols)
        assert (HANZI_WORD[lang] in line) == (hanzi > 0), line
        assert str(len(symbols)) in line.replace(",", "")
        assert sum(numbers[:-1]) + (" " in symbols) == len(symbols), line  # the groups add up to the whole set
        if hanzi:
            assert f"{hanzi:,}" in line
        letters = sum(s.isascii() and s.isalpha() for s in symbols)
        assert (f"{letters}" in line) == (letters > 0)
        assert reader.unknown("".join(symbols)) == []
    else:
        assert f"{desc.max_symbols}" in line
        marks = SENTENCE_PUNCTUATION[:5] if desc.language == "en" else SENTENCE_PUNCTUATION[5:]
        assert all(mark in line for mark in marks)  # the line promises these are ignored ...
        assert set(SENTENCE_PUNCTUATION) <= set(getattr(reader, "ignored", ""))  # ... and the tokenizer ignores them
        assert all(reader.unknown(word) == [] for word in desc.symbols)


def test_induction_claims_no_chinese_and_its_trained_length():
    """Its vocabulary is 62 letters and digits; it trained on sequences of up to max_lead + 2 · max_half symbols."""
    data = load_model("induction").card["data"]
    line = _line("induction", "en")
    assert "Chinese" not in line and "3,500" not in line
    assert f"up to {data['max_lead'] + 2 * data['max_half']} long" in line
    assert "52 Latin letters" in line and "10 digits" in line


@pytest.mark.parametrize(("lang", "marks"), [("en", "15 Chinese punctuation marks"), ("zh", "15 个中文标点符号")])
def test_reverse_names_its_chinese_punctuation(lang, marks):
    """，。？！、；：“”‘’（）《》 are a group of their own, not "other characters"."""
    line = _line("reverse", lang)
    assert marks in line and "6,501" in line  # levels 1 and 2 and 闫
    assert catalog(lang)["grammar.charset_other"].split("}", 1)[1] not in line
