"""The Why page in the app: the example pair's verdict states the measured best head in both languages, the charts
carry the sweep's numbers, and every refused input is a message in the reader's language."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hook_names import ordinal
from runs.why_page import EXAMPLES, pair_view
from tests.ui.conftest import app_test, assert_no_exception, plotly_array
from transformer.storage.registry import load_model


def _open(lang: str, **params: str):
    at = app_test("why", params={"lang": lang, **params}, timeout=180)
    at.run()
    assert_no_exception(at)
    return at


@pytest.mark.parametrize(("lang", "word"), [("en", "restores the most"), ("zh", "恢复得最多")])
def test_example_pair_verdict_is_the_measured_head(lang: str, word: str) -> None:
    at = _open(lang)
    clean, corrupted = EXAMPLES["en-zh"]
    assert at.text_input(key="text").value == clean and at.text_input(key="corrupt").value == corrupted
    view = pair_view(load_model("en-zh"), clean, corrupted)
    _, head, restored = view.best_head()
    verdict = [s.value for s in at.success]
    assert len(verdict) == 1 and word in verdict[0]
    assert f"{restored:.0%}" in verdict[0] and str(ordinal(head)) in verdict[0]
    heads = next(c for c in at.get("plotly_chart") if c.proto.id.endswith("chart_why_heads"))
    spec = json.loads(heads.proto.spec)
    assert np.allclose(plotly_array(spec["data"][0]["z"]), view.heads)  # the chart is the sweep's numbers
    if lang == "zh":
        assert any("\u4e00" <= ch <= "\u9fff" for ch in at.title[0].value)


@pytest.mark.parametrize(
    ("corrupted", "key_words"),
    [
        ("The animal was far too happy.", {"en": "same number of tokens", "zh": "词元数必须相同"}),
        ("The animal was too tired.", {"en": "same tokens", "zh": "相同的词元"}),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_refusals_are_messages(lang: str, corrupted: str, key_words: dict[str, str]) -> None:
    at = _open(lang, text=EXAMPLES["en-zh"][0], corrupt=corrupted)
    assert any(key_words[lang] in w.value for w in at.warning), [w.value for w in at.warning]


def test_target_outside_the_vocabulary_is_a_message() -> None:
    at = _open("en", text=EXAMPLES["en-zh"][0], corrupt=EXAMPLES["en-zh"][1], target="qqqzzz")
    assert any("not one token" in w.value for w in at.warning)


@pytest.mark.parametrize(("lang", "said"), [("en", "cancelled"), ("zh", "已取消")])
def test_a_cancelled_sweep_stays_cancelled_until_run_again(lang: str, said: str) -> None:
    clean, corrupted = "The animal was too tired.", f"The animal was too {'sad' if lang == 'en' else 'old'}."
    at = app_test("why", params={"lang": lang, "text": clean, "corrupt": corrupted}, timeout=180)
    at.session_state["why_cancelled"] = ("en-zh", clean, corrupted, None, None)  # what Cancel's callback notes
    at.run()
    assert_no_exception(at)
    assert any(said in i.value for i in at.info) and not at.success  # no verdict: nothing was measured
    at.button(key="why_again").click().run()
    assert_no_exception(at)
    assert len(at.success) == 1  # the sweep ran: the verdict is back


def test_bert_reads_its_masked_prediction_and_refuses_attribution(pretrained_dir, monkeypatch) -> None:
    monkeypatch.setenv("ATLAS_MODELS_DIR", str(pretrained_dir))
    params = {"lang": "zh", "model": "tiny-bert", "text": "the cat is on the [MASK]", "corrupt": "the dog is on the [MASK]"}
    at = app_test("why", params=params, timeout=300)
    at.run()
    assert_no_exception(at)
    assert any("没有解码器" in i.value for i in at.info)  # what it reads instead: the masked-token prediction
    assert any("不是线性的" in w.value for w in at.warning)  # attribution refused, in the reader's language
    assert len(at.success) == 1  # patching measured, with its verdict
