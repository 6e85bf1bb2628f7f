"""The output distribution and sampling, on real models of both architectures."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from transformer.config import TransformerConfig
from transformer.engine.decoding import greedy_decode
from transformer.engine.sampling import (
    SamplingSettings,
    choose,
    distributions,
    generate,
    model_inputs,
    next_distribution,
    next_token,
    probabilities,
)
from transformer.storage.registry import load_model, random_bundle
from transformer.text.tokenizer import BOS_ID

TEXT = "i read a book in the library today"


@pytest.fixture(scope="module")
def translator():
    return load_model("translate-en-zh")


@pytest.fixture(scope="module")
def gpt():
    return load_model("gpt-translate-en-zh")


@pytest.fixture(scope="module")
def untrained():
    """A random decoder-only model: its flat distributions make different seeds choose differently."""
    return random_bundle(TransformerConfig(architecture="decoder-only", n_layers=1, d_model=32, n_heads=2, d_ff=64), seed=3)


def test_probabilities_sum_to_one_at_every_temperature(translator, gpt):
    for bundle in (translator, gpt):
        steps = distributions(bundle, TEXT, generate(bundle, TEXT).ids)
        for temperature in (0.0, 0.3, 1.0, 2.5):
            for dist in distributions(bundle, TEXT, [d.greedy_id for d in steps[:-1]], temperature=temperature, k=5):
                assert dist.probs.sum() == pytest.approx(1.0, abs=1e-9)
                assert (dist.probs >= 0).all()
                assert list(dist.top_probs) == sorted(dist.top_probs, reverse=True)
                assert dist.top_ids[0] == dist.greedy_id
                assert dist.top_probs[0] == pytest.approx(dist.probs.max())


def test_probabilities_are_the_softmax_of_logits_over_temperature():
    logits = torch.tensor([[2.0, 1.0, -1.0], [0.0, 0.0, 3.0]])
    torch.testing.assert_close(probabilities(logits, 2.0), torch.softmax(logits.double() / 2.0, dim=-1))
    assert probabilities(logits, 0.0).tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    assert probabilities(logits, 1e-4).argmax(-1).tolist() == [0, 2]
    flat = probabilities(logits, 1e6)
    assert torch.allclose(flat, torch.full_like(flat, 1 / 3), atol=1e-5)


@pytest.mark.parametrize("temperature", [5e-324, 1e-310, 2.2250738585072014e-308, 1e-300, 1e-12])
def test_a_tiny_temperature_is_finite_and_one_hot_on_the_arg_max(temperature):
    """z / T overflowed to ±inf for a subnormal T (a `?temp=1e-310` link), and softmax made NaN of it."""
    logits = torch.tensor([[2.0, 1.0, -1.0], [0.0, -3.0, 3.0], [1e4, -1e4, 0.0]])  # (3, V=3)
    probs = probabilities(logits, temperature)
    assert torch.isfinite(probs).all()
    assert probs.tolist() == probabilities(logits, 0.0).tolist()


def test_a_huge_temperature_is_finite_and_uniform():
    logits = torch.tensor([[2.0, 1.0, -1.0], [1e4, -1e4, 0.0]])
    for temperature in (1e300, 1.7976931348623157e308):
        probs = probabilities(logits, temperature)
        assert torch.isfinite(probs).all()
        torch.testing.assert_close(probs, torch.full_like(probs, 1 / 3))


def test_a_temperature_that_is_not_a_finite_number_is_refused():
    logits = torch.tensor([[2.0, 1.0]])
    for temperature in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(ValueError, match="finite"):
            probabilities(logits, temperature)
        with pytest.raises(ValueError, match="temperature"):
            SamplingSettings(temperature=temperature)


def test_sampling_at_the_smallest_temperature_equals_greedy(translator, untrained):
    """The smallest positive float is a temperature like any other: finite probabilities, the greedy output."""
    for bundle, text in ((translator, TEXT), (untrained, "hello")):
        greedy = generate(bundle, text, SamplingSettings(greedy=True, max_new_tokens=8))
        for temperature in (5e-324, 1e-310):
            cold = generate(bundle, text, SamplingSettings(temperature=temperature, seed=1, max_new_tokens=8))
            assert cold.ids == greedy.ids
            assert all(np.isfinite(step.probs).all() for step in cold.steps)


def test_greedy_generation_matches_greedy_decode_and_the_reference(translator, gpt):
    want = "我 今天 在 图书馆 读 一 本 书"
    for bundle in (translator, gpt):
        run = generate(bundle, TEXT)
        assert run.text == want and run.finished
        inputs = model_inputs(bundle, TEXT)
        ys = greedy_decode(bundle.model, inputs.src, inputs.tgt_in, 30)[0, inputs.tgt_in.shape[1] :].tolist()
        assert ys[: len(run.ids)] == list(run.ids)


def test_temperature_to_zero_equals_greedy(translator, gpt, untrained):
    for bundle, text in ((translator, TEXT), (gpt, TEXT), (untrained, "hello")):
        greedy = generate(bundle, text, SamplingSettings(greedy=True, max_new_tokens=12))
        for seed in range(4):
            for temperature in (0.0, 1e-4):
                cold = generate(bundle, text, SamplingSettings(temperature=temperature, seed=seed, max_new_tokens=12))
                assert cold.ids == greedy.ids


def test_sampling_is_reproducible_for_a_seed_and_steps_through_the_same(untrained, translator):
    for bundle, text in ((untrained, "hello"), (translator, TEXT)):
        settings = SamplingSettings(temperature=1.5, seed=7, max_new_tokens=10)
        first, again = generate(bundle, text, settings), generate(bundle, text, settings)
        assert first.ids == again.ids
        stepped: list[int] = []
        for _ in range(len(first.ids)):  # one token per "rerun", as a page does
            stepped.append(next_token(bundle, text, stepped, settings))
        assert tuple(stepped) == first.ids


def test_different_seeds_can_differ(untrained):
    runs = {generate(untrained, "hello", SamplingSettings(temperature=1.0, seed=s, max_new_tokens=8)).ids for s in range(8)}
    assert len(runs) > 1


def test_top_k_sampling_only_picks_among_the_k_best(untrained):
    dist = next_distribution(untrained, "hello", temperature=1.0, k=3)
    picks = {choose(dist.probs, SamplingSettings(seed=s, top_k=3), 0) for s in range(40)}
    assert picks <= set(dist.top_ids) and len(picks) > 1


def test_distributions_cover_every_generated_position(gpt, translator):
    for bundle in (gpt, translator):
        run = generate(bundle, TEXT)
        dists = distributions(bundle, TEXT, run.ids, k=3)
        assert len(dists) == len(run.ids) + 1
        assert [d.greedy_id for d in dists[:-1]] == list(run.ids)
        assert dists[-1].top_tokens[0] == "<eos>"
        for got, step in zip(dists, run.steps, strict=False):
            np.testing.assert_allclose(got.probs, step.probs, atol=1e-6, rtol=0)


def test_decoder_only_reads_the_prompt_suffix_once(gpt):
    with_separator = model_inputs(gpt, TEXT + " =").tgt_in
    assert torch.equal(model_inputs(gpt, TEXT).tgt_in, with_separator)
    assert with_separator[0, 0].item() == BOS_ID
    assert gpt.target_tokenizer.symbols(with_separator[0, -1:].tolist()) == ["="]


def test_bad_settings_raise_clear_errors(untrained):
    with pytest.raises(ValueError, match="temperature"):
        SamplingSettings(temperature=-1)
    with pytest.raises(ValueError, match="top_k"):
        SamplingSettings(top_k=0)
    with pytest.raises(ValueError, match="at most"):
        model_inputs(untrained, "hi", [5] * untrained.config.max_len)
