"""Which runs multiply in bfloat16 (`runs.text_run.run_precision`): a large model's long input that records at most
attention weights, on a CPU with native bfloat16, unless the reader asked for exact arithmetic. Every shipped model
and every page that checks numbers against one another stays float32."""

from __future__ import annotations

import numpy as np
import pytest

from hook_names import act_name
from runs import text_run
from runs.text_run import attention_names, run_precision, run_text
from transformer.config import TransformerConfig
from transformer.engine import precision
from transformer.storage.registry import DEFAULT_MODEL, list_models, load_model, random_bundle

LONG = " ".join(["the cat sat on the mat"] * 8)


@pytest.fixture
def bundle():
    config = TransformerConfig(architecture="decoder-only", n_layers=2, d_model=64, n_heads=4, d_ff=128, max_len=96)
    return random_bundle(config, seed=3, symbols="abcdefghijklmnopqrstuvwxyz ")


@pytest.fixture
def fast_here(monkeypatch):
    """A CPU with native bfloat16, and a threshold this small model's long input passes (its short one does not)."""
    monkeypatch.setattr(text_run, "native_bfloat16", lambda: True)
    monkeypatch.setattr(precision, "FAST_WORK", 60 * 64 * 64 * 2 * 8)


def test_a_long_input_recording_attention_weights_runs_in_bfloat16(bundle, fast_here):
    names = attention_names(bundle, ("hook_pattern", "hook_mask"))
    assert run_precision(bundle, LONG, names) == "bfloat16"
    assert run_precision(bundle, LONG, ()) == "bfloat16"  # the output alone


def test_short_inputs_recordings_that_are_checked_and_every_hook_stay_float32(bundle, fast_here):
    assert run_precision(bundle, "the cat", attention_names(bundle)) == "float32"
    assert run_precision(bundle, LONG, None) == "float32"  # every hook: the lesson's run
    for hook in ("hook_q", "hook_scores", "hook_z"):
        assert run_precision(bundle, LONG, (act_name("decoder", 0, hook),)) == "float32", hook


def test_without_native_bfloat16_every_run_is_float32(bundle, fast_here, monkeypatch):
    monkeypatch.setattr(text_run, "native_bfloat16", lambda: False)
    assert run_precision(bundle, LONG, attention_names(bundle)) == "float32"


def test_the_trace_says_its_arithmetic_and_exact_forces_float32(bundle, fast_here):
    names = attention_names(bundle)
    fast = run_text(bundle, LONG, names=names)
    exact = run_text(bundle, LONG, names=names, exact=True)
    assert (fast.precision, exact.precision) == ("bfloat16", "float32")
    assert exact.arrays.keys() == fast.arrays.keys()
    for name in names:  # kept as float16 (`transformer.engine.records.keeping`): half the bytes, the digits bfloat16 has
        assert (fast.arrays[name].dtype, exact.arrays[name].dtype) == (np.float16, np.float32)
        assert np.abs(fast.arrays[name].astype(np.float32) - exact.arrays[name]).max() < 2e-2, name
    assert fast.nbytes < 0.6 * exact.nbytes


@pytest.mark.parametrize("name", [info.name for info in list_models()])
def test_no_shipped_model_ever_runs_in_bfloat16(name, monkeypatch):
    monkeypatch.setattr(text_run, "native_bfloat16", lambda: True)
    shipped = load_model(name)
    longest = " ".join(["a"] * 4 * shipped.config.max_len)
    assert run_precision(shipped, longest, attention_names(shipped)) == "float32"
    assert not precision.large_work(shipped.config.estimated_parameters(), 2 * shipped.config.max_len)


def test_the_default_model_reports_float32():
    assert run_text(load_model(DEFAULT_MODEL), "I read a book.", names=()).precision == "float32"


def test_the_heads_page_reads_a_float16_run_as_it_reads_a_float32_one(bundle, fast_here):
    """Grid, statistics, rollout and the enlarged head of a bfloat16 run (float16 weights) agree with the same run's
    weights widened to float32: the views accept float16 and widen it where they compute."""
    from dataclasses import replace

    from runs.heads import head_summary, kind_grid, rollout_of

    fast = run_text(bundle, LONG, names=attention_names(bundle))
    wide = replace(fast, arrays={name: array.astype(np.float32) for name, array in fast.arrays.items()})
    a, b = head_summary(fast, "decoder"), head_summary(wide, "decoder")
    assert a.names == b.names
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rollout_of(fast, "decoder"), rollout_of(wide, "decoder"), rtol=0, atol=1e-5)
    grid, wide_grid = kind_grid(fast, "decoder", range(2), 1), kind_grid(wide, "decoder", range(2), 1)
    assert grid.to_plotly_json()["data"][0]["source"] == wide_grid.to_plotly_json()["data"][0]["source"]
