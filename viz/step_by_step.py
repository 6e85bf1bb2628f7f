"""One attention head's computation for one query, redone in NumPy from the model's own q, k, v.

    Attention(Q, K, V) = softmax(Q Kᵀ / sqrt(d_k)) V

The page shows every intermediate (q·k, ÷ sqrt(d_k), the mask, softmax, the weighted sum of the
values) with real numbers, so a class can follow one query by hand. Recomputing rather than
just reading the captured arrays is the point: `check_head` proves the numbers on screen are the
ones the model used. Long inputs are clipped to a window of keys and the first few dimensions,
small enough to read; the window is centred on the key the query attends to most.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from hook_names import act_name
from viz.tokens import Labels, hover_labels

STEP_HOOKS = ("hook_q", "hook_k", "hook_v", "hook_scores", "hook_mask", "hook_pattern", "hook_z", "hook_out")
MAX_KEYS = 12  # keys shown at once: a row of numbers a class can still read
MAX_DIMS = 8  # dimensions of q, k, v shown at once


def step_hook_names(kind: str, layer: int) -> tuple[str, ...]:
    """The hook names one attention module needs for this page (ask `get_trace` for no more)."""
    return tuple(act_name(kind, layer, hook) for hook in STEP_HOOKS)


def recompute_pattern(q: np.ndarray, k: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """softmax(q kᵀ / sqrt(d_k)) with blocked keys at exactly 0, in float64.

    Shape: q (..., Tq, d_k), k (..., Tk, d_k), allowed broadcastable to (..., Tq, Tk) → (..., Tq, Tk).
    A fully blocked row is all zeros, as in `transformer.attention.masked_softmax`.
    """
    q64, k64 = q.astype(np.float64), k.astype(np.float64)
    scores = q64 @ np.swapaxes(k64, -1, -2) / np.sqrt(q.shape[-1])  # (..., Tq, Tk)
    scores = np.where(allowed, scores, -np.inf)
    peak = scores.max(axis=-1, keepdims=True)  # (..., Tq, 1)
    weights = np.exp(scores - np.where(np.isfinite(peak), peak, 0.0))  # exp(-inf) = 0
    total = weights.sum(axis=-1, keepdims=True)
    return np.divide(weights, total, out=np.zeros_like(weights), where=total > 0)


def key_window(center: int, total: int, size: int = MAX_KEYS) -> tuple[int, int]:
    """[start, stop) of at most `size` consecutive keys around `center`, kept inside [0, total)."""
    size = min(size, total)
    start = min(max(0, center - size // 2), total - size)
    return start, start + size


@dataclass(frozen=True)
class HeadCheck:
    """Largest differences between the NumPy recomputation and what the model captured (one head)."""

    scores_error: float  # q kᵀ / sqrt(d_k) vs hook_scores
    pattern_error: float  # softmax with the mask vs hook_pattern
    z_error: float  # pattern @ v vs hook_z

    def passes(self, tol: float = 1e-5) -> bool:
        return max(self.scores_error, self.pattern_error, self.z_error) <= tol


def _head_arrays(arrays: Mapping[str, np.ndarray], kind: str, layer: int, head: int) -> dict[str, np.ndarray]:
    """q, k, v, scores, pattern, z of one head (batch item 0) and its (Tq, Tk) mask."""
    out = {h: arrays[act_name(kind, layer, h)][0, head] for h in ("q", "k", "v", "scores", "pattern", "z")}
    out["allowed"] = arrays[act_name(kind, layer, "mask")][0, 0].astype(bool)  # (Tq, Tk)
    return out


def check_head(arrays: Mapping[str, np.ndarray], kind: str, layer: int, head: int) -> HeadCheck:
    """Recompute one head for every query and compare with the captured arrays."""
    a = _head_arrays(arrays, kind, layer, head)
    scores = a["q"].astype(np.float64) @ a["k"].T.astype(np.float64) / np.sqrt(a["q"].shape[-1])  # (Tq, Tk)
    pattern = recompute_pattern(a["q"], a["k"], a["allowed"])  # (Tq, Tk)
    z = pattern @ a["v"].astype(np.float64)  # (Tq, d_k)
    return HeadCheck(
        scores_error=float(np.abs(scores - a["scores"]).max(initial=0.0)),
        pattern_error=float(np.abs(pattern - a["pattern"]).max(initial=0.0)),
        z_error=float(np.abs(z - a["z"]).max(initial=0.0)),
    )


@dataclass(frozen=True)
class StepView:
    """The numbers of one query's attention, clipped to a window of keys and the first dimensions."""

    query: int
    query_label: str  # escaped "3: tok"
    keys: np.ndarray  # (n,) key positions shown
    key_labels: list[str]  # escaped, one per shown key
    n_keys: int  # Tk: all keys of this attention
    d_k: int
    q: np.ndarray  # (D,) the query row, first D dims
    k: np.ndarray  # (n, D)
    v: np.ndarray  # (n, D)
    dot: np.ndarray  # (n,) q·k over all d_k dims
    scaled: np.ndarray  # (n,) q·k / sqrt(d_k)
    allowed: np.ndarray  # (n,) bool
    weights: np.ndarray  # (n,) softmax over all keys, shown keys only
    contributions: np.ndarray  # (n, D) weight_j · v_j
    rest: np.ndarray  # (D,) what the keys outside the window add to z
    z: np.ndarray  # (D,) recomputed output row, first D dims
    captured_z: np.ndarray  # (D,) hook_z
    hidden_weight: float  # attention weight on keys outside the window
    check: HeadCheck

    @property
    def dims(self) -> int:
        return self.q.shape[0]

    @property
    def keys_clipped(self) -> bool:
        return len(self.keys) < self.n_keys

    @property
    def dims_clipped(self) -> bool:
        return self.dims < self.d_k


