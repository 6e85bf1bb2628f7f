"""Issue 20 in a real Chromium: a class's own sentence, typed into the natural translators, reads without `<unk>`.

On the heads page (both natural models) and in the lesson (its default model), in both UI languages: the
sentence is typed into the box, the page shows a translation in the other language, no token anywhere on the
page is `<unk>`, and a sentence outside the corpus gets "no reference: judge it yourself", never "wrong".
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from transformer.storage.registry import DEFAULT_MODEL, MODELS_DIR
from ui.i18n import catalog

pytestmark = pytest.mark.e2e
ENGLISH = "The animal didn't cross the street because it was too tired."
CHINESE = "我昨天和朋友去看电影，因为下雨了。"
HAN = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]{2}")
CASES = [(lang, model, text) for model, text in (("en-zh", ENGLISH), ("zh-en", CHINESE)) for lang in ("en", "zh")]
MAIN = "[data-testid=stMain]"


def _typed(page, tools, text: str) -> None:
    box = page.locator(".st-key-text input")
    box.fill(text)
    box.press("Enter")  # a text_input commits on Enter
    page.wait_for_function("t => document.querySelector('.st-key-text input').value === t", arg=text)
    tools.wait_idle(page, 120_000)


def _output(page, label: str) -> str:
    """The code block right under the page's "Output" label."""
    title = page.locator("[data-testid=stMarkdownContainer]", has_text=label).first
    return title.locator("xpath=following::*[@data-testid='stCode'][1]").inner_text().strip()


@pytest.mark.skipif(not (MODELS_DIR / "zh-en").is_dir(), reason="the natural translators are not shipped")
@pytest.mark.parametrize(("lang", "model", "text"), CASES)
def test_a_natural_sentence_on_the_heads_page(app_page, app_url, browser_tools, lang, model, text):
    page, tools, strings = app_page, browser_tools, catalog(lang)
    page.goto(f"{app_url}/heads?lang={lang}&model={model}&text={quote('x')}")
    page.get_by_role("heading", name=strings["heads.title"], exact=True).wait_for(timeout=180_000)
    tools.wait_idle(page)
    _typed(page, tools, text)
    page.get_by_text(strings["input.no_reference"][:24]).first.wait_for(timeout=60_000)  # not in the corpus: no verdict
    written = _output(page, strings["input.output"])
    assert (HAN if model == "en-zh" else LATIN).search(written), written  # a translation, in the other language
    assert "<unk>" not in page.locator(MAIN).inner_text()
    ticks = page.locator(".st-key-head_fig g.xtick text, .st-key-head_fig g.ytick text").all_text_contents()
    assert ticks and not any("<unk>" in tick for tick in ticks), ticks
    tools.screenshot(page, f"natural-heads-{model}-{lang}")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_natural_sentence_in_the_lesson(app_page, app_url, browser_tools, lang):
    page, tools, strings = app_page, browser_tools, catalog(lang)
    page.goto(f"{app_url}/?lang={lang}")
    tools.wait_idle(page, 180_000)
    assert DEFAULT_MODEL == "en-zh"  # `/` opens the lesson on the natural English→Chinese translator
    _typed(page, tools, ENGLISH)
    page.locator(".st-key-lesson_reveal_task button").click()
    tools.wait_idle(page)
    answer = page.locator(f"{MAIN} [data-testid=stAlertContentSuccess]").first  # the revealed answer
    answer.wait_for(timeout=60_000)
    said = answer.inner_text()
    # judge it yourself (the catalog's full stop after the output goes where the output ends its own sentence)
    assert strings["lesson.task_answer_corpus_none"].split("}", 1)[1].split("{")[0].lstrip(".。 ")[:12] in said, said
    written = answer.locator("code").first.inner_text()  # the model's output, as inline code
    assert HAN.search(written) and "<unk>" not in written, written
    assert "<unk>" not in page.locator(MAIN).inner_text()
    tools.screenshot(page, f"natural-lesson-{lang}")
