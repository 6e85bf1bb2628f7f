"""Attention rollout against a 2-layer example worked out by hand."""

import numpy as np
import pytest

import viz.rollout
from viz.rollout import residual_attention, rollout


def test_two_layer_rollout_by_hand():
    # layer 0: head 0 looks at token 0, head 1 at itself → mean [[1, 0], [.5, .5]]
    layer0 = np.array([[[1, 0], [1, 0]], [[1, 0], [0, 1]]], dtype=float)
    # layer 1: both heads look at token 1 → mean [[0, 1], [0, 1]]
    layer1 = np.array([[[0, 1], [0, 1]], [[0, 1], [0, 1]]], dtype=float)
    rolled = rollout(np.stack([layer0, layer1]))  # (2, 2, 2)
    # Â0 = ([[1,0],[.5,.5]] + I) / row sums = [[1, 0], [.25, .75]]
    np.testing.assert_allclose(rolled[0], [[1.0, 0.0], [0.25, 0.75]], atol=1e-6)
    # Â1 = ([[0,1],[0,1]] + I) / row sums = [[.5, .5], [0, 1]]; R1 = Â1 · Â0
    np.testing.assert_allclose(rolled[1], [[0.625, 0.375], [0.25, 0.75]], atol=1e-6)


def test_rows_sum_to_one_and_causality_survives():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(3, 2, 5, 5))
    logits[..., np.triu_indices(5, 1)[0], np.triu_indices(5, 1)[1]] = -np.inf  # causal decoder
    weights = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    rolled = rollout(weights)
    np.testing.assert_allclose(rolled.sum(-1), 1.0, atol=1e-5)
    assert np.all(rolled[:, np.triu_indices(5, 1)[0], np.triu_indices(5, 1)[1]] == 0)


def test_residual_attention_adds_identity_and_renormalizes():
    steps = residual_attention(np.full((1, 4, 3, 3), 1 / 3))
    np.testing.assert_allclose(steps[0], np.eye(3) / 2 + 1 / 6)


def test_cross_attention_is_refused():
    with pytest.raises(ValueError, match="self-attention"):
        rollout(np.full((1, 1, 2, 3), 1 / 3))


def rollout_by_definition(patterns: np.ndarray) -> np.ndarray:
    """Rollout straight from its definition, in float64: Â_l = normalize(mean_h A_l + I), R_l = Â_l · R_{l−1}."""
    t = patterns.shape[-1]
    current, rolled = np.eye(t), []
    for layer in patterns:
        step = layer.mean(axis=0, dtype=np.float64) + np.eye(t)
        current = step / step.sum(axis=-1, keepdims=True) @ current
        rolled.append(current)
    return np.stack(rolled)


T = 600  # two blocks of a causal product and a short third
LOOKS_AHEAD = {"within a block": (10, 20), "across blocks": (10, 300)}


def weights(allowed: np.ndarray, seed: int) -> np.ndarray:
    """(2, T, T) float32 softmax weights over the `allowed` (T, T) keys of each query."""
    logits = np.random.default_rng(seed).normal(scale=3.0, size=(2, T, T))
    logits[:, ~allowed] = -np.inf
    w = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("threaded", [True, False])
@pytest.mark.parametrize("stack", ["causal", "encoder", "encoder then causal", "within a block", "across blocks"])
def test_rollout_is_its_definition_within_float32(stack, threaded, monkeypatch):
    if threaded:  # steps this small are averaged one after the other unless told otherwise
        monkeypatch.setattr(viz.rollout, "_THREADED_CELLS", 0)
    causal, everything = np.tri(T, dtype=bool), np.ones((T, T), dtype=bool)
    masks = {"causal": [causal] * 3, "encoder": [everything] * 3, "encoder then causal": [everything, causal, causal]}
    if stack in LOOKS_AHEAD:  # a causal stack whose middle layer lets one query see one later key
        ahead = causal.copy()
        ahead[LOOKS_AHEAD[stack]] = True
        masks[stack] = [causal, ahead, causal]
    patterns = np.stack([weights(mask, seed) for seed, mask in enumerate(masks[stack])])  # (3, 2, T, T)
    rolled = rollout(patterns)
    assert rolled.dtype == np.float32
    np.testing.assert_allclose(rolled, rollout_by_definition(patterns), rtol=0, atol=1e-6)
    if stack == "causal":
        assert not np.triu(rolled, 1).any()  # exactly zero above the diagonal, as the full products gave
