"""Attention rollout against a 2-layer example worked out by hand."""

import numpy as np
import pytest

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
