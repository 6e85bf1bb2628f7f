"""Every page of the app on a converted tiny checkpoint of each family (GPT-2, BERT, Marian), chosen in the
sidebar from the server's models dir; the picker's labels; refusals in the user's language."""

import json
import shutil

import pytest

from app import PAGES
from tests.ui.conftest import app_test, assert_no_exception, figures
from transformer.storage.registry import DEFAULT_MODEL

FAMILIES = ("gpt2", "bert", "marian")
TEXT = {"gpt2": "the cat sat on the mat", "bert": "the cat [MASK] on the mat", "marian": "the cat sat on the mat"}
NO_FIGURE: set[tuple[str, str]] = set()  # every page draws for every family (BERT's masks page: its padding mask)
NO_FIGURE_BEFORE_REVEAL = {"lesson", "training"}  # a lesson step's figure waits for Reveal (walked below)
ENCODER_ONLY_SAYS = "encoder-only"


@pytest.fixture
def models_dir(pretrained_dir, monkeypatch):
    monkeypatch.setenv("ATLAS_MODELS_DIR", str(pretrained_dir))
    return pretrained_dir


@pytest.mark.slow
@pytest.mark.parametrize("page", [name for name, _ in PAGES])
@pytest.mark.parametrize("family", FAMILIES)
def test_every_page_runs_on_every_family(models_dir, family, page):
    at = app_test(page, timeout=300, model=f"tiny-{family}", text=TEXT[family], lang="en")
    at.run()
    assert_no_exception(at)
    assert not at.error, [e.value for e in at.error]
    drawn = figures(at)
    if page not in NO_FIGURE_BEFORE_REVEAL and (family, page) not in NO_FIGURE:
        assert drawn, f"{page} drew nothing for {family}"
    if page == "architecture":  # the real sizes beside the shipped toy's
        tables = [df.value for df in at.dataframe]
        assert any("this model" in t.columns and f"shipped toy ({DEFAULT_MODEL})" in t.columns for t in tables), tables
    if family == "bert" and page == "masks":  # the encoder's padding mask, and one head's scores before and after it
        assert {"batch_source", "mask_padding"} <= set(drawn) and any(k.startswith("score_steps_encoder") for k in drawn)
    if family == "marian" and page == "positional":  # its own layout of the sinusoids, every sine first
        assert "pe_table_split" in drawn and any("Marian's layout" in i.value for i in at.info)
    if family == "bert":
        wrong = [k for k in drawn if "decoder" in k or "cross" in k]
        assert not wrong, f"{page} drew decoder figures for an encoder-only model: {wrong}"
        if page in ("heads", "masks", "positional", "layernorm", "step_by_step", "output", "architecture"):
            said = " ".join(e.value for e in [*at.caption, *at.info, *at.markdown]).lower()
            assert ENCODER_ONLY_SAYS in said, page


def test_the_picker_lists_each_folder_with_family_size_and_parameters(models_dir):
    """Options are the folders' names (a bound picker's URL value is its label); the help and the card say the rest."""
    at = app_test("heads", timeout=300, lang="en", model="tiny-gpt2")
    at.run()
    picker = at.selectbox(key="model")
    assert {"tiny-gpt2", "tiny-bert", "tiny-marian"} <= set(picker.options)
    for family, name in (("gpt2", "GPT-2"), ("bert", "BERT"), ("marian", "Marian")):
        assert f"tiny-{family} · {name} · 2 layers × 4 heads, d_model 32 ·" in picker.help, picker.help
    card = " ".join(c.value for c in at.sidebar.caption)
    assert "GPT-2 checkpoint “tiny-gpt2”" in card and "parameters" in card, card


def test_bert_fills_its_mask_on_the_output_page(models_dir):
    at = app_test("output", timeout=300, model="tiny-bert", text="the cat [MASK] on the mat", lang="en")
    at.run()
    assert_no_exception(at)
    chart = figures(at)["out_chart"]
    assert "[MASK]" in json.dumps(chart, ensure_ascii=False)  # the one position shown is the mask's


@pytest.mark.parametrize(("lang", "said"), [("en", "has no `safetensors` weights"), ("zh", "没有 `safetensors` 权重")])
def test_a_refused_folder_says_why_in_the_users_language(pretrained_dir, tmp_path, monkeypatch, lang, said):
    bad = tmp_path / "pickled"
    shutil.copytree(pretrained_dir / "tiny-gpt2", bad)
    (bad / "model.safetensors").rename(bad / "pytorch_model.bin")
    monkeypatch.setenv("ATLAS_MODELS_DIR", str(tmp_path))
    at = app_test("heads", timeout=300, model="pickled", lang=lang)
    at.run()
    assert_no_exception(at)
    shown = " ".join(e.value for e in at.error)
    assert said in shown, shown


def test_without_a_models_dir_no_pretrained_model_is_listed(monkeypatch):
    monkeypatch.delenv("ATLAS_MODELS_DIR", raising=False)
    at = app_test("heads", timeout=300, lang="en")
    at.run()
    assert not [o for o in at.selectbox(key="model").options if "tiny-" in o]


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_the_lesson_walks_every_step(models_dir, family):
    """Every step renders and reveals its answer on a converted model (a step that needs a decoder says so)."""
    from runs import lesson
    from tests.ui.test_lesson_page import reveal

    at = app_test("lesson", timeout=300, model=f"tiny-{family}", text=TEXT[family], lang="en")
    at.run()
    for n in range(1, len(lesson.STEPS) + 1):
        reveal(at)
        assert_no_exception(at)
        assert not at.error, (n, [e.value for e in at.error])
        if n < len(lesson.STEPS):
            at.button(key="lesson_next").click().run()
