"""The heads page in a real Chromium: tick labels are the tokens, the UI switches to Chinese, markup stays text.

The tests share one tab and run in file order (each builds on the page the previous one left).
"""

from pathlib import Path

import pytest

from runs.heads import card_alignment_head
from runs.model_ref import ModelRef, load_bundle

pytestmark = pytest.mark.e2e

ENGLISH = "the cat sees the dog"  # not the model's example, and "the" twice: repeated tokens stay two ticks
CHINESE = "今天天气很好"  # every character is in the random model's vocabulary
MARKUP = "<b>x</b>"
SEP = " · "  # how ui.page.show_run joins tokens
TICKS = ".st-key-head_fig g.xtick text"
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"  # git-ignored, as the harness's own shots


def _after(page, tools, action) -> None:
    """Do `action`, then wait until the enlarged head's tick labels changed and the rerun is over
    (on a busy machine a rerun can start seconds after the key press)."""
    page.locator(TICKS).first.wait_for()
    before = _ticks(page, "x")
    action()
    page.wait_for_function(
        "([sel, old]) => JSON.stringify(Array.from(document.querySelectorAll(sel), e => e.textContent)) !== JSON.stringify(old)",
        arg=[TICKS, before],
        timeout=180_000,
    )
    tools.wait_idle(page)


def _submit(page, tools, text: str) -> None:
    box = page.locator(".st-key-text input")
    _after(page, tools, lambda: (box.fill(text), box.press("Enter")))  # a text_input commits on Enter


def _use_random_model(page, tools) -> None:
    def pick() -> None:
        page.locator(".st-key-model").click()
        page.get_by_role("option", name="random", exact=True).click()  # bound widgets show option codes

    _after(page, tools, pick)


def _ticks(page, axis: str) -> list[str]:
    return page.locator(f".st-key-head_fig g.{axis}tick text").all_text_contents()  # plotly draws ticks as SVG text


def _shown_source_tokens(page) -> list[str]:
    """The encoder tokens as the page lists them: the code block right after "Source tokens" (English UI)."""
    label = page.locator("[data-testid=stMarkdownContainer]", has_text="Source tokens (encoder)").first
    block = label.locator("xpath=following::*[@data-testid='stCode'][1]")
    return block.inner_text().strip().split(SEP)


def _params(page) -> dict[str, str]:
    return page.evaluate("() => Object.fromEntries(new URLSearchParams(location.search))")


def _first_screen(page, tools, name: str) -> None:
    """What a projector shows at 1280 × 720 before any scrolling (saved next to the full-page shots)."""
    size = page.viewport_size
    page.set_viewport_size({"width": 1280, "height": 720})
    tools.wait_idle(page)
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    page.set_viewport_size(size)


def test_the_page_opens_on_the_translators_alignment_head(app_page, app_url, browser_tools):
    """The grammar translator's page opens on cross-attention, the card's head enlarged, rows named
    "reads → writes", the right alignment outlined; the grid's tab and stretch go into the URL."""
    page, tools = app_page, browser_tools
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/heads?lang=en&model=translate-en-zh")  # the grammar translator: its gold alignment outlined
    page.locator(TICKS).first.wait_for(timeout=180_000)
    tools.wait_idle(page)
    layer, head = card_alignment_head(load_bundle(ModelRef.parse("translate-en-zh")))
    title = f"Cross-attention (decoder → encoder), layer {layer + 1}, head {head + 1}"  # pages count from 1
    assert title in page.locator(".st-key-head_fig .gtitle").text_content()
    rows = _ticks(page, "y")
    assert "我 → 今天" in rows and "在 → 图书馆" in rows, rows
    assert page.locator(".st-key-head_fig .shapelayer path").count() >= 7  # one outline per aligned word
    head_box = page.locator(".st-key-head_fig").bounding_box()
    assert head_box["y"] < 720, "the enlarged head starts on the first screen"
    _first_screen(page, tools, "heads-first-screen-en")
    page.locator(".st-key-grid_stretch label").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('grid_stretch') === 'true'", timeout=180_000)
    tools.wait_idle(page)
    page.locator(".st-key-heads_grid_tab").get_by_role("tab", name="Decoder masked self-attention").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('grid') === 'decoder'", timeout=180_000)
    tools.wait_idle(page)
    page.reload()  # a copied link opens the same tab, stretched
    page.locator(TICKS).first.wait_for(timeout=180_000)
    tools.wait_idle(page)
    tab = page.locator(".st-key-heads_grid_tab").get_by_role("tab", name="Decoder masked self-attention")
    assert tab.get_attribute("aria-selected") == "true"
    assert page.locator(".st-key-grid_stretch input").is_checked()
    params = _params(page)
    assert params.get("grid") == "decoder" and params.get("grid_stretch") == "true", params
    page.locator(".st-key-lang button", has_text="简体中文").click()
    page.get_by_role("heading", name="所有层 × 所有头").wait_for(timeout=180_000)
    tools.wait_idle(page)
    _first_screen(page, tools, "heads-first-screen-zh")
    tools.screenshot(page, "heads-opening-zh")
    page.set_viewport_size({"width": 1400, "height": 1000})


