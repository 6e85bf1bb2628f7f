"""Keeping one rerun's figures within a byte budget: page through layers, pool as a last resort.

Every figure a page draws travels to the browser as JSON on every rerun. The head grids are the
big ones, so before drawing them the page asks for a plan: how many layers fit at once, and
whether even one layer needs coarser cells. The estimate is a worst case (incompressible uint8
cells), so a plan never underestimates what is sent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

GRID_BYTES_PER_CELL = 1.45  # uint8 as base64 in plotly JSON ("/" escaped); a palette PNG never does worse
EXACT_BYTES_PER_CELL = 5.6  # float32 z as base64: the single enlarged head and rollout
DEFAULT_BUDGET = 8_000_000  # bytes of figure JSON per rerun


@dataclass(frozen=True)
class LayerPages:
    """Which layers to draw at once; `extra_stride` > 1 means cells are pooled to fit even one layer."""

    n_layers: int
    per_page: int
    extra_stride: int = 1

    @property
    def n_pages(self) -> int:
        return -(-self.n_layers // self.per_page)

    @property
    def paged(self) -> bool:
        return self.per_page < self.n_layers

    def layers(self, page: int) -> range:
        """The layers on `page` (clamped to the last page, so a stale URL value still works)."""
        page = min(max(page, 0), self.n_pages - 1)
        return range(page * self.per_page, min(self.n_layers, (page + 1) * self.per_page))


def grid_bytes(cells: int) -> float:
    """Worst-case JSON bytes of `cells` grid cells."""
    return cells * GRID_BYTES_PER_CELL


def plan_layers(n_layers: int, cells_per_layer: int, budget: float = DEFAULT_BUDGET) -> LayerPages:
    """Fit `n_layers` layers of `cells_per_layer` cells (all kinds, all heads) into `budget` bytes."""
    if n_layers <= 0 or cells_per_layer <= 0:
        return LayerPages(max(n_layers, 1), max(n_layers, 1))
    budget = max(budget, 1.0)  # whatever the caller reserved elsewhere, one pooled layer is always drawn
    per_layer = grid_bytes(cells_per_layer)
    per_page = int(budget // per_layer)
    if per_page >= 1:
        return LayerPages(n_layers, min(per_page, n_layers))
    return LayerPages(n_layers, 1, extra_stride=math.ceil(math.sqrt(per_layer / budget)))
