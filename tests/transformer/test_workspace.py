"""Lent scratch memory for attention's scores (`transformer.engine.workspace`): the same bits as fresh tensors, lent only
inside `lending()` and only where nothing keeps a layer's scores, masked scores or weights beyond that layer. A
lent tensor wrongly given to a kept pattern would show here as one layer's recorded weights overwritten by the
next layer's."""

from __future__ import annotations

import pytest
import torch

import transformer.engine.workspace as workspace
from hook_names import act_name
from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.engine.precision import arithmetic
from transformer.engine.records import capture, keeping
from transformer.engine.steps import attention_scores, weighted_values
from transformer.engine.workspace import Workspace, lending, scratch
from transformer.storage.registry import random_bundle


@pytest.fixture
def lend_everything(monkeypatch):
    """Lend tensors of any size, so that small test models exercise the lent path."""
    monkeypatch.setattr(workspace, "LEND_ELEMENTS", 1)


def _bundle(architecture: str = "decoder-only"):
    config = TransformerConfig(architecture=architecture, n_layers=3, d_model=32, n_heads=4, d_ff=64, max_len=48)
    return random_bundle(config, seed=11, symbols="abcdefghijklmnopqrstuvwxyz ")


def _inputs(bundle):
    config = bundle.config
    src = torch.tensor([[4, 5, 6, 7, 8, 9, 10, 2]]) if config.is_encoder_decoder or config.is_encoder_only else None
    tgt = None if config.is_encoder_only else torch.tensor([[1, 11, 12, 13, 14, 15, 16]])
    return src, tgt


def _patterns(bundle, *, lend: bool, keep_as=None, interventions=None):
    src, tgt = _inputs(bundle)
    names = [n for n in bundle.model.hook_names if n.endswith(("hook_pattern", "hook_scores", "hook_z"))]
    with torch.no_grad(), keeping(keep_as), capture(bundle.model, names, interventions) as cache:
        if lend:
            with lending():
                logits = bundle.model(src, tgt)
        else:
            logits = bundle.model(src, tgt)
    return {name: tensor.clone() for name, tensor in cache.items()}, logits


def test_a_lent_tensor_reuses_its_buffer_and_grows_when_asked_for_more():
    space = Workspace()
    first = space.take("scores", (2, 3, 4), torch.float32)
    again = space.take("scores", (3, 2, 4), torch.float32)
    assert again.data_ptr() == first.data_ptr() and again.shape == (3, 2, 4) and again.is_contiguous()
    other = space.take("weights", (2, 3, 4), torch.float32)
    assert other.data_ptr() != first.data_ptr()  # each purpose has its own buffer
    larger = space.take("scores", (5, 5, 5), torch.float32)
    assert larger.numel() == 125
    assert space.take("scores", (2, 2), torch.bfloat16).dtype == torch.bfloat16


def test_nothing_is_lent_outside_lending_nor_below_the_size_that_pays(monkeypatch):
    assert scratch("scores", (4, 1024, 1024), torch.float32) is None  # no workspace here
    with lending():
        assert scratch("scores", (1, 4, 8, 8), torch.float32) is None  # small: the allocator's own memory
        assert scratch("scores", (1, 1, 1024, 1024), torch.float32) is not None
    assert scratch("scores", (1, 1, 1024, 1024), torch.float32) is None  # freed with its block


def test_lent_scores_are_the_same_numbers_bit_for_bit(lend_everything):
    torch.manual_seed(0)
    q, k = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 7, 8)
    fresh = attention_scores(q, k)
    with lending() as space:
        lent = attention_scores(q, k, lent=True)
        assert lent.data_ptr() == space.take("scores", (2, 3, 5, 7), torch.float32).data_ptr()
    assert torch.equal(fresh, lent)


def test_lent_rounding_of_the_weights_matches_autocast_bit_for_bit(lend_everything):
    torch.manual_seed(1)
    weights, v = torch.softmax(torch.randn(1, 4, 9, 9), dim=-1), torch.randn(1, 4, 9, 16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        expected = weights @ v.bfloat16()
        with lending():
            lent = weighted_values(weights, v.bfloat16(), lent=True)
    assert lent.dtype == expected.dtype and torch.equal(lent, expected)


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only", "encoder-only"])
@pytest.mark.parametrize("keep_as", [None, torch.float16])
def test_a_run_with_lent_memory_records_what_a_run_without_it_does(lend_everything, architecture, keep_as):
    """Recorded as they are (keep None), the scores and weights are kept: nothing is lent, each layer's own survive.
    Recorded as float16 copies, they are lent, and the copies, the values' sums and the logits are unchanged."""
    bundle = _bundle(architecture)
    fresh, fresh_logits = _patterns(bundle, lend=False, keep_as=keep_as)
    lent, lent_logits = _patterns(bundle, lend=True, keep_as=keep_as)
    assert torch.equal(fresh_logits, lent_logits)
    assert fresh.keys() == lent.keys() and all(torch.equal(fresh[n], lent[n]) for n in fresh)
    kind = "encoder" if architecture == "encoder-only" else "decoder"
    first, last = lent[act_name(kind, 0, "pattern")], lent[act_name(kind, 2, "pattern")]
    assert not torch.equal(first, last)  # the first layer's weights were not written over by the last layer's


def test_an_intervention_that_keeps_what_it_is_given_sees_each_layer_s_own_weights(lend_everything):
    bundle = _bundle("decoder-only")
    seen: dict[int, list[torch.Tensor]] = {0: [], 2: []}
    keeper = {act_name("decoder", layer, "pattern"): (lambda x, layer=layer: seen[layer].append(x) or x) for layer in seen}
    src, tgt = _inputs(bundle)
    with torch.no_grad(), keeping(torch.float16), capture(bundle.model, [], keeper), lending():
        bundle.model(src, tgt)
    expected, _ = _patterns(bundle, lend=False)
    for layer, (x,) in seen.items():
        assert torch.equal(x, expected[act_name("decoder", layer, "pattern")])


def test_a_fast_trace_gives_the_same_patterns_with_and_without_lent_memory(monkeypatch):
    bundle = _bundle("decoder-only")
    names = [act_name("decoder", layer, "pattern") for layer in range(3)]
    text = "the quick brown fox jumps"
    monkeypatch.setattr(workspace, "LEND_ELEMENTS", 10**12)  # nothing lent
    fresh = trace_text(bundle, text, names=names, precision="bfloat16", generate=False)
    monkeypatch.setattr(workspace, "LEND_ELEMENTS", 1)  # everything lent
    lent = trace_text(bundle, text, names=names, precision="bfloat16", generate=False)
    assert all(torch.equal(fresh.cache[name], lent.cache[name]) for name in names)
    assert lent.cache[names[0]].dtype == torch.float16


def test_training_never_borrows(lend_everything):
    """Under autograd the weights are read again by the backward pass: nothing is lent, the gradients are the same."""
    bundle = _bundle("decoder-only")
    src, tgt = _inputs(bundle)

    def gradients(lend: bool) -> list[torch.Tensor]:
        bundle.model.zero_grad()
        if lend:
            with lending(), arithmetic("float32"):
                bundle.model(src, tgt).sum().backward()
        else:
            bundle.model(src, tgt).sum().backward()
        return [p.grad.clone() for p in bundle.model.parameters() if p.grad is not None]

    assert all(torch.equal(a, b) for a, b in zip(gradients(False), gradients(True), strict=True))
