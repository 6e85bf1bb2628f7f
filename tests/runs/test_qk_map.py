"""The map of queries and keys: its coordinates are a projection of the head's real query and key vectors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from hook_names import act_name
from runs.qk_map import pca, qk_map
from transformer.hooks import capture
from transformer.storage.registry import load_model
from transformer.text.rows import source_row


def test_pca_coordinates_are_the_centred_vectors_on_orthonormal_directions():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 6)) * np.array([5, 2, 1, 0.5, 0.1, 0.1])
    p = pca(x)
    np.testing.assert_allclose(p.components @ p.components.T, np.eye(2), atol=1e-10)
    xy = p.apply(x)
    kept = (xy**2).sum() / ((x - x.mean(0)) ** 2).sum()  # the variance the two directions keep
    assert kept == pytest.approx(sum(p.explained), rel=1e-8)
    assert abs(p.components[0, 0]) > 0.9  # the widest direction first


def test_map_points_are_the_real_queries_and_keys_projected():
    bundle = load_model("translate-en-zh")
    texts = ["i read a book", "the cat sees a dog"]
    m = qk_map(bundle, texts, "encoder", 1, 2, user_text="you read")
    assert m.user_index == 2 and m.user.sum() > 0 and set(m.sentence[m.user]) == {2}
    # recompute the head's q and k for each sentence with a plain capture of the encoder alone
    q_name, k_name = act_name("encoder", 1, "q"), act_name("encoder", 1, "k")
    queries, keys = [], []
    reader = bundle.source_tokenizer or bundle.target_tokenizer
    for text in [*texts, "you read"]:
        src = torch.tensor([source_row(reader.encode(text))])
        with capture(bundle.model, [q_name, k_name, act_name("encoder", 1, "scores")]) as cache, torch.no_grad():
            bundle.model.encode(src)
        q, k = cache[q_name][0, 2].numpy(), cache[k_name][0, 2].numpy()
        # the vectors are the ones the head scores with: q · k / √d_k is its score matrix
        np.testing.assert_allclose(
            q @ k.T / math.sqrt(q.shape[1]), cache[act_name("encoder", 1, "scores")][0, 2].numpy(), atol=1e-4
        )
        queries.append(q)
        keys.append(k)
    stacked = np.concatenate([*queries, *keys])
    xy = (stacked - stacked.mean(0)) @ m.projection.components.T
    n_q = sum(len(q) for q in queries)
    assert m.is_query.sum() == n_q and len(m.xy) == len(stacked)
    np.testing.assert_allclose(m.xy, xy, atol=1e-4)
    np.testing.assert_allclose(m.projection.mean, stacked.mean(0), atol=1e-5)


def test_map_refuses_an_empty_set_and_a_missing_head():
    bundle = load_model("induction")
    with pytest.raises(ValueError):
        qk_map(bundle, [], "decoder", 0, 0)
    with pytest.raises(ValueError):
        qk_map(bundle, ["ab"], "decoder", 5, 0)
