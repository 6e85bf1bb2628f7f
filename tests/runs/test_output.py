"""runs.output: step-through generation replays `sampling.generate`, and the distributions are the
model's own softmax (recomputed here from the model's logits)."""

import numpy as np
import pytest
import torch

from runs.model_ref import ModelRef, load_bundle
from runs.output import output_steps, replay
from transformer.engine.sampling import SamplingSettings, generate, model_inputs
from transformer.text.tokenizer import EOS_ID

TEXT = "i read a book in the library today"


@pytest.fixture(scope="module", params=["gpt-translate-en-zh", "translate-en-zh"])
def bundle(request):
    return load_bundle(ModelRef.parse(request.param))


def test_greedy_steps_write_the_translation_one_token_at_a_time(bundle):
    whole = generate(bundle, TEXT, SamplingSettings(greedy=True))
    assert whole.finished and whole.text == "我 今天 在 图书馆 读 一 本 书"
    for n in range(len(whole.ids) + 2):
        run = output_steps(bundle, TEXT, SamplingSettings(greedy=True), n)
        assert run.generated_ids == whole.ids[:n]
        assert len(run.distributions) == len(run.generated_ids) + 1
        assert run.chosen[:-1] == run.generated_ids
        assert run.chosen[-1] == run.distributions[-1].top_ids[0]  # greedy writes the top bar
    assert run.finished and run.chosen[-1] == EOS_ID


def test_sampling_replays_generate_and_a_seed_repeats(bundle):
    settings = SamplingSettings(temperature=1.5, seed=7)
    whole = generate(bundle, TEXT, settings)
    assert replay(bundle, TEXT, settings, 100) == list(whole.ids)
    assert replay(bundle, TEXT, settings, 3) == list(whole.ids[:3])
    runs = {tuple(replay(bundle, TEXT, SamplingSettings(temperature=1.5, seed=s), 100)) for s in range(6)}
    assert len(runs) > 1, "different seeds draw different runs at T = 1.5"


def test_temperature_zero_is_greedy(bundle):
    greedy = output_steps(bundle, TEXT, SamplingSettings(greedy=True), 100)
    cold = output_steps(bundle, TEXT, SamplingSettings(temperature=0.0, seed=123), 100)
    assert cold.generated_ids == greedy.generated_ids
    assert all(d.top_probs[0] == 1.0 for d in cold.distributions)


@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.0])
def test_distributions_are_the_models_softmax(bundle, temperature):
    run = output_steps(bundle, TEXT, SamplingSettings(temperature=temperature, seed=1), 4, k=8)
    inputs = model_inputs(bundle, TEXT, run.generated_ids)
    with torch.no_grad():
        logits = bundle.model(inputs.src, inputs.tgt_in)[0, inputs.first_output :].double()  # (n + 1, V)
    expected = torch.softmax(logits / temperature, dim=-1).numpy()
    for i, dist in enumerate(run.distributions):
        np.testing.assert_allclose(dist.probs, expected[i], atol=1e-9)
        assert dist.probs.sum() == pytest.approx(1.0)
        assert len(dist.top_probs) == 8 and sum(dist.top_probs) <= 1.0 + 1e-9
        assert list(dist.top_probs) == sorted(dist.top_probs, reverse=True)
        assert list(dist.top_ids[:1]) == [int(np.argmax(expected[i]))]


def test_rows_say_what_each_position_reads(bundle):
    run = output_steps(bundle, TEXT, SamplingSettings(greedy=True), 2)
    assert run.reads[1:] == run.generated_tokens
    if bundle.config.is_encoder_decoder:
        assert run.prompt_tokens == ("<bos>",) and run.source_tokens[-1] == "<eos>"
    else:
        assert run.prompt_tokens[-1] == "=" and run.source_tokens == ()  # the model's prompt suffix
        assert run.reads[0] == "="


def test_an_untrained_decoder_only_model_steps_too():
    bundle = load_bundle(ModelRef.random(architecture="decoder-only", seed=3))
    run = output_steps(bundle, "abc", SamplingSettings(temperature=1.0, seed=0), 5)
    assert len(run.distributions) == len(run.generated_ids) + 1
    assert run.prompt_tokens[0] == "<bos>"


def test_to_the_end_stops_at_the_budget_on_a_model_that_never_ends():
    bundle = load_bundle(ModelRef.random(architecture="decoder-only", seed=3))
    run = output_steps(bundle, "abc", SamplingSettings(greedy=True), 10_000)
    assert run.finished
    assert len(run.generated_ids) == 64 or run.chosen[-1] == EOS_ID


def test_the_induction_model_steps_through_the_repeat():
    """Its card's example repeats "aKq": step-through writes what followed "aKq" the first time, confidently."""
    bundle = load_bundle(ModelRef.parse("induction"))
    run = output_steps(bundle, "aKq7xbN3aKq", SamplingSettings(greedy=True), 5)
    assert "".join(run.generated_tokens) == "7xbN3"
    assert all(d.top_probs[0] > 0.9 for d in run.distributions)
