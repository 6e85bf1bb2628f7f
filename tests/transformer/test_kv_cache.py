"""Incremental decoding (a key/value cache) writes exactly what rerunning the whole prefix wrote.

Bit-identical tokens on every shipped model's held-out examples (batched as `evaluate` decodes them,
and one at a time as the app does), patterns within 1e-6, and interventions keep their meaning:
row-local ones run on the cache, a lifted causal mask or a replaced pattern falls back to a full rerun.
"""

from __future__ import annotations

import functools

import pytest
import torch

from hook_names import act_name
from transformer.config import TransformerConfig
from transformer.engine.decoding import greedy_decode, trace_text
from transformer.engine.kv_cache import FullRecompute, KeyValueCache, start_decoding
from transformer.engine.sampling import SamplingSettings, generate, next_distribution
from transformer.hooks import capture, intervene
from transformer.interventions import InterventionSpec, build_interventions, edit_mask, replace_pattern, zero_head
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import list_models, load_model, random_bundle
from transformer.tasks import get_task
from transformer.text.prompt import text_rows
from transformer.training import evaluate
from transformer.training.evaluate import greedy_completions

MODELS = [info.name for info in list_models()]
HELD_OUT = 200  # the sample tests/transformer/test_shipped_models.py evaluates on (seed 2024)
ONE_AT_A_TIME = 25  # of those, decoded alone and traced, as the app runs a typed sentence


def _random(architecture: str, **options) -> ModelBundle:
    config = TransformerConfig(architecture=architecture, n_layers=2, d_model=32, n_heads=4, d_ff=64, max_len=40, **options)
    return random_bundle(config, seed=5, symbols="abcdefghijklmnopqrstuvwxyz ")


def _inputs(bundle: ModelBundle, text: str) -> tuple[torch.Tensor | None, torch.Tensor]:
    rows = text_rows(bundle, text)
    return (None if rows.src is None else torch.tensor([rows.src])), torch.tensor([rows.prefix])


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.slow
def test_shipped_models_write_the_same_tokens_with_and_without_the_cache(name: str, monkeypatch) -> None:
    bundle = load_model(name)
    task = get_task(bundle.card["task"])
    examples = task.examples(HELD_OUT, split="heldout", seed=2024)
    cached = greedy_completions(bundle, examples, 50)
    monkeypatch.setattr(evaluate, "greedy_decode", functools.partial(greedy_decode, incremental=False))
    assert cached == greedy_completions(bundle, examples, 50)  # padded sources, equal-length prompts: evaluate's batches
    for example in examples[:ONE_AT_A_TIME]:  # one sentence, as the app decodes it
        src, prefix = _inputs(bundle, example.source)
        budget = min(2 * prefix.shape[1] + 16, bundle.config.max_len - prefix.shape[1])
        full = greedy_decode(bundle.model, src, prefix, budget, incremental=False)
        assert torch.equal(greedy_decode(bundle.model, src, prefix, budget), full), example.source


@pytest.mark.parametrize("name", MODELS)
def test_a_traced_run_shows_the_patterns_of_one_pass_over_the_full_decoders_output(name: str) -> None:
    bundle = load_model(name)
    text = bundle.card["example"]
    trace = trace_text(bundle, text)  # decoded with the cache, then one captured teacher-forced pass
    src, prefix = _inputs(bundle, text)
    budget = min(len(trace.tgt_ids) + 8, bundle.config.max_len) - prefix.shape[1]
    full = greedy_decode(bundle.model, src, prefix, budget, incremental=False)[0].tolist()
    assert full[: len(trace.tgt_ids)] == trace.tgt_ids
    patterns = [n for n in bundle.model.hook_names if n.endswith("hook_pattern")]
    with torch.no_grad(), capture(bundle.model, patterns) as cache:
        bundle.model(src, torch.tensor([trace.tgt_ids]))
    for pattern in patterns:
        torch.testing.assert_close(trace.cache[pattern], cache[pattern], atol=1e-6, rtol=0)


CONFIGS = [
    {},
    {"norm_position": "pre"},
    {"positional": "learned"},
    {"positional": "sinusoidal-split"},  # Marian's layout of the sinusoids
    {"positional": "none"},
    {"share_embeddings": True},
]


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "paper")
def test_each_cached_step_computes_the_full_passs_row(architecture: str, options: dict) -> None:
    """Every step's logits and every layer's newest pattern row are the teacher-forced pass's, within 1e-6."""
    bundle = _random(architecture, **options)
    model = bundle.model
    src, ys = _inputs(bundle, "the quick brown fox")
    cached = KeyValueCache(model, src)
    for _ in range(12):
        with torch.no_grad(), capture(model) as step:
            logits = cached.next_logits(ys)  # (1, vocab)
        with torch.no_grad(), capture(model) as full:
            want = model(src, ys)[:, -1]  # (1, vocab)
        torch.testing.assert_close(logits, want, atol=1e-5, rtol=1e-5)
        for i in range(model.config.n_layers):
            kinds = ("decoder", "cross") if model.config.is_encoder_decoder else ("decoder",)
            for kind in kinds:
                name = act_name(kind, i, "pattern")
                newest = full[name][:, :, -1:]  # (1, H, 1, Tk): the newest row of the full pass
                torch.testing.assert_close(step[name][:, :, -1:], newest, atol=1e-6, rtol=0)
        ys = torch.cat([ys, logits.argmax(-1, keepdim=True)], dim=1)  # (1, T + 1)


