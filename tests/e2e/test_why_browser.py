"""The Why page in a real Chromium: the example pair's verdict and the heads' heat map (best cell outlined) are drawn,
in English and in Chinese; a pair of different lengths is a message, not a traceback."""

from urllib.parse import quote

import pytest

pytestmark = pytest.mark.e2e

HEADS = '[class*="st-key-chart_why_heads"]'
VERDICT = "[data-testid=stAlertContentSuccess]"


def _open(page, tools, url: str) -> None:
    page.goto(url)
    tools.wait_idle(page)
    page.wait_for_selector(VERDICT)


@pytest.mark.parametrize(("lang", "words"), [("en", "restores the most"), ("zh", "恢复得最多")])
def test_verdict_and_heads_drawn(app_page, app_url, browser_tools, lang, words):
    page, tools = app_page, browser_tools
    _open(page, tools, f"{app_url}/why?lang={lang}")
    assert words in page.locator(VERDICT).inner_text()
    chart = page.locator(HEADS)
    chart.scroll_into_view_if_needed()  # Streamlit draws a chart when it comes into view
    chart.locator(".js-plotly-plot").wait_for()
    outlined = page.evaluate("(s) => document.querySelector(s + ' .js-plotly-plot').layout.shapes.length", HEADS)
    assert outlined == 1  # the head that restores most, outlined
    assert "Traceback" not in page.content()
    tools.screenshot(page, f"why_{lang}")


def test_different_lengths_is_a_message(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    clean, corrupted = quote("The animal was too tired."), quote("The animal was far too happy.")
    page.goto(f"{app_url}/why?text={clean}&corrupt={corrupted}")
    tools.wait_idle(page)
    page.wait_for_selector("text=same number of tokens")
    assert "Traceback" not in page.content()
