"""Per-head scores: one number per (layer, head) saying where a head looks and how, in one vocabulary.

The heads page's summary table and its head-detector section, the training film's "heads finding their job"
and the induction model's card all read their numbers here, by the names of `ScoreName`; each picks a subset
(`SUMMARY_SCORE_NAMES`, `DETECTOR_SCORE_NAMES`), and `CROSS_SCORE_NAMES` says once which of them mean
something for cross-attention. One formula per behaviour:

    entropy          bits of each query's row: 0 = looks at one key, log2(Tk) = spread evenly
    distance         mean |q - k| under the row's weights: how far a head reaches
    previous_token   weight on the position just before the query (q - 1)
    diagonal         weight on the query's own position (q)
    anti_diagonal    weight on the mirrored position Tk - 1 - q (a reversing head)
    first_token      weight on position 0 (<bos>), the "attention sink" of many heads
    duplicate_token  weight on earlier occurrences of the query's own token
    induction        weight on the token right after an earlier occurrence of the query's token
                     (computed on a repeated random sequence, where it is what an induction head does)
    source_alignment weight on the gold alignment's source positions (needs the alignment)
    alignment        share of aligned rows whose largest weight is on a gold source position (the arg-max
                     reading of the same alignment: the number a translator's card and the heads page report)

Query 0 is left out of every score that credits a head for where it looks (previous token to induction):
under a causal mask (every decoder, every decoder-only model) query 0 has one key, itself and position 0,
so its whole weight would count as "diagonal" and "first token" for free, and it has no previous token
anyway. Leaving it out everywhere, encoder and cross-attention too, keeps one rule that needs no mask and
gives a hand-made pattern the same score in every section. Entropy and distance describe a row's shape,
not a behaviour, and average every query. The two alignment scores count every aligned row: row 0 of
cross-attention writes the first output token and is as much a translation as any other.

Cross-attention compares two different sequences, so a score that compares a query's index or token with a
key's (previous token, diagonal, anti-diagonal, distance, duplicate token, induction) means nothing there
between two languages: `CROSS_SCORE_NAMES` are the scores that do.

Pure NumPy (no torch: the pages' run layer and the film read it on arrays). Patterns are weights of one
sequence, no padding: a single pattern (Tq, Tk), one layer's heads (H, Tq, Tk) or a stack (L, H, Tq, Tk);
a score drops the last two axes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, get_args

import numpy as np

from transformer.engine.precision import widen_into

ScoreName = Literal[
    "entropy",
    "distance",
    "previous_token",
    "diagonal",
    "anti_diagonal",
    "first_token",
    "duplicate_token",
    "induction",
    "source_alignment",
    "alignment",
]
ENTROPY: ScoreName = "entropy"
DISTANCE: ScoreName = "distance"
PREVIOUS_TOKEN: ScoreName = "previous_token"
DIAGONAL: ScoreName = "diagonal"
ANTI_DIAGONAL: ScoreName = "anti_diagonal"
FIRST_TOKEN: ScoreName = "first_token"
DUPLICATE_TOKEN: ScoreName = "duplicate_token"
INDUCTION: ScoreName = "induction"
SOURCE_ALIGNMENT: ScoreName = "source_alignment"
ALIGNMENT: ScoreName = "alignment"
SCORE_NAMES: tuple[ScoreName, ...] = get_args(ScoreName)
"""Every score name (each section shows its own in its own order)."""

INDEX_SCORE_NAMES: tuple[ScoreName, ...] = (PREVIOUS_TOKEN, DUPLICATE_TOKEN, DIAGONAL, ANTI_DIAGONAL, DISTANCE)
"""The scores that compare a query's position with a key's position in the same sequence."""
TOKEN_SCORE_NAMES: tuple[ScoreName, ...] = (DUPLICATE_TOKEN, INDUCTION)
"""The scores that need the sequence's tokens."""
ALIGNMENT_SCORE_NAMES: tuple[ScoreName, ...] = (SOURCE_ALIGNMENT, ALIGNMENT)
"""The scores that need a gold alignment of query rows to source keys."""
CROSS_SCORE_NAMES: tuple[ScoreName, ...] = (ENTROPY, FIRST_TOKEN, SOURCE_ALIGNMENT, ALIGNMENT)
"""What means something for cross-attention: the row's shape, the sink and the gold alignment (no index, no token)."""

