"""Every page works for decoder-only models — the shipped `gpt-translate-en-zh` and a random one — and
says which parts of the Transformer the model does not have."""

import pytest

from tests.ui.conftest import app_test, assert_no_exception, figures, open_page

PAGES = ["heads", "masks", "positional", "layernorm", "step_by_step", "output", "feed_forward"]
MODELS = {
    "gpt": {"model": "gpt-translate-en-zh"},
    "induction": {"model": "induction"},
    "random": {"model": "random", "r_arch": "decoder-only"},
}
SAYS_NO_ENCODER = ("no encoder", "no cross-attention")


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("page", PAGES)
def test_page_works_and_says_what_is_missing(page, model):
    at = open_page(page, text="i read a book", lang="en", **MODELS[model])
    assert figures(at), "the page drew its figures"
    assert not at.error, [e.value for e in at.error]
    notes = " ".join(e.value for e in [*at.caption, *at.info, *at.markdown]).lower()
    assert any(s in notes for s in SAYS_NO_ENCODER), page
    kinds = [k for k in figures(at) if "encoder" in k or "cross" in k]
    assert not kinds, f"{page} drew encoder or cross-attention figures for a decoder-only model: {kinds}"


def test_gpt_translator_completes_the_prompt_with_the_translation():
    at = open_page("heads", model="gpt-translate-en-zh", text="i read a book in the library today", lang="en")
    shown = [c.value for c in at.code]  # the output block sits among the grammar panel's examples
    assert "我 今天 在 图书馆 读 一 本 书" in shown, shown  # the model read its "=" suffix and translated
    assert at.success, "the verdict against the task's reference"


def test_architecture_page_for_the_gpt_translator():
    at = app_test("architecture", timeout=300)
    at.run()
    at.selectbox(key="model").set_value("gpt-translate-en-zh").run()
    assert_no_exception(at)
    text = " ".join(m.value for m in at.markdown).lower()
    assert "decoder-only" in text and "no cross" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_endless_continuation_is_judged_on_the_answers_length_and_the_page_says_so(lang):
    from runs.model_ref import ModelRef, load_bundle
    from ui.i18n import catalog

    example = str(load_bundle(ModelRef.parse("induction")).card["example"])
    at = open_page("heads", model="induction", text=example, lang=lang)
    assert at.success and not at.error, "the card's own example reads correct"
    said = catalog(lang)["input.judged_prefix"].split("{n}")[0]
    assert any(c.value.startswith(said) for c in at.caption), [c.value for c in at.caption]
