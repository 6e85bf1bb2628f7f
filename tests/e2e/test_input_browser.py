"""The shared input area in a real Chromium at projector size (1280×720), in English and in Chinese.

A sentence outside the grammar: the problem is named, the nearest sentence is offered and "use it" puts it in
the box; the random-sentence button and the "what can I type?" panel are on the first screen; `?lang=zh`
opens the Chinese UI and the link keeps the code. Screenshots: tests/e2e/screenshots/input-*.png.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from first_screen import projector_tab  # tests/e2e/first_screen.py

from transformer.tasks import diagnose, get_task
from ui.i18n import catalog

pytestmark = pytest.mark.e2e
SHOTS = Path(__file__).resolve().parent / "screenshots"  # git-ignored; the viewport as a projector shows it

CASES = [  # (UI language, model, a sentence outside its grammar)
    ("en", "translate-en-zh", "I eat red apples."),
    ("zh", "translate-zh-en", "我吃红色的苹果。"),
]


@pytest.fixture
def projector(chromium, app_url):
    with projector_tab(chromium) as tab:
        yield tab


def _in_view(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]


@pytest.mark.parametrize(("lang", "model", "text"), CASES)
def test_the_input_area_at_projector_size(projector, app_url, browser_tools, lang, model, text):
    page, tools, strings = projector, browser_tools, catalog(lang)
    page.goto(f"{app_url}/heads?lang={lang}&model={model}&text={quote(text)}")
    page.get_by_role("heading", name=strings["heads.title"], exact=True).wait_for(timeout=180_000)
    tools.wait_idle(page)
    assert f"lang={lang}" in page.url or lang == "en"

    box = page.locator(".st-key-text input")
    assert _in_view(page, box) and _in_view(page, page.get_by_role("button", name=strings["grammar.random"]))
    panel = page.get_by_text(strings["grammar.what_can_i_type"], exact=True)
    assert _in_view(page, panel)
    page.screenshot(path=str(SHOTS / f"input-{lang}-first-screen.png"))

    diagnosis = diagnose(get_task(model), text)
    problem = diagnosis.problems[0]
    page.get_by_text(strings[f"grammar.problem_{problem.kind}"].format(**problem.params)).wait_for()
    use_it = page.get_by_role("button", name=strings["grammar.use_it"])
    use_it.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"input-{lang}-diagnosis.png"))
    use_it.click()
    tools.wait_idle(page)
    assert box.input_value() == diagnosis.nearest
    page.get_by_text(strings["input.out_of_grammar"][:20]).wait_for(state="detached")

    panel.click()  # open "what can I type?"
    page.get_by_role("tab", name=strings["grammar.tab_words"]).click()
    page.get_by_role("tab", name=strings["grammar.tab_combinations"]).wait_for()
    page.screenshot(path=str(SHOTS / f"input-{lang}-panel.png"))


def test_switching_language_writes_the_code_and_survives_a_page_change(projector, app_url, browser_tools):
    page, tools = projector, browser_tools
    page.goto(f"{app_url}/heads?model=translate-en-zh")
    page.get_by_role("heading", name=catalog("en")["heads.title"], exact=True).wait_for(timeout=180_000)
    tools.wait_idle(page)
    page.locator(".st-key-lang button", has_text="简体中文").click()
    page.get_by_role("heading", name=catalog("zh")["heads.title"], exact=True).wait_for()
    tools.wait_idle(page)
    assert "lang=zh" in page.url and "%E7%AE%80" not in page.url  # the code, not the label
    page.locator("[data-testid=stSidebarNav]").get_by_text(catalog("zh")["nav.masks"]).click()
    page.get_by_role("heading", name=catalog("zh")["masks.title"], exact=True).wait_for()
    tools.wait_idle(page)
    assert "lang=zh" in page.url
    page.reload()
    page.get_by_role("heading", name=catalog("zh")["masks.title"], exact=True).wait_for(timeout=180_000)
