"""In the app, in both languages: the heads page's enlarged head and the output page's distribution hover a
byte-level piece's raw bytes under its readable label (issue 36 §3), on a converted tiny Qwen2 folder whose Chinese
text splits 你 over three pieces; a shipped model's pieces are text, and its hover has no bytes line."""

import pytest

from tests.ui.conftest import app_test, assert_no_exception, figures
from transformer.hf.tokenizer import piece_bytes
from transformer.storage.registry import load_model

TEXT = "你好 猫"
LINE = {"en": "bytes: ", "zh": "字节："}


@pytest.fixture
def models_dir(pretrained_dir, monkeypatch):
    monkeypatch.setenv("ATLAS_MODELS_DIR", str(pretrained_dir))
    return pretrained_dir


def _first_piece_hex(folder) -> str:
    """The hex of the first piece the folder's own tokenizer cuts TEXT into (part of 你)."""
    tokenizer = load_model(folder).target_tokenizer.hf
    return " ".join(f"{b:02x}" for b in piece_bytes(tokenizer.tokenize(TEXT)[0]))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_heads_and_output_pages_hover_the_bytes(models_dir, lang):
    raw = _first_piece_hex(models_dir / "tiny-qwen2")
    assert bytes.fromhex(raw.replace(" ", "")) in "你".encode()
    at = app_test("heads", timeout=300, model="tiny-qwen2", text=TEXT, lang=lang)
    at.run()
    assert_no_exception(at)
    head = figures(at)["head_fig"]["data"][0]
    assert head["x"][1] == f"1: 你 ¹⁄₃<br>{LINE[lang]}{raw}", head["x"][1]  # key 1: the first piece of the text
    assert head["y"][0].endswith(f"{LINE[lang]}– → {raw}"), head["y"][0]  # row 0 reads <bos>, writes that piece
    at = app_test("output", timeout=300, model="tiny-qwen2", text=TEXT, lang=lang)
    at.run()
    assert_no_exception(at)
    bars = figures(at)["out_chart"]["data"][0]
    assert any(LINE[lang] in label for label in bars["customdata"]), bars["customdata"]


def test_a_shipped_models_hover_has_no_bytes_line():
    at = app_test("heads", timeout=300, text="we are happy today", lang="zh")
    at.run()
    assert_no_exception(at)
    head = figures(at)["head_fig"]["data"][0]
    assert not any(LINE["zh"] in name or LINE["en"] in name for name in [*head["x"], *head["y"]])
