"""Recording while decoding: the key/value cache's steps, put together, record what one teacher-forced pass over
the output records (every hook, its shape, within float32 rounding), write the same tokens, and say where they
cannot (an intervention the cache does not honour). Which runs use it: large models only."""

from __future__ import annotations

import pytest
import torch

from hook_names import act_name
from transformer.config import TransformerConfig
from transformer.engine import recorded_decoding
from transformer.engine.decoding import greedy_decode, trace_text
from transformer.engine.recorded_decoding import decode_recording, records_while_decoding
from transformer.hooks import capture, intervene
from transformer.interventions import InterventionSpec, build_interventions, edit_mask, replace_pattern
from transformer.model import Transformer
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import list_models, load_model, random_bundle
from transformer.text.prompt import text_rows
from transformer.text.tokenizer import EOS_ID

ROUNDING = 1e-5  # a product over one row rounds differently from one over many (the module's docstring)
CONFIGS = [
    {},
    {"norm_position": "pre"},
    {"positional": "learned"},
    {"positional": "sinusoidal-split"},
    {"share_embeddings": True},
]


def _random(architecture: str, max_len: int = 40, **options) -> ModelBundle:
    config = TransformerConfig(architecture=architecture, n_layers=2, d_model=32, n_heads=4, d_ff=64, max_len=max_len, **options)
    return random_bundle(config, seed=11, symbols="abcdefghijklmnopqrstuvwxyz ")


def _inputs(bundle: ModelBundle, text: str) -> tuple[torch.Tensor | None, torch.Tensor]:
    rows = text_rows(bundle, text)
    return (None if rows.src is None else torch.tensor([rows.src])), torch.tensor([rows.prefix])


def _one_pass(bundle: ModelBundle, src, tgt_in, names=None, interventions=None):
    with torch.no_grad(), capture(bundle.model, names, interventions) as cache:
        logits = bundle.model(src, tgt_in)  # (1, Tt, vocab)
    return cache, logits


def _agree(recorded, cache) -> None:
    assert list(recorded.cache) == list(cache)  # the same names, in the order one pass records them
    for name in cache:
        got, want = recorded.cache[name], cache[name]
        assert got.shape == want.shape, name
        if want.dtype == torch.bool:
            assert torch.equal(got, want), name
        else:
            torch.testing.assert_close(got, want, atol=ROUNDING, rtol=ROUNDING, msg=name)


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "paper")
@pytest.mark.parametrize("text", ["the quick brown fox", "ab"])
def test_the_steps_record_every_hook_of_one_pass_over_the_output(architecture: str, options: dict, text: str) -> None:
    bundle = _random(architecture, **options)
    src, prefix = _inputs(bundle, text)
    recorded = decode_recording(bundle.model, src, prefix, 12, None, None)
    assert recorded is not None
    ys = greedy_decode(bundle.model, src, prefix, 12)[0].tolist()
    written = ys[: ys.index(EOS_ID)] if EOS_ID in ys else ys
    assert recorded.tgt_in[0].tolist() == written  # the tokens greedy decoding writes, without <eos>
    cache, logits = _one_pass(bundle, src, recorded.tgt_in)
    _agree(recorded, cache)
    given = prefix.shape[1] - 1
    assert recorded.next_ids[:given] == prefix[0, 1:].tolist()  # a prompt's rows: its own next token
    assert recorded.next_ids[given:] == logits[0, given:].argmax(-1).tolist()


def test_raw_scores_of_later_keys_are_q_dot_k_as_in_one_pass() -> None:
    """A step never scores a key that does not exist yet; one pass does, before the mask (the step-by-step page
    checks q·kᵀ/√d_k against them). Recorded without the queries and keys, which are asked for only to fill them."""
    bundle = _random("decoder-only")
    src, prefix = _inputs(bundle, "hello")
    scores = [act_name("decoder", i, "scores") for i in range(2)]
    recorded = decode_recording(bundle.model, src, prefix, 10, scores, None)
    assert list(recorded.cache) == scores
    cache, _ = _one_pass(bundle, src, recorded.tgt_in, scores)
    later = torch.ones(recorded.tgt_in.shape[1], recorded.tgt_in.shape[1], dtype=torch.bool).triu(1)
    for name in scores:
        assert torch.all(recorded.cache[name][0][:, later] > -1e3)  # real scores, not the mask's minimum
        torch.testing.assert_close(recorded.cache[name], cache[name], atol=ROUNDING, rtol=ROUNDING)


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_a_run_that_stops_at_its_budget_reads_its_last_token(architecture: str) -> None:
    """Decoding that ends without <eos> wrote a token no step read: one more step records its row."""
    bundle = _random(architecture)
    texts = ["abc", "hello", "zzz", "the quick brown fox", "a b c d"]
    endless = [t for t in texts if EOS_ID not in greedy_decode(bundle.model, *_inputs(bundle, t), 3)[0].tolist()]
    assert endless, "some text must not end within 3 tokens"
    src, prefix = _inputs(bundle, endless[0])
    recorded = decode_recording(bundle.model, src, prefix, 3, None, None)
    assert recorded.tgt_in.shape[1] == prefix.shape[1] + 3
    _agree(recorded, _one_pass(bundle, src, recorded.tgt_in)[0])


