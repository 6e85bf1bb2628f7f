"""Attention rollout (Abnar & Zuidema, 2020): how much each input token feeds each position, across layers.

One layer's attention says where a position looks in the previous layer's output, but that
output already mixes tokens. Rollout follows the mixing down the stack: average the heads,
add the identity for the residual connection, renormalize rows, and multiply layer by layer:
    Â_l = normalize(mean_h A_l + I),   R_l = Â_l · R_{l−1},   R_0 = I.
Only self-attention composes this way (queries and keys index the same sequence).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _residual_step(layer: np.ndarray) -> np.ndarray:
    """(H, T, T) weights → (T, T): the heads' average plus the residual identity, rows summing to 1 (float64; the
    average taken without first copying every head to float64)."""
    mixed = np.asarray(layer).mean(axis=0, dtype=np.float64)  # (T, T)
    mixed[np.diag_indices_from(mixed)] += 1.0
    return mixed / mixed.sum(axis=-1, keepdims=True)


def _check_square(patterns: np.ndarray | Sequence[np.ndarray]) -> None:
    shape = np.shape(patterns[0])
    if shape[-1] != shape[-2]:
        raise ValueError(f"rollout needs self-attention (square patterns), got {shape[-2:]}")


def residual_attention(patterns: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
    """(L, H, T, T) weights (or L arrays of (H, T, T)) → (L, T, T) head-averaged attention plus the residual
    identity, rows summing to 1."""
    _check_square(patterns)
    return np.stack([_residual_step(layer) for layer in patterns])


def rollout(patterns: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
    """(L, H, T, T) weights → (L, T, T): entry [l, i, j] is how much token j reaches position i after layer l.

    One layer at a time: at T = 1,024 the stack of every layer's step in float64 (and its normalised copy) was
    200 MB held at once, the top of a GPT-2-sized heads page's memory.
    """
    # The products in float32 (rows of a row-stochastic product stay within ~1e-6 of float64's; a picture needs
    # no more), half float64's time at T = 1,024 where each layer's product is 2 GFLOP.
    _check_square(patterns)
    t = np.shape(patterns[0])[-1]
    out = np.empty((len(patterns), t, t), dtype=np.float32)
    current = np.eye(t, dtype=np.float32)
    for layer, weights in enumerate(patterns):
        current = _residual_step(weights).astype(np.float32) @ current  # (T, T): later layers multiply on the left
        out[layer] = current
    return out
