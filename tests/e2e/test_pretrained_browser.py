"""A converted tiny GPT-2 and a tiny Marian, picked by name from the server's models dir, on the heads page of a
real `streamlit run` in Chromium: the grids and the enlarged head are drawn, with the models' own readable tokens;
a long input's head is an image with a hover per block, drawn square (viz/heatmap.py, ui/page_style.py)."""

import pytest

from benchmarks.chromium import track_outside
from tests.e2e.conftest import own_server

pytestmark = pytest.mark.e2e
pytest.importorskip("transformers")

TEXT = "the cat sat on the mat"
TICKS = ".st-key-head_fig g.xtick text"


@pytest.fixture(scope="module")
def pretrained_url(tmp_path_factory):
    """The app with a models dir holding tiny-gpt2 and tiny-marian (ATLAS_MODELS_DIR), on a free port."""
    from transformer.hf.random_folder import gpt2_folder, marian_folder

    models = tmp_path_factory.mktemp("models")
    gpt2_folder(models / "tiny-gpt2")
    gpt2_folder(models / "tiny-gpt2-long", n_positions=320)  # room for a head past 256 × 256 cells
    marian_folder(models / "tiny-marian")
    with own_server(models / "streamlit.log", ATLAS_MODELS_DIR=str(models)) as url:
        yield url


@pytest.mark.parametrize(("model", "family"), [("tiny-gpt2", "GPT-2"), ("tiny-marian", "Marian")])
def test_a_converted_model_paints_the_heads_page(chromium, pretrained_url, browser_tools, model, family):
    context = chromium.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(180_000)
    track_outside(page)
    try:
        page.goto(f"{pretrained_url}/heads?lang=en&model={model}&text={TEXT.replace(' ', '+')}")
        browser_tools.wait_idle(page)
        page.locator(TICKS).first.wait_for()
        assert family in page.locator("[data-testid=stSidebar]").inner_text()  # the picker's label: family, size
        ticks = page.locator(TICKS).all_text_contents()
        assert ticks and not any("Ġ" in tick for tick in ticks), ticks  # byte-level pieces decoded
        assert page.locator(".js-plotly-plot").count() >= 2, "the grid and the enlarged head"
        assert not page.locator("[data-testid=stException]").count()
        assert page.outside == [], page.outside
        browser_tools.screenshot(page, f"pretrained-heads-{model}")
    finally:
        context.close()


# Any element whose transition takes time while the page is idle (a button's hover colour, a stale element's fade).
TIMED_TRANSITION = """() => [...document.querySelectorAll('[data-testid=stApp] *')].find(
  e => getComputedStyle(e).transitionDuration.split(',').some(d => parseFloat(d) > 0)) || null"""


def test_a_long_input_draws_its_head_as_an_image_with_a_hover_per_block(chromium, pretrained_url, browser_tools):
    context = chromium.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(180_000)
    try:
        text = "+".join(["the cat sat on the mat"] * 60).replace(" ", "+")  # ~360 tokens: the page keeps 320
        page.goto(f"{pretrained_url}/heads?lang=en&model=tiny-gpt2-long&text={text}")
        browser_tools.wait_idle(page)
        head = page.locator(".st-key-head_fig")
        image = head.locator(".layer-subplot .imagelayer image")  # plotly's layer for a layout image on the axes
        image.wait_for(state="attached")
        assert image.count() == 1
        assert image.evaluate("e => getComputedStyle(e).imageRendering") == "pixelated"  # blocks drawn square
        plot = head.locator(".nsewdrag").first
        plot.scroll_into_view_if_needed()
        box = plot.bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.75)  # under the diagonal
        hover = head.locator(".hovertext").first
        hover.wait_for(timeout=20_000)
        assert "largest of these 2 × 2" in hover.text_content()  # 320 positions: 160 blocks of 2 a side
        assert not page.locator("[data-testid=stException]").count()
        browser_tools.screenshot(page, "pretrained-heads-long-input")
        # while a script runs, nothing fades frame by frame (ui.page_style.STALE_IN_ONE_STEP)
        timed = page.evaluate_handle(TIMED_TRANSITION)
        assert timed.evaluate("e => e !== null")
        app = page.locator("[data-testid=stApp]")
        state = app.get_attribute("data-test-script-state")
        app.evaluate("e => e.setAttribute('data-test-script-state', 'running')")
        assert set(timed.evaluate("e => getComputedStyle(e).transitionDuration").split(", ")) == {"0s"}
        app.evaluate("(e, s) => e.setAttribute('data-test-script-state', s)", state)
    finally:
        context.close()
