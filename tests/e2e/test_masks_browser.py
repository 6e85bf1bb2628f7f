"""The Masks page in a real Chromium: a masked cell of the softmax panel reads exactly 0 on screen,
a blocked score reads −∞, and the page is translated; screenshots in both languages."""

import pytest

pytestmark = pytest.mark.e2e

STEPS = '[class*="st-key-score_steps_decoder_0_0"]'  # the scores → masking → softmax figure
# The three panels' heatmaps are traces 0, 1 (+ its grey "−∞" overlay on blocked cells, trace 2) and 3
# (softmax); read what plotly drew there: the cell texts, and the softmax values at blocked cells.
READ_STEPS = r"""(selector) => {
  const gd = document.querySelector(selector + ' .js-plotly-plot');
  const blocked = [];
  gd.data[2].text.forEach((row, q) => row.forEach((s, k) => { if (s === '−∞') blocked.push([q, k]); }));
  const weights = gd.calcdata[3][0].z;  // the softmax values plotly drew (decoded from base64)
  return {
    blocked: blocked.length,
    weightTexts: blocked.map(([q, k]) => gd.data[3].text[q][k]),
    weights: blocked.map(([q, k]) => weights[q][k]),
    drawn: Array.from(gd.querySelectorAll('text'), t => t.textContent),
  };
}"""


def _show_steps(page) -> None:
    steps = page.locator(STEPS)
    steps.scroll_into_view_if_needed()  # Streamlit draws a chart when it comes into view
    steps.locator(".js-plotly-plot").wait_for(timeout=30_000)


def _check_masked_cells(page) -> None:
    cells = page.evaluate(READ_STEPS, STEPS)
    assert cells["blocked"] > 0, "the decoder's causal mask blocks the upper triangle"
    assert set(cells["weights"]) == {0}
    assert set(cells["weightTexts"]) == {"0"}
    assert cells["drawn"].count("−∞") == cells["blocked"]  # the masked-scores panel, as drawn
    assert cells["drawn"].count("0") >= cells["blocked"]  # and each blocked weight drawn as "0"


def _full_screenshot(page, tools, name: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 5200})  # the whole page in one picture
    tools.wait_idle(page)
    assert tools.screenshot(page, name).stat().st_size > 0
    page.set_viewport_size({"width": 1400, "height": 1000})


def test_masked_cells_read_zero_in_both_languages(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    # The entry page first (with a one-letter text, so it is quick): a deep link to a server that
    # never ran app.py would open the page outside st.navigation (Streamlit's legacy pages/ discovery).
    page.goto(f"{app_url}/?text=i")
    tools.wait_idle(page, 90_000)
    page.goto(f"{app_url}/masks?kind=decoder&layer=0&head=0")
    tools.wait_idle(page, 90_000)
    _show_steps(page)
    _check_masked_cells(page)
    _full_screenshot(page, tools, "masks-en-ui")

    page.locator("[data-testid=stSidebar]").get_by_text("简体中文", exact=True).click()
    tools.wait_idle(page, 90_000)
    assert page.locator("h1").first.inner_text().strip() == "掩码"
    assert page.get_by_text("3 · 一个注意力头").count() > 0
    _show_steps(page)
    _check_masked_cells(page)
    _full_screenshot(page, tools, "masks-zh-ui")
