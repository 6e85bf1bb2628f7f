"""Head detectors: one number per (layer, head) saying how much a head behaves like a known kind of head.

Each score is the attention weight a head puts where that kind of head would look, averaged over
queries: 1 means the head does exactly that and nothing else, and a head attending uniformly over
T keys scores 1/T on the positional scores. Query 0 is left out of every average: under a causal
mask it can only attend to itself, which would count as "diagonal" and "first token" for free.

Scores (stable names, `SCORE_NAMES`; the page gives each a one-line meaning in both languages):
    previous_token   weight on the position just before the query (q - 1)
    induction        weight on the token right after an earlier occurrence of the query's token
                     (computed on a repeated random sequence, where it is what an induction head does)
    duplicate_token  weight on earlier occurrences of the query's own token
    first_token      weight on position 0 (<bos>), the "attention sink" of many heads
    diagonal         weight on the query's own position
    anti_diagonal    weight on the mirrored position Tk - 1 - q (a reversing head)
    source_alignment weight on a gold alignment's source positions (cross-attention; needs the alignment)

Pure NumPy: patterns come in as arrays of one sequence, no padding: a whole stack (L, H, Tq, Tk), one layer's
heads (H, Tq, Tk) or a single pattern (Tq, Tk) (a hand-made one, say); a score drops the last two axes, so it
is (L, H), (H,) or a 0-d array respectively.

Cross-attention compares two different sequences, so a score that compares a query's index with a key's
index (previous token, diagonal, anti-diagonal, duplicate token) means nothing there between two languages:
`CROSS_SCORE_NAMES` are the scores that do (the rule of `viz.head_summary.CROSS_METRICS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

PREVIOUS_TOKEN = "previous_token"
INDUCTION = "induction"
DUPLICATE_TOKEN = "duplicate_token"
FIRST_TOKEN = "first_token"
DIAGONAL = "diagonal"
ANTI_DIAGONAL = "anti_diagonal"
SOURCE_ALIGNMENT = "source_alignment"
SCORE_NAMES: tuple[str, ...] = (
    PREVIOUS_TOKEN,
    INDUCTION,
    DUPLICATE_TOKEN,
    FIRST_TOKEN,
    DIAGONAL,
    ANTI_DIAGONAL,
    SOURCE_ALIGNMENT,
)
"""Every score name, in table order. Scores that need tokens (induction, duplicate) or an alignment may be absent."""
INDEX_SCORE_NAMES: tuple[str, ...] = (PREVIOUS_TOKEN, DUPLICATE_TOKEN, DIAGONAL, ANTI_DIAGONAL)
"""The scores that compare a query's position with a key's position in the same sequence."""
CROSS_SCORE_NAMES: tuple[str, ...] = (FIRST_TOKEN, SOURCE_ALIGNMENT)
"""The scores shown for cross-attention: the sink, and the gold alignment (none of `INDEX_SCORE_NAMES`)."""


def _check(patterns: np.ndarray, stack: bool = False) -> np.ndarray:
    """`patterns` as float64, (Tq, Tk), (H, Tq, Tk) or (L, H, Tq, Tk); only the last with `stack`."""
    p = np.asarray(patterns, dtype=np.float64)
    if stack and p.ndim != 4:
        raise ValueError(f"patterns must be (layers, heads, Tq, Tk), got shape {p.shape}")
    if p.ndim not in (2, 3, 4):
        raise ValueError(f"patterns must be (Tq, Tk), (heads, Tq, Tk) or (layers, heads, Tq, Tk), got shape {p.shape}")
    return p


def _mean_over_targets(patterns: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Mean over the queries that have a target of the weight each head puts on that query's targets.

    Args:
        patterns: (L, H, Tq, Tk), (H, Tq, Tk) or (Tq, Tk). targets: (Tq, Tk) bool, True where a query "should" look.
    Returns:
        (L, H), (H,) or 0-d; NaN where no query has a target (the score does not apply to this input).
    """
    p = _check(patterns)
    targets = np.asarray(targets, dtype=bool)
    if targets.shape != p.shape[-2:]:
        raise ValueError(f"targets {targets.shape} do not match the patterns' (Tq, Tk) {p.shape[-2:]}")
    targets = targets.copy()
    targets[0] = False  # query 0: see the module docstring
    queries = targets.any(axis=1)  # (Tq,)
    if not queries.any():
        return np.full(p.shape[:-2], np.nan)
    mass = (p * targets).sum(axis=-1)  # (L, H, Tq), (H, Tq) or (Tq,)
    return mass[..., queries].mean(axis=-1)  # (L, H), (H,) or ()


def _offset_targets(tq: int, tk: int, key_of: np.ndarray) -> np.ndarray:
    """(Tq, Tk) bool with one target per query at column key_of[q] (skipped where outside 0..Tk-1)."""
    targets = np.zeros((tq, tk), dtype=bool)
    rows = np.arange(tq)
    ok = (key_of >= 0) & (key_of < tk)
    targets[rows[ok], key_of[ok]] = True
    return targets


