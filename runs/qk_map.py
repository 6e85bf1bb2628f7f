"""The map of queries and keys: one head's query and key vectors over many sentences, projected to 2-D together.

AttentionViz's idea (Yeh et al., 2023): put every query and every key of a head in one picture, so the tokens a
head brings together (a query near the keys it scores high) show across sentences at once. Projection: PCA of
the queries and keys stacked (centred on their joint mean, the two directions of largest variance: an SVD, so
the coordinates are exactly `(vector − mean) · component`, recomputable by anyone). Queries and keys are
projected together, so their places relate: a query's dot product with a key is what the head scores.

The user's own sentence is added last and marked (`user`). Pure NumPy on `transformer.probes.qk_vectors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from transformer.probes.qk_vectors import HeadVectors, head_vectors
from transformer.storage.checkpoint import ModelBundle

PCA = "pca"
METHODS = (PCA,)  # the projections the page offers (named on the page)


@dataclass(frozen=True)
class Projection:
    """A 2-D projection of row vectors: coordinates = (vectors − mean) @ components.T."""

    mean: np.ndarray  # (d,)
    components: np.ndarray  # (2, d), orthonormal rows
    explained: tuple[float, float]  # share of the variance along each component

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        """(n, d) → (n, 2)."""
        return (np.asarray(vectors, dtype=np.float64) - self.mean) @ self.components.T


def pca(vectors: np.ndarray) -> Projection:
    """The two principal directions of `vectors` (n, d); a direction's sign is fixed so its largest entry is positive
    (an SVD may return either sign: the same data always gives the same picture)."""
    x = np.asarray(vectors, dtype=np.float64)
    mean = x.mean(axis=0)
    _, s, vt = np.linalg.svd(x - mean, full_matrices=False)
    components = np.zeros((2, x.shape[1]))
    k = min(2, vt.shape[0])
    components[:k] = vt[:k]
    for row in components:
        if row.any() and row[np.argmax(np.abs(row))] < 0:
            row *= -1
    variance = s**2
    total = float(variance.sum()) or 1.0
    explained = tuple(float(variance[i] / total) if i < len(variance) else 0.0 for i in range(2))
    return Projection(mean, components, explained)  # type: ignore[arg-type]


@dataclass(frozen=True)
class QKMap:
    """Every query and key of one head over a sentence set, in 2-D.

    Points are the queries then the keys: `xy` (n, 2), `is_query` (n,), `tokens`, `sentence` (index into `texts`),
    `position` in that sentence, `user` (n,) True for the user's own sentence's points.
    """

    kind: str
    layer: int
    head: int
    method: str
    texts: tuple[str, ...]
    xy: np.ndarray
    is_query: np.ndarray
    tokens: tuple[str, ...]
    sentence: np.ndarray
    position: np.ndarray
    user: np.ndarray
    projection: Projection
    user_index: int | None  # the user's sentence's index in `texts`, if one was given
    hex: tuple[str, ...] = ()  # each point's token's raw bytes ("e4 bd"; "" where its label is the text), for the hover

    @property
    def n_points(self) -> int:
        return len(self.tokens)


def project_vectors(vectors: HeadVectors, kind: str, layer: int, head: int, user_index: int | None) -> QKMap:
    """`vectors` (queries then keys) projected together by PCA."""
    stacked = np.concatenate([vectors.queries, vectors.keys])  # (Nq + Nk, d_k)
    projection = pca(stacked)
    sentence = np.concatenate([vectors.query_sentence, vectors.key_sentence])
    return QKMap(
        kind=kind,
        layer=layer,
        head=head,
        method=PCA,
        texts=vectors.texts,
        xy=projection.apply(stacked),
        is_query=np.r_[np.ones(len(vectors.queries), bool), np.zeros(len(vectors.keys), bool)],
        tokens=vectors.query_tokens + vectors.key_tokens,
        sentence=sentence,
        position=np.concatenate([vectors.query_position, vectors.key_position]),
        user=sentence == user_index if user_index is not None else np.zeros(len(sentence), bool),
        projection=projection,
        user_index=user_index,
        hex=vectors.query_hex + vectors.key_hex,
    )


def qk_map(
    bundle: ModelBundle,
    texts: Sequence[str],
    kind: str,
    layer: int,
    head: int,
    *,
    user_text: str | None = None,
    generate: bool = True,
) -> QKMap:
    """Head (`kind`, `layer`, `head`, 0-based)'s queries and keys over `texts` (+ `user_text`, marked), in 2-D."""
    chosen = list(texts)
    user_index = None
    if user_text and user_text.strip():
        chosen.append(user_text.strip())
        user_index = len(chosen) - 1
    return project_vectors(head_vectors(bundle, chosen, kind, layer, head, generate=generate), kind, layer, head, user_index)
