"""bfloat16 arithmetic for a large model's long input (`transformer.engine.precision`): float32 unless asked, and when
asked, the products in bfloat16 while the scores, the softmax and the residual stream stay float32, the weights
within bfloat16's rounding of float32's, every row still summing to 1. And the attention steps that overwrite their
own tensors (`apply_mask`, `masked_softmax` with `in_place`) give the same bits, and never overwrite one a capture
keeps."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from hook_names import act_name
from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.engine.precision import arithmetic
from transformer.engine.records import capture, keeping
from transformer.engine.steps import apply_mask, masked_softmax
from transformer.storage.registry import random_bundle

BFLOAT16_WEIGHTS = 2e-2  # 8 significant bits in each product; softmax in float32 (the module's docstring)


def _random(architecture: str, **options):
    config = TransformerConfig(architecture=architecture, n_layers=2, d_model=64, n_heads=4, d_ff=128, max_len=64, **options)
    return random_bundle(config, seed=5, symbols="abcdefghijklmnopqrstuvwxyz ")


def _run(bundle, names=None):
    config = bundle.config
    src = torch.tensor([[4, 5, 6, 7, 8, 9, 10, 2]]) if config.is_encoder_decoder or config.is_encoder_only else None
    tgt = None if config.is_encoder_only else torch.tensor([[1, 11, 12, 13, 14, 15]])
    with torch.no_grad(), capture(bundle.model, names) as cache:
        logits = bundle.model(src, tgt)
    return dict(cache), logits


def test_float32_arithmetic_changes_nothing():
    bundle = _random("encoder-decoder")
    plain, logits = _run(bundle)
    with arithmetic("float32"):
        inside, inside_logits = _run(bundle)
    assert torch.equal(logits, inside_logits)
    assert all(torch.equal(plain[name], inside[name]) for name in plain)


def test_an_unknown_precision_is_refused():
    with pytest.raises(ValueError, match="float16"), arithmetic("float16"):  # type: ignore[arg-type]
        pass


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only", "encoder-only"])
def test_bfloat16_multiplies_in_bfloat16_and_keeps_scores_softmax_and_residuals_float32(architecture):
    bundle = _random(architecture)
    exact, _ = _run(bundle)
    with arithmetic("bfloat16"):
        fast, _ = _run(bundle)
    kind = "encoder" if architecture == "encoder-only" else "decoder"
    q = fast[act_name(kind, 0, "q")]
    assert q.dtype == torch.bfloat16  # a linear layer's output: the product ran in bfloat16
    for hook in ("scores", "masked_scores", "pattern"):
        assert fast[act_name(kind, 0, hook)].dtype == torch.float32, hook
    residual = [name for name in fast if name.endswith("hook_resid")]
    assert residual and all(fast[name].dtype == torch.float32 for name in residual)
    for name in (n for n in exact if n.endswith("hook_pattern")):
        got, want = fast[name], exact[name]
        assert (got - want).abs().max() < BFLOAT16_WEIGHTS, name
        assert not torch.equal(got, want), name  # it did compute in bfloat16
        torch.testing.assert_close(got.sum(-1), torch.ones_like(got.sum(-1)), atol=1e-5, rtol=0)
        assert torch.equal(got == 0, want == 0), name  # masked keys exactly 0, the same ones


def test_bfloat16_scores_are_the_rounded_queries_and_keys_multiplied_in_float32():
    bundle = _random("decoder-only")
    with arithmetic("bfloat16"):
        fast, _ = _run(bundle)
    q, k = fast[act_name("decoder", 1, "q")].float(), fast[act_name("decoder", 1, "k")].float()
    scores = fast[act_name("decoder", 1, "scores")]
    torch.testing.assert_close(scores, q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), atol=1e-6, rtol=1e-6)


def test_training_autocast_keeps_its_own_scores():
    """Training's `--bf16` autocast is not `arithmetic`: its scores stay as autocast makes them (bfloat16)."""
    bundle = _random("decoder-only")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        cache, _ = _run(bundle, names=[act_name("decoder", 0, "scores")])
    assert cache[act_name("decoder", 0, "scores")].dtype == torch.bfloat16


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_trace_text_says_which_arithmetic_it_used(architecture):
    bundle = _random(architecture)
    assert trace_text(bundle, "a cab", names=()).precision == "float32"
    fast = trace_text(bundle, "a cab", names=(), precision="bfloat16")
    assert fast.precision == "bfloat16"


def test_masking_and_softmax_in_place_give_the_same_bits():
    torch.manual_seed(0)
    scores = torch.randn(2, 3, 7, 7) * 6
    allowed = torch.ones(7, 7, dtype=torch.bool).tril().expand(2, 1, 7, 7).clone()
    allowed[1, :, 4] = False  # a fully masked row: all zeros either way
    want = masked_softmax(apply_mask(scores, allowed), allowed)
    mine = scores.clone()
    got = masked_softmax(apply_mask(mine, allowed, in_place=True), allowed, in_place=True)
    assert got.data_ptr() == mine.data_ptr()  # no new tensor
    assert torch.equal(got, want)
    assert torch.equal(got[1, :, 4], torch.zeros(3, 7))


def test_in_place_never_overwrites_a_tensor_that_needs_its_gradient():
    scores = torch.randn(1, 2, 4, 4, requires_grad=True) * 1.0
    allowed = torch.ones(4, 4, dtype=torch.bool).tril()
    pattern = masked_softmax(apply_mask(scores, allowed, in_place=True), allowed, in_place=True)
    pattern.sum().backward()  # raises if softmax's saved output had been overwritten


