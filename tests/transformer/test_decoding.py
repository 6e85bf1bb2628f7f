"""Greedy decoding and `trace_text`: a memorized mapping, cache shapes, truncation, unknown symbols,
and consistency between what decoding chose and what the captured pass shows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
import torch.nn.functional as F

from hook_names import act_name
from transformer.config import TransformerConfig
from transformer.engine.decoding import CONTINUATION_TOKENS, CONTINUATION_WORK, greedy_decode, new_token_budget, trace_text
from transformer.interventions import edit_mask
from transformer.model import Transformer
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import random_bundle
from transformer.text.tokenizer import BOS_ID, EOS_ID, PAD_ID, CharTokenizer

PAIRS = [("abcd", "dcba"), ("eab", "bae")]  # reverse the string


@pytest.fixture(autouse=True, scope="module")
def _one_intra_op_thread() -> Iterator[None]:
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matmuls: a second OpenMP worker only adds contention
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _pad(rows: list[list[int]]) -> torch.Tensor:
    width = max(map(len, rows))
    return torch.tensor([r + [PAD_ID] * (width - len(r)) for r in rows])


@pytest.fixture(scope="module")
def trained() -> ModelBundle:
    """A tiny encoder-decoder that has memorized PAIRS (seeded; well under a few seconds)."""
    tok = CharTokenizer("abcde")
    torch.manual_seed(0)
    config = TransformerConfig(
        src_vocab_size=len(tok), tgt_vocab_size=len(tok), n_layers=2, d_model=32, n_heads=4, d_ff=64, dropout=0.0, max_len=16
    )
    model = Transformer(config)
    src = _pad([tok.encode(s, eos=True) for s, _ in PAIRS])
    tgt_in = _pad([tok.encode(t, bos=True) for _, t in PAIRS])
    tgt_out = _pad([tok.encode(t, eos=True) for _, t in PAIRS])
    # Adam written out (Kingma & Ba, Algorithm 1): constructing torch.optim.Adam imports
    # torch._dynamo, which costs seconds on a busy 2-core machine, far more than the training.
    params = list(model.parameters())
    lr, beta1, beta2, eps = 3e-3, 0.9, 0.999, 1e-8
    moments = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]
    for step in range(1, 151):  # memorized after ~35 steps; stopping early keeps the fixture fast
        logits = model(src, tgt_in)
        loss = F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=PAD_ID)
        if loss.item() < 0.01:
            break
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g, (m, v) in zip(params, grads, moments, strict=True):
                m.mul_(beta1).add_(g, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
                p -= lr * (m / (1 - beta1**step)) / ((v / (1 - beta2**step)).sqrt() + eps)
    assert loss.item() < 0.01
    return ModelBundle(model.eval(), tok, tok, name="reverse-tiny")


def test_greedy_decode_reproduces_memorized_mapping(trained: ModelBundle) -> None:
    tok = trained.target_tokenizer
    for source, target in PAIRS:
        src = torch.tensor([tok.encode(source, eos=True)])
        ys = greedy_decode(trained.model, src, torch.tensor([[BOS_ID]]), max_new_tokens=10)
        assert ys[0].tolist() == [BOS_ID, *tok.encode(target), EOS_ID]


def test_greedy_decode_batch_pads_finished_rows_with_eos(trained: ModelBundle) -> None:
    tok = trained.target_tokenizer
    src = _pad([tok.encode(s, eos=True) for s, _ in PAIRS])
    ys = greedy_decode(trained.model, src, torch.full((2, 1), BOS_ID), max_new_tokens=10)
    assert ys.shape == (2, 6)  # <bos> + "dcba" + <eos>; the shorter row is padded with <eos>
    assert ys[0].tolist() == [BOS_ID, *tok.encode("dcba"), EOS_ID]
    assert ys[1].tolist() == [BOS_ID, *tok.encode("bae"), EOS_ID, EOS_ID]


def test_greedy_decode_respects_max_new_tokens(trained: ModelBundle) -> None:
    src = torch.tensor([trained.target_tokenizer.encode("abcd", eos=True)])
    assert greedy_decode(trained.model, src, torch.tensor([[BOS_ID]]), max_new_tokens=2).shape == (1, 3)


def test_trace_text_outputs_and_cache_shapes(trained: ModelBundle) -> None:
    trace = trace_text(trained, "abcd")
    assert trace.output_text == "dcba"
    assert trace.output_tokens == list("dcba")
    assert trace.src_tokens == [*"abcd", "<eos>"]
    assert trace.tgt_tokens == ["<bos>", *"dcba"]
    assert not trace.truncated and trace.unknown == []
    h, tq, tk = trained.config.n_heads, len(trace.tgt_tokens), len(trace.src_tokens)
    for i in range(2):
        assert trace.cache[act_name("cross", i, "pattern")].shape == (1, h, tq, tk)
        assert trace.cache[act_name("decoder", i, "pattern")].shape == (1, h, tq, tq)
        assert trace.cache[act_name("encoder", i, "pattern")].shape == (1, h, tk, tk)


def test_trace_text_names_limits_the_cache(trained: ModelBundle) -> None:
    name = "decoder.layers.1.cross_attn.hook_pattern"
    trace = trace_text(trained, "eab", names=[name])
    assert list(trace.cache) == [name]
    assert trace.output_text == "bae"


def _assert_capture_matches_decoding(bundle: ModelBundle, trace, max_new_tokens: int) -> None:
    """The captured teacher-forced pass predicts, at each position, the token decoding chose next."""
    index = bundle.target_tokenizer.index
    tgt_ids = [index[t] for t in trace.tgt_tokens]
    chosen = trace.cache["generator.hook_logits"][0].argmax(-1).tolist()  # (Tt,)
    start = len(tgt_ids) - len(trace.output_tokens)  # 1 (<bos>), or <bos> + prompt for decoder-only
    assert start >= 1
    assert chosen[start - 1 : -1] == tgt_ids[start:]
    stopped_by_eos = len(trace.output_tokens) < max_new_tokens and len(tgt_ids) < bundle.config.max_len
    if stopped_by_eos:
        assert chosen[-1] == EOS_ID


def test_capture_logits_agree_with_decoded_tokens(trained: ModelBundle) -> None:
    trace = trace_text(trained, "abcd", max_new_tokens=10)
    _assert_capture_matches_decoding(trained, trace, 10)
    assert trace.cache["generator.hook_logits"][0, -1].argmax().item() == EOS_ID


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
@pytest.mark.parametrize("text", ["hello", "abc xyz", "q"])
def test_capture_logits_agree_with_decoded_tokens_random_models(architecture: str, text: str) -> None:
    config = TransformerConfig(architecture=architecture, n_layers=2, d_model=32, n_heads=4, d_ff=64, max_len=40)
    bundle = random_bundle(config, seed=7, symbols="abcdefghijklmnopqrstuvwxyz ")
    trace = trace_text(bundle, text, max_new_tokens=12)
    assert len(trace.output_tokens) <= 12
    _assert_capture_matches_decoding(bundle, trace, 12)


def test_interventions_apply_to_decoding_and_capture_alike(trained: ModelBundle) -> None:
    blind = {act_name("cross", i, "mask"): edit_mask(blocked_keys=[0, 1, 2, 3]) for i in range(2)}
    trace = trace_text(trained, "abcd", interventions=blind, max_new_tokens=10)
    assert trace.output_text != "dcba"  # with only <eos> visible, the decoder cannot read the source
    _assert_capture_matches_decoding(trained, trace, 10)
    assert torch.all(trace.cache["decoder.layers.0.cross_attn.hook_pattern"][..., :4] == 0.0)
    assert trace_text(trained, "abcd").output_text == "dcba"  # and nothing stuck to the model


def test_truncation_respects_max_len() -> None:
    config = TransformerConfig(n_layers=2, d_model=16, n_heads=2, d_ff=32, max_len=8)
    bundle = random_bundle(config, seed=1, symbols="abcdefghij")
    long = trace_text(bundle, "abcdefghijabcdefghij")
    assert long.truncated
    assert long.text == "abcdefg"  # max_len - 1 symbols, leaving room for <eos>
    assert long.src_tokens == [*"abcdefg", "<eos>"]
    assert len(long.tgt_tokens) <= 8
    assert long.cache["decoder.layers.0.cross_attn.hook_pattern"].shape[-1] == 8
    exact = trace_text(bundle, "abcdefg")
    assert not exact.truncated and exact.text == "abcdefg"


def test_truncation_decoder_only() -> None:
    config = TransformerConfig(architecture="decoder-only", n_layers=2, d_model=16, n_heads=2, d_ff=32, max_len=8)
    bundle = random_bundle(config, seed=1, symbols="abcdefghij")
    trace = trace_text(bundle, "abcdefghij")
    assert trace.truncated and trace.text == "abcdefg"
    assert trace.src_tokens == []
    assert trace.tgt_tokens[:8] == ["<bos>", *"abcdefg"] and len(trace.tgt_tokens) == 8
    assert trace.output_tokens == []  # no room left to continue
    assert trace.cache["decoder.layers.1.self_attn.hook_pattern"].shape == (1, 2, 8, 8)


def test_a_large_decoder_only_models_continuation_is_bounded_by_its_cost() -> None:
    """A decoder-only model writes at most 64 tokens, fewer as its parameters grow (each token reads every weight),
    whatever its prompt's length. An encoder-decoder's budget follows its input."""
    small = TransformerConfig(architecture="decoder-only", n_layers=2, d_model=64, n_heads=4, d_ff=256, max_len=128)
    gpt2 = TransformerConfig(
        architecture="decoder-only", n_layers=12, d_model=768, n_heads=12, d_ff=3072, max_len=1024, tgt_vocab_size=50257
    )
    deeper = TransformerConfig(**{**gpt2.__dict__, "n_layers": 24})
    assert new_token_budget(small, 10) == new_token_budget(small, 100) == CONTINUATION_TOKENS == 64
    budgets = [new_token_budget(config, n) for config in (gpt2, deeper) for n in (10, 900)]
    assert budgets[0] == budgets[1] == CONTINUATION_WORK // gpt2.estimated_parameters() and 8 <= budgets[0] < 64, budgets
    assert budgets[2] == budgets[3] == CONTINUATION_WORK // deeper.estimated_parameters() < budgets[0], budgets
    assert new_token_budget(TransformerConfig(max_len=512), 100) == 216  # 2 n + 16: a translation follows its input


def test_unknown_symbols_are_listed() -> None:
    config = TransformerConfig(n_layers=2, d_model=16, n_heads=2, d_ff=32, max_len=32)
    bundle = random_bundle(config, seed=1, symbols="abc ")
    trace = trace_text(bundle, "ab猫cx猫 🚀", max_new_tokens=3)
    assert trace.unknown == ["猫", "x", "🚀"]
    assert trace.src_tokens == ["a", "b", "<unk>", "c", "<unk>", "<unk>", " ", "<unk>", "<eos>"]
    assert trace_text(bundle, "abc", max_new_tokens=3).unknown == []


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_teacher_forcing_reads_the_text_in_one_pass_and_predicts_every_position(architecture: str) -> None:
    config = TransformerConfig(architecture=architecture, n_layers=2, d_model=16, n_heads=2, d_ff=32, max_len=8)
    bundle = random_bundle(config, seed=2, symbols="abcdefghij")
    trace = trace_text(bundle, "abcdefghij", generate=False)  # truncated to 7 symbols
    assert trace.teacher_forced and trace.truncated
    assert trace.tgt_tokens == ["<bos>", *"abcdefg"]
    tgt = torch.tensor([bundle.target_tokenizer.encode("abcdefg", bos=True)])  # (1, 8)
    src = torch.tensor([bundle.source_tokenizer.encode("abcdefg", eos=True)]) if bundle.source_tokenizer else None
    with torch.no_grad():
        expected = bundle.model(src, tgt)[0].argmax(-1).tolist()  # (8,)
    assert trace.output_tokens == bundle.target_tokenizer.symbols(expected)
    assert trace.cache["decoder.layers.1.self_attn.hook_pattern"].shape == (1, 2, 8, 8)
    assert not trace_text(bundle, "abc").teacher_forced


def test_next_tokens_say_what_each_decoder_row_writes(trained: ModelBundle) -> None:
    trace = trace_text(trained, "abcd", max_new_tokens=10)
    assert trace.next_tokens == [*"dcba", "<eos>"]  # row i writes tgt[i + 1]; the last row writes <eos>
    assert trace.next_tokens[:-1] == trace.tgt_tokens[1:]
    tok = trained.target_tokenizer
    assert trace.src_ids == tok.encode("abcd", eos=True)
    assert trace.tgt_ids == tok.encode("dcba", bos=True)
    assert tok.symbols(trace.tgt_ids) == trace.tgt_tokens


def test_next_tokens_of_a_teacher_forced_run_are_its_predictions() -> None:
    config = TransformerConfig(n_layers=2, d_model=16, n_heads=2, d_ff=32, max_len=16)
    bundle = random_bundle(config, seed=4, symbols="abcdefghij")
    trace = trace_text(bundle, "abcabc", generate=False)
    assert trace.next_tokens == trace.output_tokens
    assert len(trace.next_tokens) == len(trace.tgt_tokens) == len(trace.tgt_ids)
    logits = trace.cache["generator.hook_logits"][0]  # (Tt, vocab)
    assert trace.next_tokens == bundle.target_tokenizer.symbols(logits.argmax(-1).tolist())


def test_next_tokens_follow_the_interventions(trained: ModelBundle) -> None:
    blind = {act_name("cross", i, "mask"): edit_mask(blocked_keys=[0, 1, 2, 3]) for i in range(2)}
    trace = trace_text(trained, "abcd", interventions=blind, max_new_tokens=10)
    assert trace.next_tokens[:-1] == trace.tgt_tokens[1:]
    assert trace.next_tokens != [*"dcba", "<eos>"]
