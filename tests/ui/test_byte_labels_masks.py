"""The Masks page's table and token picker and the step page's query picker, which have no hover, list a
byte-level piece's raw bytes beside its readable label (issue 36 §3), in both languages, on a converted tiny Qwen2
folder whose Chinese text splits 你 over three pieces; a shipped model's tokens are text, and show no bytes."""

import pytest

from tests.ui.conftest import app_test, assert_no_exception
from transformer.hf.tokenizer import piece_bytes
from transformer.storage.registry import load_model
from viz.tokens import TokenAxis, byte_pieces

TEXT = "你好 猫"
OPTION = {"en": " · bytes ", "zh": " · 字节 "}
LEGEND = {"en": "byte-level pieces:", "zh": "字节级片段的原始字节："}


@pytest.fixture
def models_dir(pretrained_dir, monkeypatch):
    monkeypatch.setenv("ATLAS_MODELS_DIR", str(pretrained_dir))
    return pretrained_dir


def test_byte_pieces_lists_each_piece_once_in_order_of_appearance():
    tokens = ["你 ¹⁄₂", "好", "你 ¹⁄₂", " ", "猫 ²⁄₂"]
    hexes = ["e4 bd", "", "e4 bd", "", "8c ab"]
    assert byte_pieces(tokens, hexes) == ["你 ¹⁄₂ = e4 bd", "猫 ²⁄₂ = 8c ab"]
    assert byte_pieces(["a", "b"], ["", ""]) == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_picker_option_names_the_piece_and_its_bytes(lang):
    template = {"en": "{label} · bytes {hex}", "zh": "{label} · 字节 {hex}"}[lang]  # the catalogs' bytes.option
    keys = TokenAxis(("<bos>", "你 ¹⁄₂", " "), hex=("", "e4 bd", ""))
    assert keys.option_label(1, template) == f"1: 你 ¹⁄₂{OPTION[lang]}e4 bd"
    assert keys.option_label(1) == "1: 你 ¹⁄₂"  # no template: the label alone
    assert [keys.option_label(i, template) for i in (0, 2)] == ["0: <bos>", "2: ␣"]  # text: no bytes
    rows = TokenAxis(("你 ¹⁄₂",), reads=("<bos>",), hex=("e4 bd",), reads_hex=("",))  # a decoder row: reads → writes
    assert rows.option_label(0, template) == f"0: <bos> → 你 ¹⁄₂{OPTION[lang]}– → e4 bd"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_masks_page_lists_the_bytes_under_its_table_and_in_its_picker(models_dir, lang):
    tokenizer = load_model(models_dir / "tiny-qwen2").target_tokenizer.hf
    first = " ".join(f"{b:02x}" for b in piece_bytes(tokenizer.tokenize(TEXT)[0]))  # part of 你
    assert bytes.fromhex(first.replace(" ", "")) in "你".encode()
    at = app_test("masks", timeout=300, model="tiny-qwen2", text=TEXT, lang=lang)
    at.run()
    assert_no_exception(at)
    options = at.multiselect(key="blocked").options
    assert f"1: 你 ¹⁄₃{OPTION[lang]}{first}" in options, options  # position 0 is <bos>
    assert not any(OPTION[lang] in o for o in options if o.startswith("0: ")), options  # <bos> is text
    at.toggle(key="no_causal").set_value(True).run()  # the causal experiment's table
    assert_no_exception(at)
    legends = [c.value for c in at.caption if LEGEND[lang] in c.value]
    assert len(legends) == 1, [c.value for c in at.caption]
    assert f"你 ¹⁄₃ = {first}" in legends[0], legends[0]


def test_a_shipped_models_masks_page_shows_no_bytes():
    at = app_test("masks", timeout=300, text="we are happy today", lang="zh")
    at.run()
    assert_no_exception(at)
    assert not any(OPTION["zh"] in o for o in at.multiselect(key="blocked").options)
    at.toggle(key="no_causal").set_value(True).run()
    assert_no_exception(at)
    assert at.dataframe, "the causal table"
    assert not any(LEGEND["zh"] in c.value for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_step_pages_query_picker_names_the_bytes(models_dir, lang):
    at = app_test("step_by_step", timeout=300, model="tiny-qwen2", text=TEXT, lang=lang)
    at.run()
    assert_no_exception(at)
    options = at.selectbox(key="query").options
    assert f"1: 你 ¹⁄₃ → 你 ²⁄₃{OPTION[lang]}e4 → bd" in options, options  # row 1 reads 你's first byte, writes its second
