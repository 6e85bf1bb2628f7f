"""Decoder-only tasks: the one-sequence layout, the prompt-masked loss, evaluation by completion, training."""

from __future__ import annotations

import pytest
import torch

from transformer.tasks import GptEnglishToChinese, InductionTask, get_task, is_decoder_only
from transformer.text.prompt import CARD_KEY, PromptFormat, lm_sequence, prompt_format, with_suffix
from transformer.text.tokenizer import BOS_ID, EOS_ID, PAD_ID, WordTokenizer
from transformer.training.evaluate import evaluate, make_batch
from transformer.training.train import TrainSettings, build_bundle, train

TINY = {"n_layers": 1, "d_model": 32, "n_heads": 2, "d_ff": 64, "dropout": 0.0}


def test_registered_decoder_only_tasks_share_the_seq2seq_generators():
    gpt, seq2seq = get_task("gpt-translate-en-zh"), get_task("translate-en-zh")
    assert is_decoder_only(gpt) and is_decoder_only(get_task("induction")) and not is_decoder_only(seq2seq)
    assert gpt.examples(20, "heldout", 3) != []
    for example in gpt.examples(50, "train", 3):
        assert seq2seq.reference(example.source) == example
    vocabulary = set(gpt.vocabulary())
    assert vocabulary == {*seq2seq.source_vocabulary(), *seq2seq.target_vocabulary(), "="}


def test_lm_sequence_masks_the_prompt_and_ends_with_eos():
    tok = WordTokenizer(["a", "b", "=", "x", "y"])
    a, b, eq, x, y = (tok.index[s] for s in ("a", "b", "=", "x", "y"))
    fmt = PromptFormat(suffix=("=",))
    inputs, labels = lm_sequence(fmt, tok, ["a", "b"], ["x", "y"])
    assert inputs == [BOS_ID, a, b, eq, x, y]
    assert labels == [PAD_ID, PAD_ID, PAD_ID, x, y, EOS_ID]  # the "=" position predicts the first output word
    plain = PromptFormat(loss_on_prompt=True, end_with_eos=False)
    assert lm_sequence(plain, tok, ["a", "b"], ["x"]) == ([BOS_ID, a, b], [a, b, x])
    assert with_suffix(["a", "="], fmt) == ["a", "="] and with_suffix(["a"], fmt) == ["a", "="]
    assert PromptFormat.from_dict(fmt.to_dict()) == fmt
    with pytest.raises(ValueError, match="prompt format"):
        PromptFormat.from_dict({"suffix": "=", "extra": 1})


def test_build_bundle_makes_a_decoder_only_model_that_knows_its_prompt():
    task = GptEnglishToChinese()
    bundle = build_bundle(task, TrainSettings(task=task.name, config=TINY))
    assert not bundle.config.is_encoder_decoder and bundle.source_tokenizer is None
    assert bundle.config.tgt_vocab_size == len(task.vocabulary()) + 4
    assert prompt_format(bundle) == task.prompt_format and CARD_KEY in bundle.card
    batch = make_batch(bundle, task.examples(4, "train", 0))
    assert batch.src is None
    counted = batch.tgt_out != PAD_ID
    for row in range(4):  # the loss covers exactly the Chinese words + <eos>
        example = task.examples(4, "train", 0)[row]
        assert counted[row].sum().item() == len(example.target.split()) + 1
    with pytest.raises(ValueError, match="decoder-only"):
        build_bundle(task, TrainSettings(task=task.name, config={**TINY, "architecture": "encoder-decoder"}))


@pytest.mark.slow
def test_training_a_decoder_only_model_lowers_its_loss_and_evaluates_by_completion():
    task = InductionTask(min_half=3, max_half=5)
    settings = TrainSettings(task="induction", steps=60, config=TINY, batch_size=16, warmup=10, eval_every=0, seed=1)
    torch.set_num_threads(1)
    result = train(settings, task=task)
    assert sum(result.losses[-10:]) < sum(result.losses[:10])
    heldout = task.examples(30, "heldout", 0)
    metrics = evaluate(result.bundle, heldout)
    assert metrics.n == 30 and 0.0 <= metrics.exact_match <= 1.0
    # an untrained model's completion of the repeat is wrong, so exact match can fail
    untrained = build_bundle(task, settings)
    assert evaluate(untrained, heldout).exact_match < 0.5


def test_induction_task_reference_and_alignment():
    task = get_task("induction")
    leads = set()
    for example in task.examples(200, "train", 2):
        body, last = example.source[:-1], example.source[-1]
        assert len(set(body)) == len(body)  # lead + h: distinct symbols, so each repeated one occurred once before
        lead = body.index(last)  # the repeat starts with h's first symbol
        leads.add(lead)
        assert example.target == body[lead + 1 :]
        assert task.reference(example.source) == example
        assert [example.source[i] for i in example.alignment] == list(example.target)
    assert 0 in leads and len(leads) > 3  # pure repeats and varying lead-ins
    assert task.reference("abcab").target == "c" and task.reference("xyabcab").target == "c"
    assert task.reference("abcd") is None and task.reference("aab") is None and task.reference("abcabd") is None