def previous_token_score(patterns: np.ndarray) -> np.ndarray:
    """(L, H): mean weight on key q - 1. Perfect previous-token head: 1; uniform over T keys: 1/T."""
    p = _check(patterns)
    tq, tk = p.shape[-2:]
    return _mean_over_targets(p, _offset_targets(tq, tk, np.arange(tq) - 1))


def diagonal_score(patterns: np.ndarray) -> np.ndarray:
    """(L, H): mean weight on the query's own position."""
    p = _check(patterns)
    tq, tk = p.shape[-2:]
    return _mean_over_targets(p, _offset_targets(tq, tk, np.arange(tq)))


def anti_diagonal_score(patterns: np.ndarray) -> np.ndarray:
    """(L, H): mean weight on key Tk - 1 - q (for a square pattern, the mirrored position)."""
    p = _check(patterns)
    tq, tk = p.shape[-2:]
    return _mean_over_targets(p, _offset_targets(tq, tk, tk - 1 - np.arange(tq)))


def first_token_score(patterns: np.ndarray) -> np.ndarray:
    """(L, H): mean weight on key 0 (the attention sink)."""
    p = _check(patterns)
    tq, tk = p.shape[-2:]
    return _mean_over_targets(p, _offset_targets(tq, tk, np.zeros(tq, dtype=int)))


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


def source_alignment_score(patterns: np.ndarray, alignment: np.ndarray) -> np.ndarray:
    """(L, H): mean weight on the gold source positions, over queries that have any.

    Args:
        patterns: cross-attention (L, H, Tq, Tk). alignment: (Tq, Tk) bool, True at the source
            position(s) the output token predicted at query q translates. Unlike the other scores,
            query 0 counts: in cross-attention it predicts the first output token.
    """
    p = _check(patterns)
    alignment = np.asarray(alignment, dtype=bool)
    if alignment.shape != p.shape[-2:]:
        raise ValueError(f"alignment {alignment.shape} does not match the patterns' (Tq, Tk) {p.shape[-2:]}")
    queries = alignment.any(axis=1)
    if not queries.any():
        return np.full(p.shape[:-2], np.nan)
    return (p * alignment).sum(axis=-1)[..., queries].mean(axis=-1)


def alignment_matrix(alignment: Mapping[int, set[int]] | Sequence[int | None], tq: int, tk: int) -> np.ndarray:
    """A task alignment (query → source positions, or a list with None for unaligned) → (Tq, Tk) bool."""
    pairs = alignment.items() if isinstance(alignment, Mapping) else ((q, {s}) for q, s in enumerate(alignment) if s is not None)
    matrix = np.zeros((tq, tk), dtype=bool)
    for q, keys in pairs:
        for k in keys:
            if 0 <= q < tq and 0 <= k < tk:
                matrix[q, k] = True
    return matrix


@dataclass(frozen=True)
class HeadScores:
    """A layer × head table of detector scores for one attention stack.

    Attributes:
        names: the score names present, a subsequence of `SCORE_NAMES`.
        scores: (S, L, H) float64, NaN where a score does not apply.
    """

    names: tuple[str, ...]
    scores: np.ndarray

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

    def only(self, names: tuple[str, ...]) -> HeadScores:
        """The scores among `names` (in this table's order); e.g. `CROSS_SCORE_NAMES` for cross-attention."""
        kept = [i for i, name in enumerate(self.names) if name in names]
        return HeadScores(tuple(self.names[i] for i in kept), self.scores[kept])


def head_scores(patterns: np.ndarray, tokens: Sequence[int] | None = None, alignment: np.ndarray | None = None) -> HeadScores:
    """Every score that applies to this stack's patterns (L, H, Tq, Tk).

    Token scores (induction, duplicate) need `tokens` (query and key sequences must be the same: a
    self-attention stack); source_alignment needs `alignment` (Tq, Tk).
    """
    p = _check(patterns, stack=True)
    found: dict[str, np.ndarray] = {
        PREVIOUS_TOKEN: previous_token_score(p),
        FIRST_TOKEN: first_token_score(p),
        DIAGONAL: diagonal_score(p),
        ANTI_DIAGONAL: anti_diagonal_score(p),
    }
    if tokens is not None:
        if len(tokens) != p.shape[2] or p.shape[2] != p.shape[3]:
            raise ValueError(f"token scores need a self-attention pattern over the {len(tokens)} tokens, got {p.shape[2:]}")
        found[INDUCTION] = induction_score(p, tokens)
        found[DUPLICATE_TOKEN] = duplicate_token_score(p, tokens)
    if alignment is not None:
        found[SOURCE_ALIGNMENT] = source_alignment_score(p, alignment)
    names = tuple(n for n in SCORE_NAMES if n in found)
    return HeadScores(names, np.stack([found[n] for n in names]))
