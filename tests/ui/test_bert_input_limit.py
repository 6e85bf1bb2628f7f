"""An encoder-only (BERT) model's row adds two specials: a text one word longer than the row holds is cut, and the
page says so with the numbers the run reads (`transformer.text.reading.symbols_that_fit`)."""

from __future__ import annotations

import pytest

from tests.ui.conftest import app_test, assert_no_exception


@pytest.fixture
def models_dir(pretrained_dir, monkeypatch):
    monkeypatch.setenv("ATLAS_MODELS_DIR", str(pretrained_dir))
    return pretrained_dir


def test_the_page_says_when_a_bert_input_was_cut(models_dir):
    from transformer.storage.registry import load_model

    max_len = load_model(models_dir / "tiny-bert").config.max_len
    text = " ".join(["the"] * (max_len - 1))  # fits a decoder's row, one word more than BERT's [CLS] … [SEP] holds
    at = app_test("heads", timeout=300, model="tiny-bert", text=text, lang="en")
    at.run()
    assert_no_exception(at)
    said = [w.value for w in at.warning]
    assert any(f"The text has {max_len - 1} tokens; this model reads at most {max_len - 2}" in w for w in said), said
