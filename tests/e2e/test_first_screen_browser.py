"""The first 1280 × 720 screen of every lab page shows a chart (issue 11), in both languages, with and
without projector mode; a screenshot of each first screen (and of each whole page) is saved for review."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from first_screen import PROJECTOR, first_screen, projector_tab  # tests/e2e/first_screen.py

from app import PAGES

pytestmark = pytest.mark.e2e
# Every page but the lesson (its own test checks each step) and Training, whose first screen is the form
# that starts a run: it charts nothing before the class presses Start (and no shipped model has a film yet).
LAB_PAGES = [name for name, _ in PAGES[1:] if name != "training"]
FIGURES = "[data-testid=stMain] .js-plotly-plot, [data-testid=stMain] [data-testid=stImage] img"
VISIBLE_PX = 200  # "shows a chart": this much of it (or all of a shorter one) above the fold, not a sliver


@pytest.fixture(scope="module")
def screen(chromium, app_url):
    with projector_tab(chromium) as tab:
        yield tab


def figure_tops(tab) -> list[dict]:
    """Top and height (px, from the top of the window) of every figure in the page, main area scrolled to 0."""
    return tab.evaluate(
        """sel => {
            const main = document.querySelector('[data-testid=stMain]');
            main.scrollTo(0, 0);
            const shown = [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null);
            return shown.map(e => ({...e.getBoundingClientRect().toJSON(), scroll: main.scrollTop}));
        }""",
        FIGURES,
    )


@pytest.mark.parametrize("projector", [0, 1])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", LAB_PAGES)
def test_first_screen_shows_a_chart(screen, app_url, browser_tools, page, lang, projector):
    query = {"lang": lang, **({"projector": 1} if projector else {})}
    screen.goto(f"{app_url}/{page}?{urlencode(query)}")
    browser_tools.wait_idle(screen)
    screen.wait_for_selector(FIGURES, timeout=120_000)
    browser_tools.wait_settled(screen)  # plotly lays out
    tops = figure_tops(screen)
    height = PROJECTOR["height"]
    shown = [f for f in tops if f["scroll"] == 0 and 0 <= f["top"] <= height - min(VISIBLE_PX, f["height"])]
    first_screen(screen, browser_tools, f"first-{page}-{lang}{'-projector' if projector else ''}")
    assert shown, f"/{page}?{urlencode(query)}: no chart starts on the first {PROJECTOR} screen; figure tops: {tops}"