SUMMARY_SCORE_NAMES: tuple[ScoreName, ...] = (ENTROPY, PREVIOUS_TOKEN, DIAGONAL, FIRST_TOKEN, DISTANCE, ALIGNMENT)
"""The heads page's summary of the sentence on screen, in table order."""
DETECTOR_SCORE_NAMES: tuple[ScoreName, ...] = (
    PREVIOUS_TOKEN,
    INDUCTION,
    DUPLICATE_TOKEN,
    FIRST_TOKEN,
    DIAGONAL,
    ANTI_DIAGONAL,
    SOURCE_ALIGNMENT,
)
"""The head-detector section (a repeated random sequence, and the task's sentences for the alignment), in table order."""


def names_for(names: Sequence[ScoreName], kind: str | None) -> tuple[ScoreName, ...]:
    """The scores among `names` that mean something for an attention kind ("encoder", "decoder", "cross");
    `kind=None` keeps all (the caller vouches the patterns are self-attention)."""
    return tuple(n for n in names if kind != "cross" or n in CROSS_SCORE_NAMES)


def _check(patterns: np.ndarray) -> np.ndarray:
    """`patterns` as (Tq, Tk), (H, Tq, Tk) or (L, H, Tq, Tk) floats: float32 and float16 kept as captured (a long
    run's patterns are large: the scores that average weights add them up in float64 instead, and the row sums
    widen float16 a block at a time), anything else as float64."""
    p = np.asarray(patterns)
    p = p if p.dtype in (np.float16, np.float32, np.float64) else p.astype(np.float64)
    if p.ndim not in (2, 3, 4):
        raise ValueError(f"patterns must be (Tq, Tk), (heads, Tq, Tk) or (layers, heads, Tq, Tk), got shape {p.shape}")
    return p


def _mean_at(patterns: np.ndarray, key_of: np.ndarray) -> np.ndarray:
    """Mean over queries 1..Tq-1 of the weight query q puts on key `key_of[q]` (queries whose key is outside
    0..Tk-1 skipped); NaN where no query is left. One gather, not a (Tq, Tk) product: a long run's stack is large."""
    p = _check(patterns)
    tq, tk = p.shape[-2:]
    queries = np.arange(1, tq)  # query 0 left out: see the module docstring
    keys = np.asarray(key_of)[1:]
    ok = (keys >= 0) & (keys < tk)
    if not ok.any():
        return np.full(p.shape[:-2], np.nan)
    return p[..., queries[ok], keys[ok]].mean(axis=-1, dtype=np.float64)


def _mean_over_targets(patterns: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Mean over the queries that have a target (query 0 left out) of the weight on that query's targets.

    Args:
        patterns: (L, H, Tq, Tk), (H, Tq, Tk) or (Tq, Tk). targets: (Tq, Tk) bool, True where a query "should" look.
    Returns:
        (L, H), (H,) or 0-d; NaN where no query has a target (the score does not apply to this input).
    """
    p = _check(patterns)
    targets = np.asarray(targets, dtype=bool)
    if targets.shape != p.shape[-2:]:
        raise ValueError(f"targets {targets.shape} do not match the patterns' (Tq, Tk) {p.shape[-2:]}")
    queries = targets.any(axis=1)  # (Tq,)
    queries[0] = False  # query 0: see the module docstring
    if not queries.any():
        return np.full(p.shape[:-2], np.nan)
    mass = (p[..., queries, :].astype(np.float64) * targets[queries]).sum(axis=-1)  # (L, H, Q), (H, Q) or (Q,)
    return mass.mean(axis=-1)


_ROW_SUM_NAMES: tuple[ScoreName, ...] = (ENTROPY, DISTANCE)
"""The scores that read every weight of a row (the others gather a few): one pass over a layer computes both."""

_BLOCK_ROWS = 64
"""Query rows of every head taken at a time: (12, 64, 1,024) float32 is 3 MB, so a block's passes (logarithm,
products, row sums) run in cache instead of streaming a GPT-2 layer's 50 MB from memory for each pass."""


