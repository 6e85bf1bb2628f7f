"""Chinese typed into an English reader (or back) gets a one-click switch to the model that reads it."""

from __future__ import annotations

import pytest

from runs.model_ref import is_grammar_demo
from runs.typed_language import typed_language
from tests.ui.conftest import assert_no_exception, open_page
from transformer.storage.registry import list_models, other_direction
from ui.i18n import catalog
from ui.sidebar import MODEL_KEY


@pytest.mark.parametrize(
    ("text", "language"),
    [("我昨天和朋友去看电影", "zh"), ("I read a book", "en"), ("我喜欢 tea", "zh"), ("I like 茶", "en"), ("123 😀", None)],
)
def test_typed_language(text: str, language: str | None) -> None:
    assert typed_language(text) == language


def test_only_shipped_models_are_offered() -> None:
    assert other_direction("translate-en-zh") == "translate-zh-en"
    assert other_direction("gpt-translate-en-zh") == "translate-zh-en"
    assert other_direction("reverse") is None and other_direction("random") is None


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("model", "text", "other"),
    [("translate-en-zh", "我今天在图书馆读一本书", "translate-zh-en"), ("translate-zh-en", "i read a book", "translate-en-zh")],
)
def test_the_switch_offers_and_takes_the_other_direction(lang: str, model: str, text: str, other: str) -> None:
    at = open_page("heads", params={"model": model, "text": text}, lang=lang)
    assert_no_exception(at)
    button = at.button(key="reader_switch")
    assert button.label == catalog(lang)["reader_switch.button"].format(other=other)
    button.click().run()
    assert_no_exception(at)
    assert at.session_state[MODEL_KEY] == other
    assert at.text_input(key="text").value == text  # the text stays
    assert not [b for b in at.button if b.key == "reader_switch"]  # now the model reads what was typed


def test_no_switch_when_the_text_is_in_the_models_language() -> None:
    at = open_page("heads", params={"model": "translate-en-zh", "text": "i read a book"})
    assert not [b for b in at.button if b.key == "reader_switch"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sidebar_names_the_grammar_demos(lang: str) -> None:
    at = open_page("heads", params={"model": "reverse"}, lang=lang)
    captions = "\n".join(c.value for c in at.sidebar.caption)
    assert catalog(lang)["sidebar.grammar_demos"].split("{names}")[0] in captions
    assert "reverse" in captions and "translate-en-zh" in captions and "induction" in captions
    help_lines = at.selectbox(key="model").help.split("  \n")
    for info in list_models():  # each shipped model says what it is for, and a grammar demo says it is one
        line = next(h for h in help_lines if h.startswith(f"`{info.name}`: "))
        demo = catalog(lang)["sidebar.grammar_demo"].split("{summary}")[0]
        assert line.startswith(f"`{info.name}`: {demo}") == is_grammar_demo(info.card), line
        summary = info.card["summary_zh" if lang == "zh" else "summary"]
        assert summary.split("（")[0].split("(")[0][:10] in line.replace("\\", ""), (line, summary)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_natural_translators_card_line_gives_its_bleu_not_exact_match(lang: str) -> None:
    """Exact match is low by nature for real sentences: the sidebar states the card's BLEU and chrF instead."""
    at = open_page("heads", params={"model": "en-zh"}, lang=lang)
    captions = "\n".join(c.value for c in at.sidebar.caption)
    metrics = next(i for i in list_models() if i.name == "en-zh").card["metrics"]
    bleu, chrf = f"{metrics['heldout_bleu']:.1f}", f"{metrics['heldout_chrf']:.1f}"
    assert catalog(lang)["sidebar.quality"].format(bleu=bleu, chrf=chrf) in captions
    assert catalog(lang)["sidebar.accuracy"].split("{")[0] not in captions
