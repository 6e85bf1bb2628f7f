"""A translator's gold word alignment, as the heatmap outlines it.

The tasks know which source word each target word translates (`alignment[j]` = source index, or
None for a target token with no single source word, such as <eos> or a measure word). Decoder row
i writes target token i, so row i of cross-attention should look at source `alignment[i]`: that
is the cell the heatmap outlines. How well a head follows it (the alignment score) is
`transformer.probes.head_scores.alignment_score`, computed in the run layer.
"""

from __future__ import annotations

from collections.abc import Sequence

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
