"""A converted tiny GPT-2 and a tiny Marian, picked by name from the server's models dir, on the heads page of a
real `streamlit run` in Chromium: the grids and the enlarged head are drawn, with the models' own readable tokens."""

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
