"""`python -m transformer train` on a corpus task writes a loadable checkpoint whose card carries BLEU, chrF,
the dictionary check of its cross-attention and the data's attribution."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hook_names import parse_head_label
from transformer.storage.registry import load_model
from transformer.text.tokenizer import SubwordTokenizer

pytest.importorskip("sacrebleu")


@pytest.mark.slow
def test_a_corpus_run_writes_its_quality_into_the_card(tmp_path: Path) -> None:
    out = tmp_path / "zh-en"
    command = [sys.executable, "-m", "transformer", "train", "--task", "zh-en", "--out", str(out), "--steps", "3"]
    command += ["--eval-every", "0", "--batch-size", "8"]
    for setting in ("n_layers=1", "d_model=32", "n_heads=2", "d_ff=64"):
        command += ["--config", setting]
    subprocess.run(command, check=True, capture_output=True, timeout=600)
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    metrics = card["metrics"]
    for key in ("heldout_bleu", "heldout_chrf", "heldout_bleu_all_references"):
        assert 0.0 <= metrics[key] <= 100.0
    assert metrics["n_bleu"] > 2000 and metrics["n_references"] >= metrics["n_bleu"]
    head = parse_head_label(card["attention"]["best_cross_attention_head"])
    assert head.kind == "cross" and 0 <= card["attention"]["alignment_argmax_match"] <= 1
    assert card["attention"]["n_tokens"] > 500  # held-out tokens with a dictionary translation in their source
    assert "CC BY 2.0 FR" in card["data"]["attribution"] and "CC BY-SA 4.0" in card["data"]["attribution"]
    markdown = (out / "card.md").read_text(encoding="utf-8")
    assert "BLEU" in markdown and "chrF" in markdown and "Tatoeba" in markdown
    bundle = load_model(str(out))
    assert isinstance(bundle.target_tokenizer, SubwordTokenizer)  # zh-en writes English pieces
    text = "It was too tired to cross the street."
    assert bundle.target_tokenizer.decode(bundle.target_tokenizer.encode(text)) == text
