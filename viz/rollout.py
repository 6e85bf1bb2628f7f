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


def residual_attention(patterns: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
    """(L, H, T, T) weights (or L arrays of (H, T, T)) → (L, T, T) head-averaged attention plus the residual
    identity, rows summing to 1."""
    shape = np.shape(patterns[0])
    if shape[-1] != shape[-2]:
        raise ValueError(f"rollout needs self-attention (square patterns), got {shape[-2:]}")
    # (L, T, T); layer by layer, averaging in float64 without first copying every head (or every layer) to float64
    mixed = np.stack([np.asarray(layer).mean(axis=0, dtype=np.float64) for layer in patterns]) + np.eye(shape[-1])
    return mixed / mixed.sum(axis=-1, keepdims=True)


def rollout(patterns: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
    """(L, H, T, T) weights → (L, T, T): entry [l, i, j] is how much token j reaches position i after layer l."""
    # The products in float32 (rows of a row-stochastic product stay within ~1e-6 of float64's; a picture needs
    # no more), half float64's time at T = 1,024 where each layer's product is 2 GFLOP.
    steps = residual_attention(patterns).astype(np.float32)  # (L, T, T)
    out = np.empty_like(steps)
    current = np.eye(steps.shape[-1], dtype=np.float32)
    for layer, step in enumerate(steps):
        current = step @ current  # (T, T): later layers multiply on the left
        out[layer] = current
    return out
