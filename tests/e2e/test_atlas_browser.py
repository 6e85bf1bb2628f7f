"""The corpus page in a real Chromium: a head's top sentences drawn small and their button opening the heads page on
that sentence with that head, the head finder's filter from a link, and the map of queries and keys drawn with WebGL;
screenshots at 1280 × 720 on the projector and at 390 px, in both languages."""

import pytest

pytestmark = pytest.mark.e2e


def _wait_chart(page, key: str) -> None:
    chart = page.locator(f".st-key-{key}")
    chart.scroll_into_view_if_needed()  # Streamlit draws a chart when it comes into view
    chart.locator(".js-plotly-plot").wait_for(timeout=120_000)


def test_atlas_page_head_finder_and_map(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    page.goto(f"{app_url}/atlas?model=translate-en-zh&a_kind=encoder&a_layer=1&a_head=2&text=i+read+a+book")
    tools.wait_idle(page)
    _wait_chart(page, "atlas_top_0")
    assert page.get_by_text("Heads across many sentences").count() >= 1
    assert page.locator(".st-key-atlas_top_0 .heatmaplayer, .st-key-atlas_top_0 image").count() >= 1
    top_text = page.locator(".st-key-atlas_open_0").locator("xpath=..").locator("..").inner_text()
    assert top_text

    tools.wait_settled(page)
    page.locator(".st-key-atlas_open_0 button").first.click()  # opens the heads page on that sentence, that head
    page.wait_for_url("**/heads?**", timeout=120_000)
    tools.wait_idle(page)
    url = page.url
    assert "kind=encoder" in url and "head=2" in url and "text=" in url

    page.goto(f"{app_url}/atlas?model=translate-en-zh&atlas_view=finder&f_score=diagonal&f_min=0.50&lang=zh")
    tools.wait_idle(page)
    page.locator("[data-testid=stDataFrame]").first.wait_for(timeout=60_000)
    assert page.get_by_text("头查找器").count() >= 1

    page.goto(f"{app_url}/atlas?model=translate-en-zh&atlas_view=map&a_kind=encoder&a_layer=2&a_head=1&text=i+read+a+book")
    tools.wait_idle(page)
    _wait_chart(page, "atlas_qk_chart")
    assert page.locator(".st-key-atlas_qk_chart canvas").count() >= 1  # Scattergl draws on a WebGL canvas
    assert not page.outside, page.outside


@pytest.mark.parametrize(
    ("width", "height", "query", "name"),
    [
        (1280, 720, "projector=1", "atlas-projector-en"),
        (1280, 720, "projector=1&lang=zh", "atlas-projector-zh"),
        (390, 844, "", "atlas-phone-en"),
        (390, 844, "lang=zh", "atlas-phone-zh"),
    ],
)
def test_atlas_screenshots(app_page, app_url, browser_tools, width, height, query, name):
    page, tools = app_page, browser_tools
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{app_url}/atlas?model=en-zh&a_kind=encoder&a_layer=1&a_head=2&{query}")
    tools.wait_idle(page)
    _wait_chart(page, "atlas_top_0")
    tools.wait_settled(page)
    tools.screenshot(page, name)
    page.goto(f"{app_url}/atlas?model=en-zh&atlas_view=map&a_kind=encoder&a_layer=1&a_head=2&text=I+like+tea.&{query}")
    tools.wait_idle(page)
    _wait_chart(page, "atlas_qk_chart")
    tools.wait_settled(page)
    tools.screenshot(page, f"{name}-map")
    page.set_viewport_size({"width": 1400, "height": 1000})