@lru_cache(maxsize=4)
def _distances(tq: int, tk: int, dtype: np.dtype) -> np.ndarray:
    """(Tq, Tk) |q - k| in the patterns' dtype, read-only: built once per length, not once per layer."""
    distance = np.abs(np.arange(tq)[:, None] - np.arange(tk)[None, :]).astype(dtype)
    distance.flags.writeable = False
    return distance


def _row_sums(p: np.ndarray, names: Sequence[ScoreName]) -> dict[ScoreName, np.ndarray]:
    """(..., Tq) per query row, in `p`'s dtype: Σ_k p log2 p for `ENTROPY`, Σ_k p |q - k| for `DISTANCE`.

    A block of rows at a time, with one product buffer for both sums: the products are the whole-array
    formula's, element for element (no layer-sized temporary is allocated). A block whose keys after its last row
    hold only zeros (every causal block but the last) is computed and summed over the keys before them: they add
    exactly 0 to both sums, and half of a causal layer's cells are skipped. A row summed over fewer keys is added
    in another order, so a sum may differ from the whole array's in its last float32 bit.
    """
    if not names:
        return {}
    lead, (tq, tk) = p.shape[:-2], p.shape[-2:]
    dtype = np.promote_types(p.dtype, np.float32)  # a bfloat16 run's float16 weights are summed in float32
    sums = {name: np.empty((*lead, tq), dtype=dtype) for name in names}
    room = math.prod(lead) * min(tq, _BLOCK_ROWS) * tk  # one block's cells at most
    products, positive = np.empty(room, dtype=dtype), np.empty(room, dtype=bool)
    widened = np.empty(room, dtype=dtype) if p.dtype != dtype else None  # float16 rows, as float32
    for start in range(0, tq, _BLOCK_ROWS):
        rows = slice(start, min(start + _BLOCK_ROWS, tq))
        reach = rows.stop if rows.stop < tk and _all_zero(p[..., rows, rows.stop :]) else tk
        # the block's buffers laid out contiguously at the start of each: NumPy's masked and strided loops over
        # slices of wider rows were slower than the whole rows they skipped
        shape = (*lead, rows.stop - start, reach)  # (..., B, reach)
        size = math.prod(shape)
        block = p[..., rows, :reach]
        block = block if widened is None else widen_into(block, widened[:size].reshape(shape))
        product, weighted = products[:size].reshape(shape), positive[:size].reshape(shape)
        if ENTROPY in sums:
            # 0 log 0 = 0: masked keys add nothing, and their logarithm is never taken (log2(0) is also the slow
            # path of the logarithm)
            np.greater(block, 0, out=weighted)
            product.fill(0)
            np.log2(block, out=product, where=weighted)
            np.multiply(block, product, out=product)
            np.sum(product, axis=-1, out=sums[ENTROPY][..., rows])
        if DISTANCE in sums:
            np.multiply(block, _distances(tq, tk, dtype)[rows, :reach], out=product)
            np.sum(product, axis=-1, out=sums[DISTANCE][..., rows])
    return sums


def _all_zero(weights: np.ndarray) -> bool:
    """Whether every weight is +0 (read as integers of the same width: one cheap pass, where a float comparison
    would widen float16 first; a -0 counts as nonzero, which only costs the caller its shortcut)."""
    return not weights.view(f"u{weights.dtype.itemsize}").any()


