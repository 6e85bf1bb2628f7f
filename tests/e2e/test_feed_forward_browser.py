"""The Feed-forward page in a real Chromium: the parameter share, the ReLU heatmap with a share per
token, and the residual bars are drawn; the page switches to Chinese; screenshots at 1280×720."""

import re

import pytest
from first_screen import first_screen  # tests/e2e/first_screen.py

pytestmark = pytest.mark.e2e

TEXT = "i read a book"


def _drawn(page, key: str) -> list[str]:
    chart = page.locator(f".st-key-{key}")
    chart.scroll_into_view_if_needed()  # Streamlit draws a chart when it comes into view
    chart.locator(".js-plotly-plot").wait_for(timeout=60_000)
    return chart.locator("text").all_text_contents()


def test_feed_forward_page_in_both_languages(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    page.goto(f"{app_url}/?text=i")
    tools.wait_idle(page, 90_000)
    page.goto(f"{app_url}/feed_forward?model=translate-en-zh&text={TEXT.replace(' ', '+')}")
    tools.wait_idle(page, 120_000)
    metric = page.locator("[data-testid=stMetricValue]").first.inner_text()
    assert re.fullmatch(r"\d+%", metric.strip()), metric
    relu = _drawn(page, "ffn_relu")
    shares = [s for s in relu if re.fullmatch(r"\d+%", s)]
    assert len(shares) >= len(TEXT.split()), relu  # one share of firing units per token
    residual = _drawn(page, "ffn_residual")
    assert "feed-forward" in residual and "self-attention" in residual
    first_screen(page, tools, "feed-forward-en-ui")

    page.locator("[data-testid=stSidebar]").get_by_text("简体中文", exact=True).click()
    tools.wait_idle(page, 90_000)
    assert page.locator("h1").first.inner_text().strip() == "前馈网络层"
    assert "前馈网络" in _drawn(page, "ffn_residual")
    first_screen(page, tools, "feed-forward-zh-ui")
    assert not page.outside, page.outside
