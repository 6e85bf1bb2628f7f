"""Attention rollout (Abnar & Zuidema, 2020): how much each input token feeds each position, across layers.

One layer's attention says where a position looks in the previous layer's output, but that
output already mixes tokens. Rollout follows the mixing down the stack: average the heads,
add the identity for the residual connection, renormalize rows, and multiply layer by layer:
    Â_l = normalize(mean_h A_l + I),   R_l = Â_l · R_{l−1},   R_0 = I.
Only self-attention composes this way (queries and keys index the same sequence).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

_STEP_ROWS = 64
"""Rows of a layer's step averaged at a time: every head's rows of a block ((12, 64, 1,024) float32, 3 MB) stay in
cache while they are summed, where a whole layer's 50 MB went through memory."""
_BLOCK = 256
"""Rows and columns per block of a causal product (ten matrix products a layer at T = 1,024: few enough calls
that the BLAS's own threads are not kept waiting on each other)."""
_WORKERS = 2
"""Layers whose steps are averaged at once: the app's machine has two cores."""
_THREADED_CELLS = 1 << 22
"""A layer's cells (H·T·T) from which averaging two layers at once pays (about 600 tokens with 12 heads, measured
on two cores); below it, starting the threads costs what the second core saves."""


def _residual_step(layer: np.ndarray) -> np.ndarray:
    """(H, T, T) weights → (T, T): the heads' average plus the residual identity, rows summing to 1 (float64; the
    average taken without first copying every head to float64)."""
    mixed = np.asarray(layer).mean(axis=0, dtype=np.float64)  # (T, T)
    mixed[np.diag_indices_from(mixed)] += 1.0
    return mixed / mixed.sum(axis=-1, keepdims=True)


Widen = Callable[[np.ndarray, np.ndarray], object]
"""How float16 weights are written into a float32 buffer: `widen(src, out)`. NumPy's by default; the run layer
passes PyTorch's (`transformer.engine.precision.widen_into`, six times faster; this package does not import torch)."""


def _numpy_widen(src: np.ndarray, out: np.ndarray) -> None:
    np.copyto(out, src)


def _residual_step_into(layer: np.ndarray, out: np.ndarray, widen: Widen = _numpy_widen) -> None:
    """`_residual_step` of (H, T, T) weights written into `out` (T, T) float32, for rollout's float32 products.

    A block of rows at a time, the heads summed in float32 straight into `out` (the step is rounded to float32
    anyway: it stays within ~1e-7 of the float64 step) and each row normalised by its float64 sum: three times
    faster than averaging a whole layer in float64, with no layer-sized temporary. Float16 weights (a bfloat16
    run's) are widened by `widen` into one block-sized buffer first.
    """
    layer = np.asarray(layer)
    n_heads, t = layer.shape[0], layer.shape[-1]
    widened = np.empty((n_heads, min(_STEP_ROWS, t), t), dtype=np.float32) if layer.dtype != np.float32 else None
    for start in range(0, t, _STEP_ROWS):
        stop = min(start + _STEP_ROWS, t)
        mixed = out[start:stop]  # (B, T)
        block = layer[:, start:stop]  # (H, B, T)
        if widened is not None:
            widen(block, widened[:, : stop - start])
            block = widened[:, : stop - start]
        np.add.reduce(block, axis=0, out=mixed)
        mixed /= n_heads
        mixed[np.arange(stop - start), np.arange(start, stop)] += 1.0
        np.divide(mixed, mixed.sum(axis=-1, keepdims=True, dtype=np.float64), out=mixed)


def _block_lower(matrix: np.ndarray) -> bool:
    """True when no row block of `matrix` reaches past its own last row: `matrix[a:b, b:]` is all zero for every
    `_BLOCK` of rows [a, b), as every step of a causal stack is (and every product of such steps)."""
    return not any(matrix[start : start + _BLOCK, start + _BLOCK :].any() for start in range(0, len(matrix), _BLOCK))


def _multiply_into(step: np.ndarray, previous: np.ndarray, causal: bool) -> None:
    """`step` ← `step` @ `previous`, both (T, T). When both are block-lower (`causal`), only the blocks on and
    below the diagonal are multiplied, each over the keys that can reach it: a third of the full product's work
    at T = 1,024. Column blocks go left to right, so each block of `step` is overwritten only after the blocks
    that read it."""
    if not causal:
        step[...] = step @ previous
        return
    t = len(step)
    for top in range(0, t, _BLOCK):
        bottom = min(top + _BLOCK, t)  # rows [top, bottom) read keys below `bottom` only
        for left in range(0, bottom, _BLOCK):
            right = min(left + _BLOCK, t)  # previous[k, left:right] is zero for every key k < left
            step[top:bottom, left:right] = step[top:bottom, left:bottom] @ previous[left:bottom, left:right]


def _check_square(patterns: np.ndarray | Sequence[np.ndarray]) -> None:
    shape = np.shape(patterns[0])
    if shape[-1] != shape[-2]:
        raise ValueError(f"rollout needs self-attention (square patterns), got {shape[-2:]}")


def residual_attention(patterns: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
    """(L, H, T, T) weights (or L arrays of (H, T, T)) → (L, T, T) head-averaged attention plus the residual
    identity, rows summing to 1."""
    _check_square(patterns)
    return np.stack([_residual_step(layer) for layer in patterns])


def rollout(patterns: np.ndarray | Sequence[np.ndarray], widen: Widen = _numpy_widen) -> np.ndarray:
    """(L, H, T, T) weights → (L, T, T): entry [l, i, j] is how much token j reaches position i after layer l.
    `widen` writes float16 weights into float32 (see `Widen`).

    Every layer's step is written first where its product goes (two layers at a time, on two cores), then each
    product overwrites its step in place: no stack of steps beside the output (at T = 1,024 the float64 steps
    and their normalised copies were 200 MB, the top of a GPT-2-sized heads page's memory).
    """
    # The products in float32 (rows of a row-stochastic product stay within ~1e-6 of float64's; a picture needs
    # no more), half float64's time at T = 1,024 where each layer's full product is 2 GFLOP. A causal stack's
    # products skip the blocks above the diagonal, which are zero.
    _check_square(patterns)
    t = np.shape(patterns[0])[-1]
    out = np.empty((len(patterns), t, t), dtype=np.float32)

    def step(layer: int) -> bool:  # whether the layer's step is block-lower (a causal layer's is)
        _residual_step_into(patterns[layer], out[layer], widen)
        return _block_lower(out[layer])

    if len(out) > 1 and np.size(patterns[0]) >= _THREADED_CELLS:
        with ThreadPoolExecutor(max_workers=_WORKERS) as pool:  # NumPy lets go of the GIL inside each pass
            causal = list(pool.map(step, range(len(out))))  # (the products below use the BLAS's own threads)
    else:
        causal = [step(layer) for layer in range(len(out))]
    # R_0 = step_0 (the identity's product); later layers multiply on the left
    for layer in range(1, len(out)):
        _multiply_into(out[layer], out[layer - 1], causal=all(causal[: layer + 1]))
    return out