def build_step_view(
    arrays: Mapping[str, np.ndarray],
    kind: str,
    layer: int,
    head: int,
    query: int,
    query_tokens: Labels,
    key_tokens: Labels,
    max_keys: int = MAX_KEYS,
    max_dims: int = MAX_DIMS,
) -> StepView:
    """Everything the step-by-step figures show for query position `query` of one head.

    For decoder queries pass a `viz.tokens.TokenAxis` (`attention_axes`): the query is then named
    "3: 我 → 今天", by what it reads and writes; the page's query picker uses `option_label` of the
    same axis, so both name the row alike.
    """
    a = _head_arrays(arrays, kind, layer, head)
    n_keys, d_k = a["k"].shape
    allowed_row = a["allowed"][query]  # (Tk,)
    weights_all = recompute_pattern(a["q"][query][None], a["k"], allowed_row[None])[0]  # (Tk,)
    start, stop = key_window(int(np.argmax(weights_all)), n_keys, max_keys)
    shown = np.arange(start, stop)
    dims = min(d_k, max_dims)
    q64, k64, v64 = (a[x].astype(np.float64) for x in ("q", "k", "v"))
    dot = k64[shown] @ q64[query]  # (n,)
    contributions = weights_all[shown, None] * v64[shown, :dims]  # (n, D)
    key_labels = hover_labels(key_tokens)
    z = weights_all @ v64[:, :dims]  # (D,)
    return StepView(
        query=query,
        query_label=hover_labels(query_tokens)[query],
        keys=shown,
        key_labels=[key_labels[j] for j in shown],
        n_keys=n_keys,
        d_k=d_k,
        q=q64[query, :dims],
        k=k64[shown, :dims],
        v=v64[shown, :dims],
        dot=dot,
        scaled=dot / np.sqrt(d_k),
        allowed=allowed_row[shown],
        weights=weights_all[shown],
        contributions=contributions,
        rest=z - contributions.sum(axis=0),
        z=z,
        captured_z=a["z"][query, :dims].astype(np.float64),
        hidden_weight=float(1.0 - weights_all[shown].sum()) if allowed_row.any() else 0.0,
        check=check_head(arrays, kind, layer, head),
    )
