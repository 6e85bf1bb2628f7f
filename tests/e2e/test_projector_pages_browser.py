"""Projector mode's first screen on every page but the lesson (issue 39 §7): at 1280 × 720 with `?projector=1`, in
English and Chinese, a page's main figure (its first), with its axis labels and title, lies wholly on the first
screen, and nothing but the header bar's `»` hint sits above the page. (The lesson's steps have their own test.)"""

from __future__ import annotations

import contextlib
from urllib.parse import urlencode

import pytest
from first_screen import PROJECTOR, first_screen, projector_tab  # tests/e2e/first_screen.py
from playwright.sync_api import TimeoutError as PlaywrightTimeout

pytestmark = pytest.mark.e2e
FIGURES = "[data-testid=stMain] .js-plotly-plot, [data-testid=stMain] [data-testid=stImage] img"
# The page and its query: Training's first screen charts only its recorded film (live training needs Start).
PAGES = {
    "architecture": {},
    "step_by_step": {},
    "heads": {},
    "atlas": {},
    "masks": {},
    "why": {},
    "positional": {},
    "layernorm": {},
    "output": {},
    "feed_forward": {},
    "training": {"tr_mode": "film"},
}
# The two tall figures have a projector layout of their own, right under the title (the text box under them): the
# architecture diagram's rows fit the screen (11 to 15 per stack), step by step shows as many keys as fit. Other models
# than the default give them other heights: the tallest diagram is a pre-norm encoder-decoder's (15 rows).
OTHER_MODELS = {
    "gpt-translate-en-zh": {"model": "gpt-translate-en-zh"},  # decoder-only, pre-norm: 12 rows
    "random-pre": {"model": "random", "r_norm": "pre"},  # encoder-decoder, pre-norm: 15 rows in the decoder
}
SLACK_PX = 2  # sub-pixel rounding of the layout


@pytest.fixture(scope="module")
def screen(chromium, app_url):
    with projector_tab(chromium) as tab:
        yield tab


def main_figure_box(tab) -> dict:
    """The first figure's box and, inside it, the extent of everything plotly drew (axis labels, titles, colour
    bar), px from the top of the window with the page scrolled to the top."""
    return tab.evaluate(
        """sel => {
            const main = document.querySelector('[data-testid=stMain]');
            main.scrollTo(0, 0);
            const fig = [...document.querySelectorAll(sel)].find(e => e.offsetParent !== null);
            if (!fig) return null;
            const box = fig.getBoundingClientRect();
            const drawn = [...fig.querySelectorAll('text')].map(t => t.getBoundingClientRect()).filter(r => r.height > 0);
            return {top: box.top, bottom: box.bottom,
                    labels_top: Math.min(box.top, ...drawn.map(r => r.top)),
                    labels_bottom: Math.max(box.bottom, ...drawn.map(r => r.bottom)),
                    scroll: main.scrollTop};
        }""",
        FIGURES,
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", list(PAGES))
def test_the_main_figure_and_its_labels_fit_the_first_projector_screen(screen, app_url, browser_tools, page, lang):
    _assert_fits(screen, app_url, browser_tools, page, {**PAGES[page], "lang": lang}, f"projector-{page}-{lang}")


@pytest.mark.parametrize(("model", "lang"), [("gpt-translate-en-zh", "zh"), ("random-pre", "en")])
@pytest.mark.parametrize("page", ["architecture", "step_by_step"])
def test_the_tall_figures_fit_on_other_models(screen, app_url, browser_tools, page, model, lang):
    _assert_fits(screen, app_url, browser_tools, page, {**OTHER_MODELS[model], "lang": lang}, f"projector-{page}-{model}")


def _assert_fits(screen, app_url, browser_tools, page: str, params: dict, shot: str) -> None:
    query = {**params, "projector": 1}
    screen.goto(f"{app_url}/{page}?{urlencode(query)}")
    browser_tools.wait_idle(screen)
    screen.wait_for_selector(FIGURES, timeout=120_000)
    browser_tools.wait_settled(screen)
    box = main_figure_box(screen)
    first_screen(screen, browser_tools, shot)
    assert box is not None and box["scroll"] == 0, box
    assert box["labels_top"] >= 0 and box["labels_bottom"] <= PROJECTOR["height"] + SLACK_PX, (
        f"/{page}?{urlencode(query)}: the main figure spans {box['labels_top']:.0f}–{box['labels_bottom']:.0f} px "
        f"with its labels; the first screen ends at {PROJECTOR['height']} px"
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_collapsed_sidebar_says_it_holds_the_model_and_the_language(chromium, app_url, browser_tools, lang):
    with projector_tab(chromium) as tab:  # its own tab: an opened sidebar is remembered by the browser
        tab.goto(f"{app_url}/output?{urlencode({'lang': lang, 'projector': 1})}")
        browser_tools.wait_idle(tab)
        button = tab.locator("[data-testid=stExpandSidebarButton]")
        other = "中文" if lang == "en" else "English"
        # The hint's stylesheet comes with the page's first run, which on a busy machine may still be under way
        # when the status widget first reads idle: wait for the hint itself, then read it.
        with contextlib.suppress(PlaywrightTimeout):
            tab.wait_for_function(
                "other => { const b = document.querySelector('[data-testid=stExpandSidebarButton]');"
                " return b && getComputedStyle(b, '::after').content.includes(other); }",
                arg=other,
                timeout=120_000,
            )
        hint = button.evaluate("b => getComputedStyle(b, '::after').content")
        assert other in hint, hint
        box = button.evaluate("b => { const r = b.getBoundingClientRect(); return [r.top, r.bottom]; }")
        assert box[1] <= 60, box  # in the header bar: no line of the page is spent on it
        button.click()  # the hint is part of the button: it opens the sidebar, with the model picker
        tab.locator("[data-testid=stSidebar] [data-testid=stSelectbox]").first.wait_for(state="visible")
