"""The numbers behind the Attention-heads page: which layers the grids show, their figures, per-head
statistics and rollout. The page (views/heads.py) caches these per run; benchmarks/heads_rerun.py
calls the same functions, so the benchmark measures what the page does.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz import payload
from viz.head_grid import grid_figure, grid_geometry
from viz.head_summary import HeadSummary, summarize
from viz.payload import EXACT_BYTES_PER_CELL, LayerPages, plan_layers
from viz.rollout import rollout
from viz.trace import TraceData


def plan_grids(trace: TraceData, kinds: list[str], budget: float | None = None) -> LayerPages:
    """How many layers of every kind's grid one rerun can show within the figure-bytes budget.

    The enlarged head and the rollout (exact values) are reserved first; the grids share the rest,
    but never less than a quarter of the budget. `budget` defaults to `viz.payload.DEFAULT_BUDGET`
    read at call time (a test lowers it to see paging).
    """
    budget = payload.DEFAULT_BUDGET if budget is None else budget
    shapes = {kind: trace.pattern(kind, 0).shape for kind in kinds}  # kind → (H, Tq, Tk)
    geometries = {kind: grid_geometry(1, *shape) for kind, shape in shapes.items()}
    cells = sum(shapes[k][0] * g.tq * g.tk for k, g in geometries.items())
    longest = max(max(shape[1:]) for shape in shapes.values())
    reserve = 2 * longest**2 * EXACT_BYTES_PER_CELL  # the enlarged head and the rollout
    return plan_layers(max(trace.n_layers(k) for k in kinds), cells, max(budget - reserve, budget / 4))


def kind_grid(trace: TraceData, kind: str, layers: range, min_stride: int, tile_label: str, hover: str) -> go.Figure:
    """The layer × head grid of attention `kind` for `layers` (one page of the plan)."""
    return grid_figure(trace.patterns(kind)[layers.start : layers.stop], first_layer=layers.start, min_stride=min_stride,
                       tile_label=tile_label, hover=hover)


def grid_stride(trace: TraceData, kind: str, min_stride: int) -> int:
    """How many positions a grid cell of `kind` pools (1: every cell shown)."""
    return grid_geometry(1, *trace.pattern(kind, 0).shape, min_stride=min_stride).stride


def head_summary(trace: TraceData, kind: str) -> HeadSummary:
    """Per-head statistics (entropy, previous-token, ...) of every layer of `kind`."""
    return summarize(trace.patterns(kind))


def metric_zmax(summary: HeadSummary, metric: str) -> float | None:
    """The top of a statistic's colour scale: log2(Tk) for entropy, free for distance, else 1."""
    return summary.max_entropy if metric == "entropy" else None if metric == "distance" else 1.0


def self_attention_kinds(kinds: list[str]) -> list[str]:
    """The kinds rollout applies to: self-attention only (cross-attention mixes two sequences)."""
    return [k for k in kinds if k != "cross"]


def rollout_of(trace: TraceData, kind: str) -> np.ndarray:
    """(L, T, T) attention rollout of self-attention `kind`: what each position has read after each layer."""
    return rollout(trace.patterns(kind))
