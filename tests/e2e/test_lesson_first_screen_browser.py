"""Every lesson step's first 1280 × 720 screen in projector mode (issue 39), in English and Chinese, after Reveal:
the step title, the step's figure with its tick labels and axis titles, and the revealed answer stay on the first
screen, and no axis title runs into its tick labels; typing into the sentence box keeps the title on screen."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from first_screen import LAYOUT, PROJECTOR, first_screen, layout_faults, projector_tab  # tests/e2e/first_screen.py

from runs.lesson import STEPS

pytestmark = pytest.mark.e2e
REVEAL = "[class*=st-key-lesson_reveal_] button"
HIDE = "[class*=st-key-lesson_hide_]"


@pytest.fixture(scope="module")
def screen(chromium, app_url):
    with projector_tab(chromium) as tab:
        yield tab


def reveal(tab, wait_idle) -> None:
    """Click the step's Reveal once the page has settled, until its answer is drawn (a click during a rerun can
    land on a button that rerun replaces)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    tab.wait_for_selector(f"{REVEAL}, {HIDE}", timeout=120_000)
    for attempt in range(3):
        if not tab.locator(REVEAL).count():
            return
        wait_idle(tab, start_ms=1)
        tab.locator(REVEAL).first.click()
        try:
            tab.wait_for_selector(HIDE, timeout=30_000 * (attempt + 1))
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError("Reveal never showed the answer")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_step_and_its_answer_fit_the_first_projector_screen(screen, app_url, browser_tools, lang):
    faults: dict[int, list[str]] = {}
    for n, step in enumerate(STEPS, start=1):
        screen.goto(f"{app_url}/?{urlencode({'projector': 1, 'lang': lang, 'step': n})}")
        browser_tools.wait_idle(screen)
        reveal(screen, browser_tools.wait_idle)
        browser_tools.wait_idle(screen)
        screen.wait_for_selector("[data-testid=stMain] .js-plotly-plot .main-svg", timeout=120_000)
        browser_tools.wait_settled(screen)
        layout = screen.evaluate(LAYOUT)
        assert layout["figure"] is not None and layout["answer"] is not None, (n, step, layout)
        if found := layout_faults(layout):
            faults[n] = found
        first_screen(screen, browser_tools, f"lesson-first-{lang}-{n:02d}-{step}")  # saved for review
    assert not faults, f"{PROJECTOR} ?projector=1&lang={lang}: {faults}"


def test_typing_the_sentence_keeps_the_step_title_on_screen(screen, app_url, browser_tools):
    screen.goto(f"{app_url}/?{urlencode({'projector': 1, 'step': 1})}")
    browser_tools.wait_idle(screen)
    box = screen.locator("[data-testid=stMain] [data-testid=stTextInput] input").first
    box.click()
    box.press("End")
    box.type(" Yes", delay=50)
    title = screen.locator("[data-testid=stMain] h1").first.bounding_box()
    scrolled = screen.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTop")
    assert title and title["y"] >= 0 and scrolled == 0, (title, scrolled)
    whole = box.evaluate("e => e.scrollWidth <= e.clientWidth")  # the example sentence is not cut in the box
    assert whole, "the sentence box cuts the class's sentence"