def test_english_sentence_ticks_are_its_tokens(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    page.goto(f"{app_url}/heads?lang=en&kind=encoder")  # the translator opens on cross-attention; these tests read the encoder
    page.get_by_role("heading", name="Every layer × head").wait_for(timeout=180_000)
    tools.wait_idle(page)
    _submit(page, tools, ENGLISH)
    tokens = _shown_source_tokens(page)
    words = [tok for tok in tokens if not (tok.startswith("<") and tok.endswith(">"))]
    assert "".join(words) == ENGLISH.replace(" ", "")  # every word read, whole or as the default model's word pieces
    assert _ticks(page, "x") == tokens and _ticks(page, "y") == tokens
    tools.screenshot(page, "heads-en-ui-en-text")


def test_chinese_sentence_ticks_are_its_characters(app_page, browser_tools):
    page, tools = app_page, browser_tools
    _submit(page, tools, CHINESE)  # the default model reads English: a hanzi it does not know is <unk> here
    assert _ticks(page, "x") == _shown_source_tokens(page)
    _use_random_model(page, tools)  # its character vocabulary knows common hanzi
    tokens = _shown_source_tokens(page)
    assert tokens[: len(CHINESE)] == list(CHINESE)
    assert _ticks(page, "x") == tokens and _ticks(page, "y") == tokens
    tools.screenshot(page, "heads-en-ui-zh-text")


def test_markup_in_the_input_stays_literal(app_page, browser_tools):
    page, tools = app_page, browser_tools
    _submit(page, tools, MARKUP)
    ticks = _ticks(page, "x")
    assert MARKUP in "".join(ticks), ticks
    chart = page.locator(".st-key-head_fig")
    assert chart.locator("svg b, svg a, tspan[style*='bold']").count() == 0  # nothing was rendered as markup
    tools.screenshot(page, "heads-en-ui-markup")


def test_chinese_ui_translates_headings_and_axes(app_page, browser_tools):
    page, tools = app_page, browser_tools
    page.locator(".st-key-lang button", has_text="简体中文").click()
    page.get_by_role("heading", name="所有层 × 所有头").wait_for(timeout=180_000)
    tools.wait_idle(page)
    assert page.get_by_role("heading", name="放大查看一个头").is_visible()
    assert page.locator(".st-key-head_fig g.g-xtitle text").text_content() == "键（被关注）"
    tools.screenshot(page, "heads-zh-ui-zh-text")


def test_clicking_a_grid_tile_enlarges_that_head(app_page, browser_tools):
    page, tools = app_page, browser_tools
    # the open tab's grid (only the open tab is drawn); the key's suffix counts grid clicks: none yet
    grid = page.locator(", ".join(f".st-key-grid_{kind}_0 .js-plotly-plot" for kind in ("encoder", "decoder", "cross"))).first
    grid.scroll_into_view_if_needed()
    # the click targets (trace 3) in page pixels, and the [layer, head] each carries
    targets = grid.evaluate("""el => { const t = el._fullData[3], xa = el._fullLayout.xaxis, ya = el._fullLayout.yaxis;
        return t.x.map((x, i) => [xa.l2p(x) + xa._offset, ya.l2p(t.y[i]) + ya._offset, t.customdata[i]]); }""")
    x, y, (layer, head) = targets[-1]  # the last layer's last head
    box = grid.bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_function("() => new URLSearchParams(location.search).get('head') !== null", timeout=180_000)
    tools.wait_idle(page)
    params = dict(part.split("=", 1) for part in page.url.split("?", 1)[1].split("&"))
    assert (params["layer"], params["head"]) == (str(layer + 1), str(head + 1)), params  # links count from 1
    redrawn = ", ".join(f".st-key-grid_{kind}_1" for kind in ("encoder", "decoder", "cross"))
    assert page.locator(redrawn).count() == 1  # redrawn unselected, ready for the next click
    tools.screenshot(page, "heads-zh-ui-clicked-tile")


def _chart_widths(page, key: str) -> dict[str, float]:
    """The chart's own width (Streamlit writes it on the element container), the width plotly drew it at, and
    the width of the box around it that shows it."""
    return page.locator(f".st-key-{key}").evaluate(
        """el => ({own: parseFloat(el.getAttribute('width')),
                   drawn: parseFloat(el.querySelector('.main-svg').getAttribute('width')),
                   shown: el.parentElement.clientWidth,
                   scrolls: el.parentElement.scrollWidth > el.parentElement.clientWidth})"""
    )


def test_on_a_phone_the_attention_matrices_keep_their_width_and_scroll(app_page, browser_tools):
    """At 390 px the enlarged head and the rollout are drawn at their own width, in a box that scrolls sideways
    (shrunk to the screen, their labels and colour bar left the matrix about 80 px); the small statistic picture
    still fits the screen."""
    page, tools = app_page, browser_tools
    size = page.viewport_size
    page.set_viewport_size({"width": 390, "height": 844})
    tools.wait_idle(page)
    try:
        for key in ("head_fig", "rollout_fig"):
            page.locator(f".st-key-{key} .main-svg").first.wait_for()
            page.wait_for_function(  # plotly redraws after the resize: at its own width, or shrunk to the screen
                "key => { const el = document.querySelector(`.st-key-${key}`);"
                " const drawn = parseFloat(el.querySelector('.main-svg').getAttribute('width'));"
                " return drawn === parseFloat(el.getAttribute('width')) || drawn <= 390; }",
                arg=key,
                timeout=30_000,
            )
            widths = _chart_widths(page, key)
            assert widths["shown"] < 390 < widths["own"] == widths["drawn"], widths
            assert widths["scrolls"], widths
        metric = _chart_widths(page, "heads_metric_fig")
        assert metric["drawn"] <= 390 < metric["own"], metric
        tools.screenshot(page, "heads-phone")
    finally:
        page.set_viewport_size(size)
        tools.wait_idle(page)


def test_nothing_is_fetched_from_outside_the_machine(app_page):
    """Every page load, run and click above stayed on the app's own server (no fonts, icons or
    scripts from the internet: the favicon once came from Google's font server)."""
    assert app_page.outside == [], sorted(set(app_page.outside))
