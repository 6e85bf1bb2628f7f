"""The shipped decoder-only models: gpt-translate-en-zh translates by completion; induction has its heads.

Measured on the weights in assets/models/, on held-out inputs, and compared with their cards.
"""

from __future__ import annotations

import numpy as np
import pytest

from transformer.engine.decoding import trace_text
from transformer.probes.detector_inputs import DECODER_SELF, detector_inputs
from transformer.probes.head_scores import DIAGONAL, INDUCTION, PREVIOUS_TOKEN, head_scores, previous_token_score
from transformer.probes.induction_probe import N_SEQUENCES, SEED, induction_measurements, induction_report, pure_repeats
from transformer.storage.registry import load_model
from transformer.tasks import get_task
from transformer.training.evaluate import best_head, cross_attention_alignment, evaluate, is_reordered

TEXT = "i read a book in the library today"


@pytest.fixture(scope="module")
def gpt():
    return load_model("gpt-translate-en-zh")


@pytest.fixture(scope="module")
def induction():
    return load_model("induction")


def test_gpt_is_a_pre_norm_decoder_only_model_with_a_prompt_separator(gpt):
    assert gpt.config.architecture == "decoder-only" and gpt.config.norm_position == "pre"
    assert gpt.source_tokenizer is None
    assert gpt.card["prompt"] == {"suffix": ["="], "loss_on_prompt": False, "end_with_eos": True}
    assert gpt.card["metrics"]["heldout_exact_match"] >= 0.95


@pytest.mark.slow
def test_gpt_translates_held_out_sentences_by_completion(gpt):
    task = get_task("gpt-translate-en-zh")
    result = evaluate(gpt, task.examples(300, split="heldout", seed=31))
    assert result.exact_match >= 0.95, result.failures[:3]


def test_gpt_reads_the_prompt_with_self_attention_where_the_translator_uses_cross_attention(gpt):
    """Some self-attention head of the completion looks at the English word each Chinese word translates."""
    moved = [e for e in get_task("gpt-translate-en-zh").examples(300, split="heldout", seed=99) if is_reordered(e)]
    head, score = best_head(cross_attention_alignment(gpt, moved))
    assert "self_attn" in head and score >= 0.6, (head, score)


def test_trace_text_completes_the_english_sentence(gpt):
    trace = trace_text(gpt, TEXT)
    assert trace.output_text == "我 今天 在 图书馆 读 一 本 书"
    assert trace.tgt_tokens[: len(TEXT.split()) + 2] == ["<bos>", *TEXT.split(), "="]


@pytest.mark.parametrize("text", [TEXT, "i read", "x y z"])
def test_prompt_rows_are_named_by_the_next_prompt_token_and_completion_rows_by_what_they_write(gpt, text):
    """Issue 10 §1 for a decoder-only model: a prompt row writes nothing (its next token is given, and the model
    was never trained to guess it), so it is named by the prompt's next token; from the last prompt token ("=")
    on, each row is named by the token it wrote."""
    trace = trace_text(gpt, text)
    prompt = len(trace.tgt_tokens) - len(trace.output_tokens)  # <bos> + words + "="
    assert trace.next_tokens[: prompt - 1] == trace.tgt_tokens[1:prompt]
    assert trace.next_tokens[prompt - 1 :][: len(trace.output_tokens)] == trace.output_tokens


def test_trace_text_with_the_separator_typed_completes_the_sentence(gpt):
    assert trace_text(gpt, TEXT + " =").output_text == "我 今天 在 图书馆 读 一 本 书"


def test_induction_model_has_a_previous_token_head_then_an_induction_head(induction):
    """On a fresh repeated random sequence: layer 0 looks one back, layer 1 looks after the earlier occurrence."""
    assert induction.config.n_layers == 2 and induction.config.architecture == "decoder-only"
    for seed in range(3):
        inputs = detector_inputs(induction, half=20, seed=seed)
        patterns = inputs.patterns[DECODER_SELF]  # (L, H, T, T)
        table = head_scores(patterns, inputs.ids[DECODER_SELF])
        previous, induct, diagonal = table.score(PREVIOUS_TOKEN), table.score(INDUCTION), table.score(DIAGONAL)
        t = patterns.shape[-1]
        uniform = previous_token_score(np.tril(np.ones((1, 1, t, t))) / np.arange(1, t + 1)[:, None])[0, 0]
        # layer 0 reads the previous token (about 0.4 of its weight; most of the rest on the token itself)...
        assert previous[0].max() >= 4 * uniform, (previous, uniform)
        assert previous[0].max() > diagonal[0].max()
        assert previous[0].max() >= 2 * previous[1].max()
        # ...so that layer 1 can find the token after the earlier occurrence
        assert induct[1].max() >= 0.9, induct
        assert induct[0].max() < 0.1  # one layer cannot do it: the induction head needs the previous-token head before it


def test_induction_card_records_what_the_weights_do(induction):
    card = induction.card
    attention, metrics = induction_report(induction, card["attention"]["n_sequences"], SEED)
    assert attention == card["attention"]
    for key, value in metrics.items():
        assert card["metrics"][key] == pytest.approx(value, abs=2e-3), key
    assert card["metrics"]["induction_score"] >= 0.9
    assert card["metrics"]["loss_repeated_half"] < 0.1 * card["metrics"]["loss_first_half"]


def test_induction_loss_falls_on_the_repeated_half_of_held_out_sequences(induction):
    found = induction_measurements(induction, pure_repeats(100, seed=5))
    assert found["loss_first_half"] > 3.0  # ~ln(62): the first half is random
    assert found["loss_repeated_half"] < 0.1 * found["loss_first_half"]
    assert np.nanmax(found["induction"][1]) >= 0.9
    assert N_SEQUENCES >= 100


def test_the_translators_are_registered_as_counterparts():
    from transformer.storage.registry import counterpart, list_models

    shipped = {info.name for info in list_models()}
    assert {"gpt-translate-en-zh", "induction"} <= shipped
    assert counterpart("translate-en-zh") == "gpt-translate-en-zh" and counterpart("gpt-translate-en-zh") == "translate-en-zh"
    assert counterpart("induction") is None
    a, b = load_model("translate-en-zh"), load_model("gpt-translate-en-zh")
    assert get_task(a.card["task"]).reference(TEXT).target == get_task(b.card["task"]).reference(TEXT).target
