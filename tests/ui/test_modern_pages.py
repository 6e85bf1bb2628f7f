"""Every page of the app, and every lesson step, on converted tiny Llama / Qwen3 folders: nothing crashes a page,
and what a page states about such a model holds (no sinusoid, no LayerNorm, no cross-attention claimed)."""

import pytest

from app import PAGES
from tests.ui.conftest import app_test, assert_no_exception, figures

MODERN = ("llama", "qwen3")
TEXT = "the cat sat on the mat 你好"


@pytest.fixture
def models_dir(pretrained_dir, monkeypatch):
    monkeypatch.setenv("ATLAS_MODELS_DIR", str(pretrained_dir))
    return pretrained_dir


@pytest.mark.slow
@pytest.mark.parametrize("page", [name for name, _ in PAGES])
@pytest.mark.parametrize("family", MODERN)
def test_every_page_runs_on_a_modern_decoder(models_dir, family, page):
    at = app_test(page, timeout=300, model=f"tiny-{family}", text=TEXT, lang="en")
    at.run()
    assert_no_exception(at)
    assert not at.error, [e.value for e in at.error]
    drawn = figures(at)
    if page not in ("lesson", "training"):
        assert drawn, f"{page} drew nothing for {family}"
    assert not [k for k in drawn if "cross" in k], f"{page} drew cross-attention for a decoder-only model"
    said = " ".join(e.value for e in [*at.info, *at.markdown, *at.subheader])
    own_part = {
        "positional": "Rotary positions",
        "heads": "Grouped-query attention",
        "layernorm": "RMSNorm",
        "feed_forward": "SwiGLU",
        "architecture": "grouped-query",
    }
    if page in own_part:
        assert own_part[page] in said, f"{page} does not show this model's own part"
    if page == "positional":  # live on the text: the same score for the two tokens moved together
        assert {"rope_frequencies", "rope_moved"} <= set(drawn) and "leaves it unchanged" in said


@pytest.mark.slow
@pytest.mark.parametrize("family", MODERN)
def test_the_lesson_walks_every_step_on_a_modern_decoder(models_dir, family):
    from runs import lesson
    from tests.ui.test_lesson_page import reveal

    at = app_test("lesson", timeout=300, model=f"tiny-{family}", text=TEXT, lang="en")
    at.run()
    for n in range(1, len(lesson.STEPS) + 1):
        reveal(at)
        assert_no_exception(at)
        assert not at.error, (n, [e.value for e in at.error])
        if n < len(lesson.STEPS):
            at.button(key="lesson_next").click().run()