def _mean_of_rows(name: ScoreName, sums: np.ndarray) -> np.ndarray:
    """A row-sum score from its (..., Tq) row sums: the mean over every query (entropy's sums are of p log p)."""
    mean = sums.mean(axis=-1)
    return -mean if name == ENTROPY else mean


def entropy_score(patterns: np.ndarray) -> np.ndarray:
    """(L, H): mean entropy in bits of a query's weights; log2(Tk) for a head that spreads evenly."""
    return _mean_of_rows(ENTROPY, _row_sums(_check(patterns), (ENTROPY,))[ENTROPY])


def distance_score(patterns: np.ndarray) -> np.ndarray:
    """(L, H): mean over queries of Σ_k p[q, k] |q - k|, how far a head reaches."""
    return _mean_of_rows(DISTANCE, _row_sums(_check(patterns), (DISTANCE,))[DISTANCE])


def previous_token_score(patterns: np.ndarray) -> np.ndarray:
    """(L, H): mean weight on key q - 1. Perfect previous-token head: 1; uniform over T keys: 1/T."""
    p = _check(patterns)
    return _mean_at(p, np.arange(p.shape[-2]) - 1)


def diagonal_score(patterns: np.ndarray) -> np.ndarray:
    """(L, H): mean weight on the query's own position."""
    p = _check(patterns)
    return _mean_at(p, np.arange(p.shape[-2]))


def anti_diagonal_score(patterns: np.ndarray) -> np.ndarray:
    """(L, H): mean weight on key Tk - 1 - q (for a square pattern, the mirrored position)."""
    p = _check(patterns)
    tq, tk = p.shape[-2:]
    return _mean_at(p, tk - 1 - np.arange(tq))


def first_token_score(patterns: np.ndarray) -> np.ndarray:
    """(L, H): mean weight on key 0 (the attention sink)."""
    p = _check(patterns)
    return _mean_at(p, np.zeros(p.shape[-2], dtype=int))


def duplicate_targets(tokens: Sequence[int]) -> np.ndarray:
    """(T, T) bool: key k < q holds the same token as query q."""
    t = np.asarray(tokens)
    same = t[:, None] == t[None, :]  # (T, T)
    return same & np.tri(len(t), k=-1, dtype=bool)


def induction_targets(tokens: Sequence[int]) -> np.ndarray:
    """(T, T) bool: key k + 1 where k < q is an earlier occurrence of query q's token (and k + 1 <= q)."""
    earlier = duplicate_targets(tokens)  # (T, T)
    targets = np.zeros_like(earlier)
    targets[:, 1:] = earlier[:, :-1]  # shift each earlier occurrence one key to the right
    return targets


def duplicate_token_score(patterns: np.ndarray, tokens: Sequence[int]) -> np.ndarray:
    """(L, H): mean weight on earlier occurrences of the query's token, over queries that have one."""
    return _mean_over_targets(patterns, duplicate_targets(tokens))


def induction_score(patterns: np.ndarray, tokens: Sequence[int]) -> np.ndarray:
    """(L, H): mean weight on the token after an earlier occurrence of the query's token.

    On `a b c a b c` the query at the second `b` should look at the first `c`. NaN when no token repeats.
    """
    return _mean_over_targets(patterns, induction_targets(tokens))


Alignment = Mapping[int, set[int]] | Sequence[int | None] | np.ndarray
"""A gold alignment: query row → source positions, a list with None for an unaligned row, or a (Tq, Tk) bool matrix."""


