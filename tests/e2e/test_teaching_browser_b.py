"""The Attention-step-by-step and Architecture pages in a real Chromium: every figure is drawn,
nothing raises, in the English UI (trained translator, English text) and from a shared Chinese link
(random model, Chinese text, a chosen head); the d_k slider redraws the experiment and clicking a
box of the diagram opens its page; screenshots saved.

The tests share one tab and run in file order.
"""

from urllib.parse import urlencode

import pytest
from teaching_pages import CHINESE, PAGES  # tests/e2e/teaching_pages.py

pytestmark = pytest.mark.e2e

TALL = {"width": 1400, "height": 6000}  # the whole page in view: Streamlit draws charts as they scroll in
SHARED = {"lang": "简体中文", "model": "random", "text": CHINESE}  # what a teacher's copied link carries


def _visit(page, tools, url: str, name: str, title: str, **params: str) -> None:
    """Open a page (by its link), wait for its title, every figure and the end of the run; nothing raised."""
    page.set_viewport_size(TALL)
    page.goto(f"{url}/{name}?{urlencode(params)}")
    page.get_by_role("heading", name=title, exact=True).wait_for(timeout=180_000)
    n = PAGES[name][2]
    page.wait_for_function("n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n", arg=n, timeout=180_000)
    tools.wait_idle(page, timeout_ms=180_000)
    assert (page.locator(".js-plotly-plot").count(), page.locator("[data-testid=stException]").count()) == (n, 0)


def _screenshot(page, tools, name: str) -> None:
    """Save the page cut to its content (the viewport is made as tall as the page, then restored)."""
    bottom = page.evaluate("() => document.querySelector('[data-testid=stMainBlockContainer]').getBoundingClientRect().bottom")
    page.set_viewport_size({"width": TALL["width"], "height": int(bottom)})
    tools.wait_idle(page)
    assert tools.screenshot(page, name).stat().st_size > 0
    page.set_viewport_size(TALL)


def _svg_text(page) -> str:
    return " ".join(page.locator(".js-plotly-plot .main-svg text").all_text_contents())


def test_step_page_in_english_checks_its_numbers_and_moves_the_d_k_slider(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    _visit(page, tools, app_url, "step_by_step", PAGES["step_by_step"][0])
    assert page.get_by_text("✓ Recomputed in NumPy").count() == 1
    assert page.get_by_text("✓ Concat(z)").count() == 1
    assert "÷ √d_k" in _svg_text(page) and "softmax" in _svg_text(page)
    _screenshot(page, tools, "step_by_step-en-ui-en-text")
    metric = page.locator("[data-testid=stMetricValue]").first
    before = float(metric.inner_text())
    page.locator(".st-key-dk input[type=range]").focus()  # react-aria: a visually hidden range input
    page.keyboard.press("End")  # d_k = 1024
    page.wait_for_function(
        "old => parseFloat(document.querySelector('[data-testid=stMetricValue]').innerText) !== old", arg=before, timeout=180_000
    )
    tools.wait_idle(page, timeout_ms=180_000)
    assert float(metric.inner_text()) > 500  # Var(q·k) ≈ d_k = 1024


def test_architecture_page_in_english_and_a_box_opens_its_page(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    _visit(page, tools, app_url, "architecture", PAGES["architecture"][0])
    text = _svg_text(page)
    assert "Multi-head cross-attention" in text and "Add & Norm" in text and "(1, " in text
    assert page.locator("[data-testid=stPageLink]").count() >= 5
    _screenshot(page, tools, "architecture-en-ui-en-text")
    label = page.locator(".js-plotly-plot .annotation-text", has_text="Multi-head self-attention").first
    box = label.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.get_by_role("heading", name="Attention heads", exact=True).wait_for(timeout=180_000)


def test_shared_chinese_link_to_a_cross_attention_head(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    # layers and heads are counted from 1 in links as on the page: the second layer's fourth head
    _visit(page, tools, app_url, "step_by_step", PAGES["step_by_step"][1], **SHARED, kind="cross", layer="2", head="4")
    assert all(f"{k}={v}" in page.url for k, v in {"kind": "cross", "layer": "2", "head": "4"}.items()), page.url
    keys = page.locator(".st-key-chart_step_scores g.x4tick text").all_text_contents()  # the bottom row's axis
    assert [k.split(": ")[1] for k in keys[: len(CHINESE)]] == list(CHINESE)  # cross-attention's keys: the source
    assert "维度" in _svg_text(page) and page.get_by_text("✓ 已用 NumPy").count() == 1
    _screenshot(page, tools, "step_by_step-zh-ui-zh-text")


def test_shared_chinese_link_to_the_architecture(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    _visit(page, tools, app_url, "architecture", PAGES["architecture"][1], **SHARED)
    text = _svg_text(page)
    assert "多头交叉注意力" in text and "编码器" in text and f"(1, {len(CHINESE) + 1}, 64)" in text  # + <eos>
    _screenshot(page, tools, "architecture-zh-ui-zh-text")
