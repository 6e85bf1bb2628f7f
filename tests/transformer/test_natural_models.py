"""The shipped natural translators (issue 20): the quality their cards state, recomputed from the weights.

Every card figure is measured again here with the tools the card names: `sacrebleu` on all held-out pairs
(BLEU within a point, chrF within a point: another thread count may round a logit the other way) and the
CC-CEDICT check of the card's best cross-attention head on the same held-out pairs. The issue's floors
(en→zh ≥ 15 BLEU, zh→en ≥ 20 BLEU, ≤ 50 MB of safetensors each) are checked on the cards themselves.
"""

from __future__ import annotations

import pytest

from transformer.storage.registry import list_models, load_model
from transformer.tasks import get_task
from transformer.tasks.corpus import NaturalTranslation

NATURAL = [info.name for info in list_models() if isinstance(get_task(info.card["task"]), NaturalTranslation)]
BLEU_FLOOR = {"en-zh": 15.0, "zh-en": 20.0}  # by the task's direction
MAX_WEIGHTS = 50e6  # bytes of safetensors per model
EVERYDAY = {
    "en-zh": ("The animal didn't cross the street because it was too tired.", "My friend likes green tea."),
    "zh-en": ("我昨天和朋友去看电影。", "今天的天气很好，我们去公园散步吧。"),
}


def test_both_directions_are_shipped():
    assert {get_task(next(i for i in list_models() if i.name == n).card["task"]).direction for n in NATURAL} == {
        "en-zh",
        "zh-en",
    }


@pytest.mark.parametrize("name", NATURAL)
def test_the_card_meets_the_issues_floors_and_names_its_measure(name):
    info = next(i for i in list_models() if i.name == name)
    card, task = info.card, get_task(info.card["task"])
    assert card["metrics"]["heldout_bleu"] >= BLEU_FLOOR[task.direction], card["metrics"]
    assert card["command"].startswith(f"python -m transformer train --task {card['task']} ")
    assert (info.path / "model.safetensors").stat().st_size <= MAX_WEIGHTS
    markdown = (info.path / "card.md").read_text(encoding="utf-8")
    assert "sacrebleu" in markdown and "CC BY 2.0 FR" in markdown and "CC-CEDICT" in markdown
    assert card["trained_max_len"] == task.max_len


@pytest.mark.parametrize("name", NATURAL)
def test_everyday_sentences_read_without_unk_and_translate(name):
    bundle = load_model(name)
    direction = get_task(bundle.card["task"]).direction
    from transformer.engine.decoding import trace_text

    for text in EVERYDAY[direction]:
        assert "<unk>" not in (bundle.source_tokenizer or bundle.target_tokenizer).tokenize(text), text
        written = trace_text(bundle, text).output_text
        assert written.strip() and "<unk>" not in written, (text, written)
        if direction == "en-zh":
            assert any("\u4e00" <= ch <= "\u9fff" for ch in written), written
        else:
            assert any(ch.isascii() and ch.isalpha() for ch in written), written


@pytest.mark.slow
@pytest.mark.parametrize("name", NATURAL)
def test_heldout_bleu_and_chrf_are_the_cards_within_a_point(name):
    pytest.importorskip("sacrebleu")
    from transformer.probes.corpus import quality

    bundle = load_model(name)
    measured = quality(bundle, get_task(bundle.card["task"]))
    metrics = bundle.card["metrics"]
    assert measured.n == metrics["n_bleu"] and measured.references == metrics["n_references"]
    assert abs(measured.bleu - metrics["heldout_bleu"]) <= 1.0, (measured, metrics)
    assert abs(measured.chrf - metrics["heldout_chrf"]) <= 1.0, (measured, metrics)
    assert abs(measured.bleu_all_references - metrics["heldout_bleu_all_references"]) <= 1.0, (measured, metrics)


@pytest.mark.slow
@pytest.mark.parametrize("name", NATURAL)
def test_the_dictionary_alignment_of_the_cards_head_is_recomputed(name):
    pytest.importorskip("sacrebleu")  # the re-training extra, which brings CC-CEDICT too
    from transformer.probes.corpus import dictionary_alignment
    from transformer.training.evaluate import best_head

    bundle = load_model(name)
    attention = bundle.card["attention"]
    scores, counted = dictionary_alignment(bundle, get_task(bundle.card["task"]))
    assert counted == attention["n_tokens"]
    head = attention.get("best_cross_attention_head") or attention["best_prompt_attention_head"]  # decoder-only: prompt
    assert abs(scores[head] - attention["alignment_argmax_match"]) <= 0.01, (head, scores[head])
    assert scores[head] >= best_head(scores)[1] - 0.01  # still the best head, up to a tie


@pytest.mark.parametrize("name", NATURAL)
def test_the_input_description_reads_the_models_own_tokenizer(name, monkeypatch):
    """A page describes a corpus translator's input from its saved tokenizer, not by training one again (a second
    on the first page view), and the saved symbols are the ones the task's corpus gives."""
    from transformer.tasks import model_input_description

    bundle = load_model(name)
    task = get_task(bundle.card["task"])
    rebuilt = task.tokenizers()[0].vocab
    monkeypatch.setattr(NaturalTranslation, "tokenizers", lambda self: pytest.fail("tokenizers rebuilt"))
    description = model_input_description(bundle)
    assert description.symbols == tuple(rebuilt[4:]) == tuple((bundle.source_tokenizer or bundle.target_tokenizer).vocab[4:])