def alignment_matrix(alignment: Alignment, tq: int, tk: int, *, strict: bool = False) -> np.ndarray:
    """A gold alignment → (Tq, Tk) bool. Rows past `tq` are unaligned (the row that writes <eos>, say); a source
    position outside 0..tk-1 is dropped, or with `strict` raises (the alignment belongs to another sentence)."""
    if isinstance(alignment, np.ndarray):
        if alignment.shape != (tq, tk):
            raise ValueError(f"alignment {alignment.shape} does not match the patterns' (Tq, Tk) {(tq, tk)}")
        return alignment.astype(bool)
    pairs = alignment.items() if isinstance(alignment, Mapping) else ((q, {s}) for q, s in enumerate(alignment) if s is not None)
    matrix = np.zeros((tq, tk), dtype=bool)
    for q, keys in pairs:
        for k in keys if 0 <= q < tq else ():
            if 0 <= k < tk:
                matrix[q, k] = True
            elif strict:
                raise ValueError(f"alignment row {q} points at source position {k}, outside 0..{tk - 1}")
    return matrix


def source_alignment_score(patterns: np.ndarray, alignment: Alignment) -> np.ndarray:
    """(L, H): mean weight on the gold source positions, over the rows that have any (row 0 included)."""
    p = _check(patterns)
    gold = alignment_matrix(alignment, *p.shape[-2:])
    rows = gold.any(axis=1)
    if not rows.any():
        return np.full(p.shape[:-2], np.nan)
    return (p[..., rows, :].astype(np.float64) * gold[rows]).sum(axis=-1).mean(axis=-1)


def alignment_score(patterns: np.ndarray, alignment: Alignment) -> np.ndarray:
    """(L, H): share of aligned rows (row 0 included) whose arg-max key is a gold source position; 1 = a word
    aligner, about 1/Tk = chance, NaN where no row is aligned. A source position outside the keys raises."""
    p = _check(patterns)
    gold = alignment_matrix(alignment, *p.shape[-2:], strict=True)
    rows = np.flatnonzero(gold.any(axis=1))
    if rows.size == 0:
        return np.full(p.shape[:-2], np.nan)
    peaks = p[..., rows, :].argmax(axis=-1)  # (..., n_aligned)
    return gold[rows, peaks].mean(axis=-1)


@dataclass(frozen=True)
class HeadScores:
    """A layer × head table of scores for one attention stack.

    Attributes:
        names: the score names present, in the order of the section that asked for them.
        scores: (S, L, H) float64, NaN where a score does not apply (e.g. previous token with one query).
        n_keys: the patterns' key count Tk (entropy's scale: log2(Tk) is a head spread evenly); 0 when unknown.
    """

    names: tuple[ScoreName, ...]
    scores: np.ndarray
    n_keys: int = 0

    @property
    def max_entropy(self) -> float:
        """log2(Tk): the entropy of a head that spreads evenly over every key."""
        return float(np.log2(self.n_keys)) if self.n_keys else float("nan")

    def score(self, name: str) -> np.ndarray:
        """(L, H) for one score name."""
        if name not in self.names:
            raise KeyError(f"no {name!r} score here; available: {', '.join(self.names)}")
        return self.scores[self.names.index(name)]

    def top(self, name: str, k: int = 3) -> list[tuple[int, int, float]]:
        """The `k` best (layer, head, score) for `name`, best first; NaN heads never count."""
        grid = self.score(name)
        order = np.argsort(-np.nan_to_num(grid, nan=-np.inf), axis=None)
        picked = [np.unravel_index(i, grid.shape) for i in order[:k]]
        return [(int(layer), int(head), float(grid[layer, head])) for layer, head in picked if np.isfinite(grid[layer, head])]

    def only(self, names: Sequence[str]) -> HeadScores:
        """The scores among `names` (in this table's order); e.g. `CROSS_SCORE_NAMES` for cross-attention."""
        kept = [i for i, name in enumerate(self.names) if name in names]
        return HeadScores(tuple(self.names[i] for i in kept), self.scores[kept], self.n_keys)

    def rows(self) -> list[dict[str, float | int]]:
        """One dict per head ({"layer", "head", name...}), in layer-major order, for a table."""
        n_layers, n_heads = self.scores.shape[1:]
        return [
            {"layer": layer, "head": head, **{n: float(self.scores[i, layer, head]) for i, n in enumerate(self.names)}}
            for layer in range(n_layers)
            for head in range(n_heads)
        ]


