"""A large layer inside bfloat16 arithmetic, a block of query rows at a time (`attention_by_rows`): the weights and
outputs of the whole-matrix steps, the masked keys after a block's reach at exactly 0, a fully masked row all 0,
and the whole-matrix steps wherever something observes the scores, edits the weights or a gradient will be taken.
Small models reach the blocks here because the thresholds are lowered to a few cells."""

from __future__ import annotations

import pytest
import torch

import transformer.engine.by_rows as blocks
from hook_names import act_name
from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.engine.precision import arithmetic
from transformer.engine.records import capture, keeping
from transformer.engine.workspace import lending
from transformer.storage.registry import random_bundle

WEIGHTS = 1e-6  # float32 rounding: only the order in which a row's exponentials are summed may differ
BFLOAT16_OUTPUTS = 2e-2  # the products are bfloat16 either way; a different rounding of one sum moves what follows


@pytest.fixture
def calls(monkeypatch):
    """Blocks of three rows on any layer, and a count of the layers computed by rows."""
    monkeypatch.setattr(blocks, "BY_ROWS_CELLS", 1)
    monkeypatch.setattr(blocks, "ROW_BLOCK_BYTES", 1)  # one row per block: at least one, see rows_per_block
    counted = {"layers": 0}
    real = blocks.attention_by_rows

    def counting(*args, **kwargs):
        counted["layers"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(blocks, "attention_by_rows", counting)
    return counted


def _bundle(architecture: str):
    config = TransformerConfig(architecture=architecture, n_layers=2, d_model=32, n_heads=4, d_ff=64, max_len=48)
    return random_bundle(config, seed=3, symbols="abcdefghijklmnopqrstuvwxyz ")


def _batch(bundle):
    """Two sequences, the second padded: a batch with masked keys in every kind of attention."""
    config = bundle.config
    source = torch.tensor([[4, 5, 6, 7, 8, 9, 10, 2], [11, 12, 13, 2, 0, 0, 0, 0]])
    target = torch.tensor([[1, 11, 12, 13, 14, 15, 16], [1, 17, 18, 19, 0, 0, 0]])
    src = source if config.is_encoder_decoder or config.is_encoder_only else None
    tgt = None if config.is_encoder_only else target
    return src, tgt


def _names(bundle, hooks=("pattern", "z")) -> list[str]:
    return [n for n in bundle.model.hook_names if n.rsplit(".hook_", 1)[-1] in hooks and ".hook_" in n]


def _run(bundle, names, *, interventions=None, keep_as=None):
    src, tgt = _batch(bundle)
    recording = capture(bundle.model, names, interventions)
    with torch.no_grad(), arithmetic("bfloat16"), keeping(keep_as), lending(), recording as cache:
        logits = bundle.model(src, tgt)
    return {name: tensor.float() for name, tensor in cache.items()}, logits.float()


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only", "encoder-only"])
def test_rows_give_the_whole_matrix_weights_and_outputs(monkeypatch, calls, architecture):
    bundle = _bundle(architecture)
    names = _names(bundle)
    by_rows, logits = _run(bundle, names)
    assert calls["layers"] > 0
    monkeypatch.setattr(blocks, "BY_ROWS_CELLS", 10**12)  # the whole matrix
    whole, whole_logits = _run(bundle, names)
    for name in names:
        tolerance = WEIGHTS if name.endswith("hook_pattern") else BFLOAT16_OUTPUTS
        torch.testing.assert_close(by_rows[name], whole[name], rtol=0, atol=tolerance, msg=name)
    torch.testing.assert_close(logits, whole_logits, rtol=0, atol=BFLOAT16_OUTPUTS * 10)
    for name in (n for n in names if n.endswith("hook_pattern")):
        rows = by_rows[name].sum(dim=-1)
        assert torch.all(((rows - 1).abs() < 1e-5) | (rows == 0)), name  # each row sums to 1 (0 if fully masked)


def test_masked_keys_get_exactly_zero_weight_and_a_fully_masked_row_is_all_zero(calls):
    bundle = _bundle("decoder-only")
    name = act_name("decoder", 1, "pattern")
    mask = act_name("decoder", 1, "mask")

    def hide_row_three(allowed: torch.Tensor) -> torch.Tensor:
        allowed = allowed.clone()
        allowed[:, :, 3] = False  # query 3 may read nothing
        return allowed

    recorded, _ = _run(bundle, [name, mask], interventions={mask: hide_row_three})
    assert calls["layers"] > 0
    pattern, allowed = recorded[name], recorded[mask].bool()
    assert torch.all(pattern[~allowed.expand_as(pattern)] == 0)  # later keys, padding, the hidden row
    assert torch.all(pattern[:, :, 3] == 0)


def test_the_weights_are_recorded_in_the_dtype_a_run_keeps(calls):
    bundle = _bundle("decoder-only")
    name = act_name("decoder", 0, "pattern")
    src, tgt = _batch(bundle)
    with torch.no_grad(), arithmetic("bfloat16"), keeping(torch.float16), capture(bundle.model, [name]) as cache:
        bundle.model(src, tgt)
    assert cache[name].dtype == torch.float16 and calls["layers"] > 0


@pytest.mark.parametrize("observed", ["scores", "masked_scores"])
def test_observed_scores_take_the_whole_matrix(calls, observed):
    bundle = _bundle("decoder-only")
    _run(bundle, _names(bundle, hooks=(observed, "pattern")))
    assert calls["layers"] == 0


def test_edited_weights_take_the_whole_matrix(calls):
    bundle = _bundle("decoder-only")
    name = act_name("decoder", 0, "pattern")
    _run(bundle, [name], interventions={name: lambda p: p * 1.0})
    layers_of_the_edited_module = 1
    assert calls["layers"] == bundle.config.n_layers - layers_of_the_edited_module


def test_float32_runs_and_gradients_take_the_whole_matrix(calls):
    bundle = _bundle("decoder-only")
    src, tgt = _batch(bundle)
    with torch.no_grad():
        bundle.model(src, tgt)  # float32: the exact engine, bit for bit with torch.nn
    with arithmetic("bfloat16"):
        bundle.model(src, tgt).float().sum().backward()  # autograd reads the whole weights
    assert calls["layers"] == 0


def test_a_decoded_trace_by_rows_matches_the_whole_matrix(monkeypatch, calls):
    """Generation with the key/value cache: the prompt's step is large, each later step one row."""
    bundle = _bundle("decoder-only")
    names = _names(bundle, hooks=("pattern",))
    text = "the quick brown fox jumps over"
    by_rows = trace_text(bundle, text, names=names, precision="bfloat16", max_new_tokens=6)
    assert calls["layers"] > 0
    monkeypatch.setattr(blocks, "BY_ROWS_CELLS", 10**12)
    whole = trace_text(bundle, text, names=names, precision="bfloat16", max_new_tokens=6)
    assert by_rows.tgt_ids == whole.tgt_ids
    for name in names:
        torch.testing.assert_close(by_rows.cache[name].float(), whole.cache[name].float(), rtol=0, atol=1e-3, msg=name)


def test_the_weights_are_built_where_a_capture_with_room_keeps_them(calls):
    """The blocks write the weights straight into the recording's room: recording them copies nothing."""
    bundle = _bundle("decoder-only")
    name = act_name("decoder", 0, "pattern")
    src, tgt = _batch(bundle)
    recording = capture(bundle.model, [name], room={name: 30})
    with torch.no_grad(), arithmetic("bfloat16"), keeping(torch.float16), recording as cache:
        bundle.model(src, tgt)
    assert calls["layers"] > 0
    assert cache[name].dtype == torch.float16 and cache[name].data_ptr() == cache.rooms[name].data_ptr()
    assert cache.rooms[name].shape[-2:] == (30, 30)
