"""The Masks page in a real Chromium: a masked cell of the softmax panel reads exactly 0 on screen,
a blocked score reads −∞, and the page is translated; screenshots in both languages."""

import pytest

from ui.i18n import catalog

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
    page.goto(f"{app_url}/masks?kind=decoder&layer=1&head=1")  # the first layer and head (links count from 1)
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


# At a 1280×720 projector: cell numbers never run into each other, no title or control is clipped,
# and the causal experiment shows both truths on the shipped translator's default sentence.
OVERLAPS = r"""(selector) => {
  // every pair of cell labels of one heatmap whose drawn boxes intersect (more than half a pixel)
  const out = [];
  document.querySelectorAll(selector + ' .js-plotly-plot g.hm').forEach(hm => {
    const boxes = Array.from(hm.querySelectorAll('.heatmap-label text'), t => t.getBoundingClientRect())
      .filter(b => b.width > 0);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) out.push([i, j]);
    }
  });
  return {overlaps: out.length, labels: document.querySelectorAll(selector + ' .js-plotly-plot .heatmap-label text').length};
}"""
CLIPPED_TITLES = r"""() => {
  // titles and panel annotations cut off by their figure's left or right edge
  const out = [];
  document.querySelectorAll('.js-plotly-plot').forEach(gd => {
    const frame = gd.querySelector('svg.main-svg').getBoundingClientRect();
    gd.querySelectorAll('.gtitle, .annotation-text-g text').forEach(t => {
      const b = t.getBoundingClientRect();
      if (b.width > 0 && (b.left < frame.left - 1 || b.right > frame.right + 1)) out.push(t.textContent);
    });
  });
  return out;
}"""
CLIPPED_CONTROL = r"""(key) => {
  // a widget's buttons and labels cut off by its own box or by the column it sits in
  const box = document.querySelector('.st-key-' + key);
  const frame = box.getBoundingClientRect();
  return Array.from(box.querySelectorAll('button, label, p'))
    .filter(e => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > frame.right + 1)
    .map(e => e.textContent);
}"""


def _draw_everything(page, wait_settled) -> None:
    """Scroll the page through once: Streamlit draws a chart only when it comes into view."""
    height = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
    for y in range(0, height, 400):
        page.evaluate(f"() => document.querySelector('[data-testid=stMain]').scrollTo(0, {y})")
        wait_settled(page, frames=3)  # the charts that came into view are drawn


def test_masks_page_at_1280_reads_cleanly_and_tells_the_causal_truth(app_page, app_url, browser_tools):
    page, tools = app_page, browser_tools
    page.set_viewport_size({"width": 1280, "height": 720})
    for lang in ("en", "zh"):
        if lang == "en":
            page.goto(f"{app_url}/masks?model=translate-en-zh&kind=decoder&layer=1&head=1&row=0&no_causal=true&ablate=true")
        else:
            page.locator("[data-testid=stSidebar]").get_by_text("简体中文", exact=True).click()
        tools.wait_idle(page, 90_000)
        _show_steps(page)
        _check_masked_cells(page)
        cells = page.evaluate(OVERLAPS, STEPS)
        assert cells["labels"] > 0 and cells["overlaps"] == 0, cells
        _draw_everything(page, tools.wait_settled)
        assert page.evaluate(CLIPPED_TITLES) == []
        assert page.evaluate(CLIPPED_CONTROL, "causal_scope") == []
        # both truths: generation unchanged (with the reason), and the teacher-forced table
        unchanged = catalog(lang)["masks.generation_unchanged"]  # whole, as the ablation's "输出没有改变。" contains "没有改变。"
        assert page.get_by_text(unchanged).count() == 1
        assert page.locator("[data-testid=stDataFrame]").count() == 1
        for name in ("forced_with_0_0", "forced_without_0_0"):
            assert page.locator(f'[class*="st-key-{name}"] .js-plotly-plot').count() == 1
        page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
        assert tools.screenshot(page, f"masks-1280-{lang}").stat().st_size > 0
    page.set_viewport_size({"width": 1400, "height": 1000})


def _choose(page, tools, key: str, starts: str) -> str:
    """Open the selectbox `key`, click its option beginning with `starts`, and return the option's text."""
    box = page.locator(f".st-key-{key} [role=combobox]")
    box.click()
    box.press("ArrowDown")  # Streamlit's combobox opens its list from the keyboard
    option = page.locator("[role=option]").filter(has_text=starts).first
    text = option.inner_text()
    option.click()
    tools.wait_idle(page, 90_000)
    return text


@pytest.mark.parametrize(("path", "key", "starts"), [("masks", "row", "1:"), ("step_by_step", "query", "2:")])
def test_a_chosen_sentence_or_row_survives_a_shared_link(app_page, app_url, browser_tools, path, key, starts):
    """The sentence (masks) and query row (step by step) travel in the URL as their labels; a link copied
    after choosing one opens on it (the URL guard once dropped them as "not a number")."""
    page, tools = app_page, browser_tools
    page.goto(f"{app_url}/?text=i")
    tools.wait_idle(page, 90_000)
    page.goto(f"{app_url}/{path}?lang=en")
    tools.wait_idle(page, 90_000)
    chosen = _choose(page, tools, key, starts)
    assert f"{key}=" in page.url, page.url
    shared = page.url
    page.goto(f"{app_url}/?text=i")
    tools.wait_idle(page, 90_000)
    page.goto(shared)
    tools.wait_idle(page, 90_000)
    shown = page.locator(f".st-key-{key} [role=combobox]").input_value()
    assert chosen.strip() in shown, (chosen, shown)
    assert page.locator("[data-testid=stException]").count() == 0