def test_a_prompt_that_fills_the_model_is_read_once_and_recorded() -> None:
    bundle = _random("decoder-only", max_len=12)
    src, prefix = _inputs(bundle, "abcdefghijklmnopqrstuvwxyz")  # cut to the model's length
    assert prefix.shape[1] == bundle.config.max_len
    recorded = decode_recording(bundle.model, src, prefix, 0, None, None)
    assert torch.equal(recorded.tgt_in, prefix)
    _agree(recorded, _one_pass(bundle, src, prefix)[0])


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_interventions_the_cache_honours_are_recorded_with_their_meaning(architecture: str) -> None:
    bundle = _random(architecture)
    src, prefix = _inputs(bundle, "hello world")
    specs = [
        InterventionSpec("zero_output", "decoder.layers.0.self_attn", head=1),
        InterventionSpec("block_keys", "decoder.layers.1.self_attn", keys=(1, 3)),
    ]
    if architecture == "encoder-decoder":
        specs.append(InterventionSpec("zero_pattern", "decoder.layers.0.cross_attn", head=2))
    interventions = build_interventions(specs)
    recorded = decode_recording(bundle.model, src, prefix, 15, None, interventions)
    with intervene(bundle.model, interventions):
        ys = greedy_decode(bundle.model, src, prefix, 15, incremental=False)[0].tolist()
    assert recorded.tgt_in[0].tolist() == (ys[: ys.index(EOS_ID)] if EOS_ID in ys else ys)
    _agree(recorded, _one_pass(bundle, src, recorded.tgt_in, interventions=interventions)[0])


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_interventions_the_cache_cannot_honour_are_left_to_the_other_capture(architecture: str) -> None:
    bundle = _random(architecture)
    src, prefix = _inputs(bundle, "hello")
    lifted = {act_name("decoder", 0, "mask"): edit_mask(causal=False)}
    replaced = {act_name("decoder", 1, "pattern"): replace_pattern(0, torch.eye(40))}
    edited_scores = {act_name("decoder", 0, "scores"): lambda x: x}  # `_fill_scores` could not honour it
    for interventions in (lifted, replaced, edited_scores):
        assert decode_recording(bundle.model, src, prefix, 5, None, interventions) is None


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_trace_text_records_by_steps_above_the_threshold_and_writes_the_same(architecture: str, monkeypatch) -> None:
    bundle = _random(architecture)
    one_pass = trace_text(bundle, "a quick test")
    monkeypatch.setattr(recorded_decoding, "SECOND_PASS_WORK", 0)
    assert records_while_decoding(bundle.model, 1)
    stepped = trace_text(bundle, "a quick test")
    assert (stepped.tgt_ids, stepped.output_tokens, stepped.next_tokens) == (
        one_pass.tgt_ids,
        one_pass.output_tokens,
        one_pass.next_tokens,
    )
    for name in one_pass.cache:
        torch.testing.assert_close(stepped.cache[name].float(), one_pass.cache[name].float(), atol=ROUNDING, rtol=ROUNDING)


def test_every_shipped_model_keeps_its_exact_single_pass_and_gpt2_small_records_by_steps() -> None:
    for info in list_models():
        bundle = load_model(info.name)
        assert not records_while_decoding(bundle.model, bundle.config.max_len), info.name
    gpt2_small = TransformerConfig(
        architecture="decoder-only", n_layers=12, d_model=768, n_heads=12, d_ff=3072, max_len=1024,
        src_vocab_size=50257, tgt_vocab_size=50257, share_embeddings=True, positional="learned", norm_position="pre",
    )  # fmt: skip
    model = Transformer.unfilled(gpt2_small)  # built without filling its weights: only the count is read
    assert records_while_decoding(model, 1024)
    assert not records_while_decoding(model, 16)
