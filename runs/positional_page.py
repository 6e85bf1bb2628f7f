"""Everything the Positional-encoding page (views/positional.py) draws, one call per section.

- `sinusoids`: the paper's table at the chosen size, how it is thinned for drawing, and the
  positions' dot products; `relative` the rotation check at offset k (its slider sits under the
  table's figures, so it is its own call);
- `learned_options` / `learned`: which models have a learned table, and one of them beside the
  sinusoids of the same size;
- `tokens`: the user's tokens before and after the position is added (one pass of the stack that
  reads the text, from the cached padded batch).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from runs.model_ref import ModelRef
from runs.teaching_arrays import (
    RANDOM_D_MODELS,
    embedding_names,
    models_with_learned_positions,
    position_table,
    sinusoid_table,
    stack_reading_text,
)
from transformer.storage.checkpoint import ModelBundle
from viz.batchnorm_contrast import PaddedBatch
from viz.embedding_scale import EmbeddingScale
from viz.positional import position_stride, similarity, square_stride
from viz.relative_position import RelativeCheck

LEARNED_POSITIONS_SHOWN = 64  # rows of a learned table shown beside the sinusoids


@dataclass(frozen=True)
class SinusoidView:
    """The sinusoid table of `max_pos` positions × `d_model` dimensions and what the page derives from it."""

    d_model: int
    max_pos: int
    pe: np.ndarray  # (P, d_model)
    stride: int  # every k-th position drawn in the table heatmap
    similarity: np.ndarray  # (P, P) PE(p)·PE(q)
    sim_stride: int  # every k-th row and column drawn in the similarity heatmap


@dataclass(frozen=True)
class LearnedView:
    """The first rows of a learned position table and the sinusoids of the same size."""

    table: np.ndarray  # (n, d_model)
    sinusoid: np.ndarray  # (n, d_model)


@dataclass(frozen=True)
class TokensView:
    """The user's tokens: scaled embeddings, positional encoding, their sum, and their norms."""

    stack: str  # the stack that reads the text
    scale: EmbeddingScale
    has_positions: bool  # False for a model without positional encoding


def sinusoids(d_model: int, max_pos: int) -> SinusoidView:
    pe = sinusoid_table(max_pos, d_model)  # (P, d_model)
    return SinusoidView(d_model, max_pos, pe, position_stride(max_pos, d_model), similarity(pe), square_stride(max_pos))


def relative(d_model: int, max_pos: int, k: int) -> RelativeCheck:
    """The closed-form rotation and the least-squares map from PE(pos) to PE(pos+k), and their errors."""
    return RelativeCheck.compute(sinusoid_table(max_pos, d_model), k)


def learned_options(model_key: str, bundle: ModelBundle) -> list[str]:
    """Model keys with a learned position table: the current model if it has one, the shipped ones,
    and a random learned model of the current width."""
    config = bundle.config
    options = ([model_key] if config.positional == "learned" else []) + models_with_learned_positions()
    width = config.d_model if config.d_model in RANDOM_D_MODELS else 64
    random_learned = ModelRef.random(positional="learned", d_model=width).key
    return list(dict.fromkeys([*options, random_learned]))


def learned(bundle: ModelBundle) -> LearnedView | None:
    """The first `LEARNED_POSITIONS_SHOWN` rows of `bundle`'s learned table (None if it has none)."""
    table = position_table(bundle, stack_reading_text(bundle)[0])
    if table is None:
        return None
    n = min(LEARNED_POSITIONS_SHOWN, table.shape[0])
    return LearnedView(table=table[:n], sinusoid=sinusoid_table(n, table.shape[1]))


def token_names(bundle: ModelBundle) -> tuple[str, str, str]:
    """What `tokens` reads: the scaled token embeddings, the positional encoding and their sum."""
    return embedding_names(stack_reading_text(bundle)[0])


def tokens(bundle: ModelBundle, batch: Mapping[str, PaddedBatch]) -> TokensView:
    """From `batch`, the padded batch of the text recording `token_names(bundle)`."""
    stack = stack_reading_text(bundle)[0]
    names = embedding_names(stack)
    scale = EmbeddingScale.from_arrays(
        {name: b.values for name, b in batch.items()}, stack, batch[names[0]].tokens[0], *batch[names[0]].raw[:1]
    )
    return TokensView(stack=stack, scale=scale, has_positions=bundle.config.positional != "none")
