"""A generated run under a look-ahead intervention is captured row by row from its own decoding
steps, so every row still predicts the token generation chose; `replace_pattern` runs at every step."""

from __future__ import annotations

import pytest
import torch

from hook_names import act_name
from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.engine.step_capture import capture_steps
from transformer.hooks import capture
from transformer.interventions import edit_mask, replace_pattern
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import random_bundle


def _bundle(architecture: str = "encoder-decoder") -> ModelBundle:
    config = TransformerConfig(architecture=architecture, n_layers=2, d_model=32, n_heads=4, d_ff=64, max_len=24)
    return random_bundle(config, seed=3, symbols="abcdefghijklmnopqrstuvwxyz ")


def _no_causal(bundle: ModelBundle) -> dict:
    return {act_name("decoder", i, "mask"): edit_mask(causal=False) for i in range(bundle.config.n_layers)}


def _rows_predict_what_was_generated(trace, max_new_tokens: int) -> None:
    start = len(trace.tgt_ids) - len(trace.output_tokens)
    assert trace.next_tokens[start - 1 : -1] == trace.tgt_tokens[start:]
    if len(trace.output_tokens) < max_new_tokens:
        assert trace.next_tokens[-1] == "<eos>"


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
@pytest.mark.parametrize("text", ["hello world", "abc", "the quick fox"])
def test_no_causal_capture_agrees_with_generation(architecture: str, text: str) -> None:
    bundle = _bundle(architecture)
    trace = trace_text(bundle, text, interventions=_no_causal(bundle), max_new_tokens=10)
    _rows_predict_what_was_generated(trace, 10)
    logits = trace.cache["generator.hook_logits"][0]  # (Tt, vocab): stitched like every other tensor
    first = len(trace.tgt_ids) - len(trace.output_tokens)  # the first step reads <bos> (+ the prompt) at once
    written = bundle.target_tokenizer.symbols(logits.argmax(-1).tolist())[first - 1 :]
    assert written == trace.next_tokens[first - 1 :]  # a prompt's rows are named by the prompt's next token instead
    assert trace.next_tokens[: first - 1] == trace.tgt_tokens[1:first]
    unseen = torch.ones(len(trace.tgt_ids), len(trace.tgt_ids), dtype=torch.bool).triu(1)  # (Tt, Tt) later keys
    unseen[: first - 1, :first] = False  # but the prompt's rows saw the whole prompt
    for i in range(bundle.config.n_layers):  # the newest query of a step has no later key
        pattern = trace.cache[act_name("decoder", i, "pattern")][0]  # (H, Tt, Tt)
        assert torch.all(pattern[:, unseen] == 0)
        assert torch.allclose(pattern.sum(-1), torch.ones(pattern.shape[:-1]))


def test_one_pass_would_not_agree_under_no_causal() -> None:
    """The reason for stepwise capture: one pass over the output lets rows read later tokens."""
    bundle = _bundle()
    trace = trace_text(bundle, "hello world", interventions=_no_causal(bundle), max_new_tokens=10)
    src, tgt = torch.tensor([trace.src_ids]), torch.tensor([trace.tgt_ids])
    with torch.no_grad(), capture(bundle.model, ["decoder.layers.0.self_attn.hook_pattern"], _no_causal(bundle)) as cache:
        bundle.model(src, tgt)
    assert cache["decoder.layers.0.self_attn.hook_pattern"][0].triu(1).sum() > 0


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_stepwise_capture_equals_one_pass_under_the_causal_mask(architecture: str) -> None:
    """Without interventions, each step's newest row is the full pass's row: the stitching picks the right rows."""
    bundle = _bundle(architecture)
    trace = trace_text(bundle, "hello", max_new_tokens=8)
    src = torch.tensor([trace.src_ids]) if trace.src_ids else None
    tgt = torch.tensor([trace.tgt_ids])
    first = len(trace.tgt_ids) - len(trace.output_tokens)
    stitched, logits = capture_steps(bundle.model, src, tgt, first, None, None)
    assert list(stitched) == list(trace.cache)
    assert torch.allclose(logits, trace.cache["generator.hook_logits"], atol=1e-5)
    for name, one_pass in trace.cache.items():
        got = stitched[name]
        assert got.shape == one_pass.shape, name
        if name.startswith("decoder.") and name.endswith("self_attn.hook_scores"):
            keep = torch.ones(got.shape[-2:], dtype=torch.bool).tril()  # raw scores of later keys did not exist
            got, one_pass = got[..., keep], one_pass[..., keep]
        if got.dtype == torch.bool:
            assert torch.equal(got, one_pass), name
        else:
            assert torch.allclose(got, one_pass, atol=1e-5), name


def test_replace_pattern_runs_at_every_decoding_step() -> None:
    bundle = _bundle()
    t = bundle.config.max_len
    causal = torch.ones(t, t).tril()
    causal = causal / causal.sum(-1, keepdim=True)  # (T, T): each query averages over keys 0..i
    name = "decoder.layers.0.self_attn.hook_pattern"
    trace = trace_text(bundle, "hello", interventions={name: replace_pattern(1, causal)}, max_new_tokens=8)
    tt = len(trace.tgt_ids)
    assert torch.allclose(trace.cache[name][0, 1], causal[:tt, :tt])
    _rows_predict_what_was_generated(trace, 8)


def test_replacement_above_the_diagonal_is_cropped_at_each_step() -> None:
    """A replacement that looks ahead: row i is taken from the step that read i + 1 tokens, where
    keys after i do not exist yet, so its weight there is dropped."""
    bundle = _bundle()
    t = bundle.config.max_len
    uniform = torch.full((t, t), 1.0 / 4)
    name = "decoder.layers.1.self_attn.hook_pattern"
    trace = trace_text(bundle, "hello", interventions={name: replace_pattern(2, uniform)}, max_new_tokens=8)
    _rows_predict_what_was_generated(trace, 8)
    tt = len(trace.tgt_ids)
    expected = uniform[:tt, :tt].tril()  # (Tt, Tt)
    assert torch.allclose(trace.cache[name][0, 2], expected)


def test_replace_pattern_too_small_says_so() -> None:
    bundle = _bundle()
    name = "decoder.layers.0.self_attn.hook_pattern"
    with pytest.raises(ValueError, match="does not cover"):
        trace_text(bundle, "hello", interventions={name: replace_pattern(0, torch.ones(1, 1))}, max_new_tokens=4)


def test_last_layer_without_the_mask_never_changes_generation() -> None:
    """Only earlier positions of the last layer see later tokens, and their outputs feed nothing the
    newest position reads: lifting the last layer's mask leaves every generated token as it was."""
    bundle = _bundle()
    last = act_name("decoder", bundle.config.n_layers - 1, "mask")
    for text in ["hello world", "abc", "zebra", "the quick fox"]:
        plain = trace_text(bundle, text, names=(), max_new_tokens=10)
        lifted = trace_text(bundle, text, names=(), interventions={last: edit_mask(causal=False)}, max_new_tokens=10)
        assert lifted.output_tokens == plain.output_tokens