@pytest.mark.parametrize("recorded", ["scores", "masked_scores"])
def test_a_recorded_score_is_never_overwritten_by_the_steps_after_it(recorded):
    bundle = _random("decoder-only")
    name = act_name("decoder", 0, recorded)
    cache, _ = _run(bundle, names=[name, act_name("decoder", 0, "q"), act_name("decoder", 0, "k")])
    q, k = cache[act_name("decoder", 0, "q")], cache[act_name("decoder", 0, "k")]
    raw = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    later = torch.ones(raw.shape[-2:], dtype=torch.bool).triu(1)
    got = cache[name]
    if recorded == "scores":
        torch.testing.assert_close(got, raw)  # before the mask: later keys keep their q·k
    else:
        assert bool((got[..., later] == torch.finfo(torch.float32).min).all())  # masked, not a softmax's weights
        torch.testing.assert_close(got[..., ~later], raw[..., ~later])


def test_recording_more_or_less_gives_the_same_weights():
    """Whether the scores are recorded (kept) or not (overwritten in place), the weights are the same bits."""
    bundle = _random("encoder-decoder")
    patterns = [n for n in bundle.model.hook_names if n.endswith("hook_pattern")]
    alone, _ = _run(bundle, names=patterns)
    everything, _ = _run(bundle)
    assert all(torch.equal(alone[name], everything[name]) for name in patterns)


def test_a_bfloat16_trace_keeps_its_floats_as_float16_and_numpy_holds_them():
    from transformer.activation_cache import as_numpy

    bundle = _random("decoder-only")
    trace = trace_text(bundle, "a cab", names=None, precision="bfloat16")
    floats = [t for t in trace.cache.values() if t.is_floating_point()]
    assert floats and all(t.dtype == torch.float16 for t in floats)
    assert as_numpy(floats[0]).dtype.name == "float16"
    assert all(t.dtype == torch.float32 for t in trace_text(bundle, "a cab").cache.values() if t.is_floating_point())
    with keeping(torch.float16):  # what `trace_text` does for a bfloat16 run, on any capture started inside
        cache, _ = _run(bundle, names=[act_name("decoder", 0, "pattern"), act_name("decoder", 0, "mask")])
    assert cache[act_name("decoder", 0, "pattern")].dtype == torch.float16
    assert cache[act_name("decoder", 0, "mask")].dtype == torch.bool
    assert as_numpy(torch.ones(2, dtype=torch.bfloat16)).dtype.name == "float32"  # NumPy has no bfloat16


def _causal_weights(layers: int, heads: int, t: int, seed: int) -> np.ndarray:
    scores = np.random.default_rng(seed).normal(size=(layers, heads, t, t)) * 3
    scores[..., np.triu_indices(t, 1)[0], np.triu_indices(t, 1)[1]] = -np.inf
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)).astype(np.float16)  # (L, H, T, T), as a bfloat16 run keeps


def test_float16_weights_widened_through_pytorch_are_numpys_numbers():
    """`widen_into` (the heads page's statistics and rollout of a bfloat16 run) writes what NumPy's conversion
    writes, from a read-only strided view, without a warning; the statistics and the rollout are bit-identical."""
    import warnings

    from transformer.engine.precision import widen_into
    from transformer.probes.head_scores import SUMMARY_SCORE_NAMES, head_scores
    from viz.rollout import rollout

    weights = _causal_weights(3, 4, 70, seed=8)
    weights.setflags(write=False)
    rows = weights[1, :, 5:37]  # (H, 32, T): strided across heads
    out = np.full(rows.shape, np.nan, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert widen_into(rows, out) is out
    np.testing.assert_array_equal(out, rows.astype(np.float32))
    wide = weights.astype(np.float32)
    np.testing.assert_array_equal(rollout(list(weights), widen=widen_into), rollout(list(wide)))
    np.testing.assert_array_equal(rollout(list(weights)), rollout(list(wide)))  # NumPy's own widening: the same
    tokens = list(range(70))
    got, want = head_scores(weights, tokens, names=SUMMARY_SCORE_NAMES), head_scores(wide, tokens, names=SUMMARY_SCORE_NAMES)
    assert got.names == want.names
    np.testing.assert_array_equal(got.scores, want.scores)


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_inside_bfloat16_a_decoding_step_of_one_position_multiplies_in_float32(architecture):
    """Casting every weight to bfloat16 for one row's products costs more than they save (`KeyValueCache`): the
    prompt's pass multiplies in bfloat16, each later step in float32, reading the prompt's keys and values."""
    from transformer.engine.kv_cache import KeyValueCache

    bundle = _random(architecture)
    src = torch.tensor([[4, 5, 6, 7, 8, 9, 10, 2]]) if architecture == "encoder-decoder" else None
    ys = torch.tensor([[1, 11, 12, 13, 14, 15]])
    q = act_name("decoder", 0, "q")
    with torch.no_grad(), arithmetic("bfloat16"):
        cache = KeyValueCache(bundle.model, src)
        with capture(bundle.model, [q]) as prompt:
            first = cache.next_logits(ys)
        with capture(bundle.model, [q]) as step:
            second = cache.next_logits(torch.cat([ys, first.argmax(-1, keepdim=True)], dim=1))
    assert prompt[q].dtype == torch.bfloat16 and prompt[q].shape[2] == ys.shape[1]
    assert step[q].dtype == torch.float32 and step[q].shape[2] == 1
    assert first.dtype == second.dtype == torch.float32 and torch.isfinite(second).all()
    with torch.no_grad():  # the step's logits: float32's, to bfloat16's rounding of the prompt's keys and values
        exact = KeyValueCache(bundle.model, src)
        exact.next_logits(ys)
        want = exact.next_logits(torch.cat([ys, first.argmax(-1, keepdim=True)], dim=1))
    assert torch.allclose(second, want, atol=0.1), (second - want).abs().max()
