"""The Output-distribution page in a real Chromium: the bars are drawn, "Next token" writes the top
bar's token and puts the step in the URL, the page switches to Chinese; screenshots at 1280×720."""

import pytest
from first_screen import first_screen  # tests/e2e/first_screen.py

pytestmark = pytest.mark.e2e

TEXT = "i read a book in the library today"
CHART = ".st-key-out_chart .js-plotly-plot"


def _bars(page) -> list[str]:
    """The bar labels plotly drew (y ticks), top bar first."""
    return page.locator(".st-key-out_chart g.ytick text").all_text_contents()


def _sequence(page) -> str:
    return page.locator("[data-testid=stCode]").filter(has_text="⟶").first.inner_text()


def test_step_through_greedy_in_both_languages(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    page.goto(f"{app_url}/?text=i")  # the entry page first: a deep link needs a server that ran app.py
    tools.wait_idle(page, 90_000)
    page.goto(f"{app_url}/output?model=gpt-translate-en-zh&text={TEXT.replace(' ', '+')}")
    tools.wait_idle(page, 120_000)
    page.locator(CHART).wait_for(timeout=60_000)
    top = _bars(page)[0]
    assert top == "我" and _sequence(page).strip().endswith("∅")

    page.get_by_role("button", name="Next token").click()
    tools.wait_idle(page)
    assert _sequence(page).strip().endswith("我")
    assert "steps=1" in page.url
    second = _bars(page)[0]
    page.get_by_role("button", name="Next token").click()
    tools.wait_idle(page)
    assert _sequence(page).strip().endswith(f"我 · {second}")
    first_screen(page, tools, "output-en-ui")

    page.locator("[data-testid=stSidebar]").get_by_text("简体中文", exact=True).click()
    tools.wait_idle(page, 90_000)
    assert page.locator("h1").first.inner_text().strip() == "输出分布"
    assert page.get_by_role("button", name="下一个词元").count() == 1
    assert _sequence(page).strip().endswith(f"我 · {second}")  # the steps survive the switch
    first_screen(page, tools, "output-zh-ui")
    assert not page.outside, page.outside


STEP_BUTTONS = ("out_next", "out_end", "out_reset")


def _step_buttons_whole(page, height: int) -> None:
    """Each step button reads in full ("Next token", not "Next t…") and sits above the fold."""
    for key in STEP_BUTTONS:
        button = page.locator(f".st-key-{key} button").first
        box = button.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (key, box)
        cut = button.evaluate("b => [...b.querySelectorAll('p, span, div')].some(e => e.scrollWidth > e.clientWidth + 1)")
        assert not cut, (key, button.inner_text())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_step_buttons_whole_and_on_the_first_screen(chromium, app_url, browser_tools, lang):
    """With the sidebar open (1280 wide) and in projector mode (sidebar collapsed, large type): the step
    buttons read in full and are on the first 1280 × 720 screen."""
    from first_screen import PROJECTOR, projector_tab

    with projector_tab(chromium) as page:
        page.goto(f"{app_url}/?text=i")
        browser_tools.wait_idle(page, 90_000)
        for query in (f"lang={lang}", f"lang={lang}&projector=1"):
            page.goto(f"{app_url}/output?{query}&text={TEXT.replace(' ', '+')}")
            browser_tools.wait_idle(page, 120_000)
            page.locator(CHART).wait_for(timeout=60_000)
            browser_tools.wait_settled(page)  # the projector stylesheet lands a moment after the first paint
            _step_buttons_whole(page, PROJECTOR["height"])
            if "projector" in query:  # the output and token lists at body size, not the smallest type on screen
                page.wait_for_function(
                    "() => parseFloat(getComputedStyle(document.querySelector('[data-testid=stCode] code')).fontSize) >= 22",
                    timeout=20_000,
                )
        browser_tools.screenshot(page, f"output-projector-{lang}")