_SCORES = {
    ENTROPY: entropy_score,
    DISTANCE: distance_score,
    PREVIOUS_TOKEN: previous_token_score,
    DIAGONAL: diagonal_score,
    ANTI_DIAGONAL: anti_diagonal_score,
    FIRST_TOKEN: first_token_score,
    DUPLICATE_TOKEN: duplicate_token_score,
    INDUCTION: induction_score,
    SOURCE_ALIGNMENT: source_alignment_score,
    ALIGNMENT: alignment_score,
}


_WORKERS = 2
"""Layers scored at once: the app's machine has two cores (and more threads would hold more block buffers)."""
_THREADED_CELLS = 1 << 21
"""A layer's cells (H·Tq·Tk) from which scoring two layers at once pays (about 420 tokens with 12 heads, measured
on two cores); below it, starting the threads costs what the second core saves."""


def head_scores(
    patterns: np.ndarray | Sequence[np.ndarray],
    tokens: Sequence[int] | None = None,
    alignment: Alignment | None = None,
    names: Sequence[ScoreName] = DETECTOR_SCORE_NAMES,
) -> HeadScores:
    """The scores among `names` that this stack's inputs allow: token scores need `tokens` (query and key
    sequences the same: a self-attention stack), alignment scores `alignment`.

    `patterns`: a stack (L, H, Tq, Tk), or L arrays of one layer's (H, Tq, Tk). Scored layer by layer (large layers
    two at once, on worker threads): each temporary is a block of one layer's rows, not the whole stack's (a
    GPT-2-sized model at 1,024 tokens has 604 MB of patterns, and p·log p or p·distance over all of them at once
    peaked at 2.4 GB more).
    """
    layers = list(patterns)
    if (isinstance(patterns, np.ndarray) and patterns.ndim != 4) or not layers or any(np.ndim(x) != 3 for x in layers):
        raise ValueError(f"patterns must be (layers, heads, Tq, Tk), got shape {np.shape(patterns)}")
    n_heads, tq, tk = np.shape(layers[0])
    if tokens is not None and (len(tokens) != tq or tq != tk):
        raise ValueError(f"token scores need a self-attention pattern over the {len(tokens)} tokens, got {(tq, tk)}")
    given = {**dict.fromkeys(TOKEN_SCORE_NAMES, tokens), **dict.fromkeys(ALIGNMENT_SCORE_NAMES, alignment)}
    chosen = tuple(n for n in names if n not in given or given[n] is not None)

    def score(name: ScoreName, layer: np.ndarray, sums: dict[ScoreName, np.ndarray]) -> np.ndarray:  # (H,)
        if name in sums:
            return _mean_of_rows(name, sums[name])
        return _SCORES[name](layer) if name not in given else _SCORES[name](layer, given[name])

    def layer_scores(layer: np.ndarray) -> np.ndarray:  # (S, H)
        sums = _row_sums(_check(layer), [n for n in chosen if n in _ROW_SUM_NAMES])  # entropy and distance: one pass
        return np.array([score(name, layer, sums) for name in chosen], dtype=np.float64).reshape(len(chosen), n_heads)

    scores = np.empty((len(chosen), len(layers), n_heads))  # (S, L, H) float64
    if len(layers) > 1 and n_heads * tq * tk >= _THREADED_CELLS:
        # NumPy lets go of the GIL inside each pass, so two layers are scored at once on two cores
        with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
            per_layer = list(pool.map(layer_scores, layers))
    else:
        per_layer = [layer_scores(layer) for layer in layers]
    for i, layer_score in enumerate(per_layer):
        scores[:, i] = layer_score
    return HeadScores(chosen, scores, int(tk))
