"""A translator's gold word alignment, and how well a cross-attention head follows it.

The tasks know which source word each target word translates (`alignment[j]` = source index, or
None for a target token with no single source word, such as <eos> or a measure word). Decoder row
i writes target token i, so row i of cross-attention should look at source `alignment[i]`: that
is the cell the heatmap outlines, and a head's alignment score is the share of aligned rows whose
largest weight falls on it (1 = the head is a word aligner, about 1/Tk = chance).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Alignment = Sequence[int | None]
"""alignment[i] = the source position target token i (= decoder row i) translates, or None."""


def aligned_cells(alignment: Alignment, tq: int, tk: int) -> list[tuple[int, int]]:
    """(row, source key) of every aligned row among the first `tq` rows.

    Rows past the alignment's end (the row that writes <eos>, say) are unaligned; a source index
    outside 0..tk-1 means the alignment belongs to another sentence, so it raises.
    """
    cells = []
    for row, key in enumerate(list(alignment)[:tq]):
        if key is None:
            continue
        if not 0 <= int(key) < tk:
            raise ValueError(f"alignment row {row} points at source position {key}, outside 0..{tk - 1}")
        cells.append((row, int(key)))
    return cells


def alignment_score(patterns: np.ndarray, alignment: Alignment) -> np.ndarray:
    """Share of aligned rows whose arg-max key is the gold source position.

    Args:
        patterns: (..., Tq, Tk) cross-attention weights, e.g. (L, H, Tq, Tk).
        alignment: gold source position per decoder row (None = not aligned).
    Returns:
        (...) float32 scores in [0, 1]; NaN where no row is aligned.
    """
    patterns = np.asarray(patterns)
    tq, tk = patterns.shape[-2:]
    cells = aligned_cells(alignment, tq, tk)
    if not cells:
        return np.full(patterns.shape[:-2], np.nan, dtype=np.float32)
    rows, keys = (np.array(c) for c in zip(*cells, strict=True))
    peaks = patterns[..., rows, :].argmax(axis=-1)  # (..., n_aligned)
    return (peaks == keys).mean(axis=-1).astype(np.float32)


def best_aligned_head(scores: np.ndarray) -> tuple[int, int] | None:
    """(layer, head) with the highest alignment score (the head a translator's page opens on), or None if all NaN."""
    scores = np.asarray(scores, dtype=np.float64)  # (L, H)
    if np.isnan(scores).all():
        return None
    layer, head = np.unravel_index(int(np.nanargmax(scores)), scores.shape)
    return int(layer), int(head)
