"""The head-detector section of the heads page in a real Chromium: the score grids are drawn with the
top heads outlined (starred too where the cells are wide enough), in both languages; screenshots at 1280 wide."""

import pytest
from first_screen import first_screen  # tests/e2e/first_screen.py

pytestmark = pytest.mark.e2e


def _grid_text(page, kind: str) -> list[str]:
    chart = page.locator(f".st-key-detectors_{kind}")
    chart.scroll_into_view_if_needed()  # Streamlit draws a chart when it comes into view
    chart.locator(".js-plotly-plot").wait_for(timeout=60_000)
    return chart.locator("text").all_text_contents()


def test_detector_grids_in_both_languages(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    page.goto(f"{app_url}/heads?model=gpt-translate-en-zh&text=i+read+a+book")
    tools.wait_idle(page, 120_000)
    drawn = _grid_text(page, "decoder")
    assert "previous token" in drawn and "induction" in drawn
    outlines = page.locator(".st-key-detectors_decoder .shapelayer path").count()
    assert outlines > 0 or any(s.startswith("★") for s in drawn), "the best heads are marked"
    assert page.get_by_text("This model has no encoder, so it has no cross-attention").count() == 1
    first_screen(page, tools, "heads-detectors-en-ui")

    page.locator("[data-testid=stSidebar]").get_by_text("简体中文", exact=True).click()
    tools.wait_idle(page, 90_000)
    assert "归纳" in _grid_text(page, "decoder")
    first_screen(page, tools, "heads-detectors-zh-ui")
    assert not page.outside, page.outside