def test_a_step_past_the_models_length_is_refused() -> None:
    bundle = _random("decoder-only")
    cached = KeyValueCache(bundle.model, None)
    ys = torch.randint(4, 20, (1, bundle.config.max_len))
    cached.next_logits(ys)
    with pytest.raises(ValueError, match="nothing new"):
        cached.next_logits(ys)
    with pytest.raises(ValueError, match="longer than the model's maximum"):
        cached.next_logits(torch.cat([ys, ys[:, :1]], dim=1))


def _strategy(bundle: ModelBundle, interventions) -> type:
    with intervene(bundle.model, interventions):
        return type(start_decoding(bundle.model, None))


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_which_interventions_the_cache_honours_and_which_rerun_the_prefix(architecture: str) -> None:
    bundle = _random(architecture)
    self_attn = "decoder.layers.0.self_attn"
    honoured = {
        "head ablation": build_interventions([InterventionSpec("zero_output", self_attn, head=1)]),
        "pattern zeroed": build_interventions([InterventionSpec("zero_pattern", self_attn, head=2)]),
        "hidden tokens": build_interventions([InterventionSpec("block_keys", self_attn, keys=(1, 2))]),
        "anything on the generator": {"generator.hook_logits": lambda x: x * 2},
    }
    rerun = {
        "lifted causal mask": build_interventions([InterventionSpec("no_causal", self_attn)]),
        "replaced pattern": {act_name("decoder", 0, "pattern"): replace_pattern(0, torch.eye(40))},
        "an unmarked function": {act_name("decoder", 1, "z"): lambda x: x * 0.5},
    }
    if architecture == "encoder-decoder":
        honoured["anything on the encoder"] = {act_name("encoder", 0, "pattern"): lambda x: x.flip(-1)}
        honoured["cross keys"] = {"decoder.layers.0.cross_attn.hook_k": lambda x: x * 0}
    for what, interventions in honoured.items():
        assert _strategy(bundle, interventions) is KeyValueCache, what
    for what, interventions in rerun.items():
        assert _strategy(bundle, interventions) is FullRecompute, what
    assert _strategy(bundle, None) is KeyValueCache


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_honoured_interventions_decode_as_a_full_rerun_does(architecture: str) -> None:
    bundle = _random(architecture)
    src, prefix = _inputs(bundle, "hello world")
    specs = [
        InterventionSpec("zero_output", "decoder.layers.0.self_attn", head=1),
        InterventionSpec("zero_pattern", "decoder.layers.1.self_attn", head=3),
        InterventionSpec("block_keys", "decoder.layers.1.self_attn", keys=(1, 4)),
    ]
    if architecture == "encoder-decoder":
        specs.append(InterventionSpec("block_keys", "decoder.layers.0.cross_attn", keys=(0,)))
    interventions = build_interventions(specs)
    with intervene(bundle.model, interventions):
        cached = greedy_decode(bundle.model, src, prefix, 20)
        full = greedy_decode(bundle.model, src, prefix, 20, incremental=False)
    plain = greedy_decode(bundle.model, src, prefix, 20)
    assert torch.equal(cached, full)
    assert not torch.equal(cached, plain)  # the interventions did change what was written


def test_a_lifted_causal_mask_still_decodes_as_before() -> None:
    """No cache can honour it (earlier rows read later tokens): decoding reruns the prefix, as before."""
    bundle = _random("decoder-only")
    src, prefix = _inputs(bundle, "hello world")
    lifted = {act_name("decoder", i, "mask"): edit_mask(causal=False) for i in range(2)}
    with intervene(bundle.model, lifted):
        ys = greedy_decode(bundle.model, src, prefix, 20)
    steps = prefix
    for _ in range(20):  # the definition: every step reads the whole prefix under the lifted mask
        with torch.no_grad(), intervene(bundle.model, lifted):
            steps = torch.cat([steps, bundle.model(None, steps)[:, -1:].argmax(-1)], dim=1)
    assert torch.equal(ys, steps)


def test_ablating_a_head_on_the_cache_matches_zeroing_it_in_a_full_pass() -> None:
    bundle = _random("encoder-decoder")
    src, prefix = _inputs(bundle, "abc")
    ablate = {act_name("decoder", 0, "z"): zero_head(0)}
    with intervene(bundle.model, ablate):
        assert _strategy(bundle, ablate) is KeyValueCache
        ys = greedy_decode(bundle.model, src, prefix, 15)
        with torch.no_grad():
            logits = bundle.model(src, ys)  # (1, T, vocab) teacher-forced under the same ablation
    assert torch.equal(logits[0, :-1].argmax(-1), ys[0, 1:])


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_sampled_generation_on_the_cache_shows_each_prefixs_distribution(architecture: str) -> None:
    bundle = _random(architecture)
    run = generate(bundle, "hello", SamplingSettings(temperature=1.3, seed=4, max_new_tokens=10), k=3)
    for step, dist in enumerate(run.steps):
        want = next_distribution(bundle, "hello", run.ids[:step], temperature=1.3, k=3)
        assert dist.position == step and dist.top_ids == want.top_ids
        torch.testing.assert_close(torch.from_numpy(dist.probs), torch.from_numpy(want.probs), atol=1e-6, rtol=0)
