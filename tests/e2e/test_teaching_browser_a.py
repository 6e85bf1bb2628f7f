"""The Positional-encoding and LayerNorm pages in a real Chromium: every figure is drawn, nothing
raises, in the English and the Chinese UI (with English and Chinese text); screenshots saved.

The tests share one tab and run in file order.
"""

import pytest
from teaching_pages import CHINESE, PAGES  # tests/e2e/teaching_pages.py

pytestmark = pytest.mark.e2e
HERE = ("positional", "layernorm")


def _figures_drawn(page, tools, n: int) -> None:
    """Wait until `n` plotly figures are drawn and the run is over; nothing may have raised."""
    page.wait_for_function("n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n", arg=n, timeout=300_000)
    tools.wait_idle(page, timeout_ms=300_000)
    assert page.locator(".js-plotly-plot").count() == n
    assert page.locator("[data-testid=stException]").count() == 0


def _open(page, tools, url: str, name: str) -> None:
    page.goto(f"{url}/{name}")
    page.get_by_role("heading", name=PAGES[name][0], exact=True).wait_for(timeout=300_000)


def _to_random_model_and_chinese(page, tools, name: str) -> None:
    page.locator(".st-key-model").click()
    page.get_by_role("option", name="random", exact=True).click()  # the sidebar shows option codes
    tools.wait_idle(page, timeout_ms=300_000)
    box = page.locator(".st-key-text input")
    box.fill(CHINESE)
    box.press("Enter")  # a text_input commits on Enter
    tools.wait_idle(page, timeout_ms=300_000)
    page.locator(".st-key-lang button", has_text="简体中文").click()
    page.get_by_role("heading", name=PAGES[name][1], exact=True).wait_for(timeout=300_000)


@pytest.mark.parametrize("name", HERE)
def test_page_draws_every_figure_in_english(app_page, app_url, browser_tools, name):
    page, tools = app_page, browser_tools
    _open(page, tools, app_url, name)
    _figures_drawn(page, tools, PAGES[name][2])
    tools.screenshot(page, f"{name}-en-ui-en-text")


@pytest.mark.parametrize("name", HERE)
def test_page_draws_every_figure_in_chinese(app_page, app_url, browser_tools, name):
    page, tools = app_page, browser_tools
    _open(page, tools, app_url, name)
    _figures_drawn(page, tools, PAGES[name][2])  # clicks during a run can land on elements being replaced
    _to_random_model_and_chinese(page, tools, name)
    _figures_drawn(page, tools, PAGES[name][2])
    ticks = page.locator(".js-plotly-plot g.xtick text, .js-plotly-plot g.ytick text").all_text_contents()
    assert set(CHINESE) & set("".join(ticks)), "the Chinese tokens label a figure's axis"
    if name == "positional":  # a selectbox's labels follow the language switch; a shipped model with learned
        # positions (induction) comes first, and a model name is not translated
        chosen = page.locator(".st-key-pe_learned input").input_value()
        assert chosen == "induction" or "随机权重" in chosen, chosen
    tools.screenshot(page, f"{name}-zh-ui-zh-text")
