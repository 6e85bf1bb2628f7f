"""Everything the Attention-heads page (views/heads.py) draws, from one call: `heads_page(bundle, trace, table)`.

The page, benchmarks/heads_rerun.py and the tests read the same `HeadsPage`, so the benchmark measures
what the page does. What does not depend on the picked head is computed once here (kinds, the grid plan
within the byte budget, the gold alignment, the opening head, the grid's importance marks); what takes
seconds on long inputs and depends on a choice (a kind's grid figure, per-head statistics, rollout) comes
from `runs.heads`, cached per run and choice by `ui.caches` (`get_grid_figure`, `get_head_summary`,
`get_rollout`), so picking another head reruns none of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from runs.head_importance import kind_importance
from runs.heads import FIRST, GridMarks, Opening, axes_of, gold_alignment, grid_stride, opening, plan_grids, self_attention_kinds
from runs.model_ref import is_untrained
from runs.text_run import attention_names
from transformer.probes.head_scores import ALIGNMENT, HeadScores
from transformer.probes.importance import HeadImportance
from transformer.storage.checkpoint import ModelBundle
from viz.payload import LayerPages
from viz.tokens import TokenAxis
from viz.trace import TraceData


@dataclass(frozen=True)
class HeadsPage:
    """The heads page's run: the trace and every choice-independent number the page shows."""

    trace: TraceData
    names: tuple[str, ...]  # the hooks recorded (the attention patterns), also what the download holds
    kinds: tuple[str, ...]  # attention kinds the model has ("encoder", "decoder", "cross"), empty without attention
    shapes: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind → (layers, heads)
    opened: Opening = field(default_factory=lambda: Opening("encoder", 0, 0, FIRST))  # the most telling head, why, its numbers
    alignment: tuple[int | None, ...] | None = None  # the task's gold word alignment of the decoder rows
    untrained: bool = False
    plan: LayerPages | None = None  # how many layers the grids show at once within the figure-bytes budget
    marks: dict[str, GridMarks] = field(default_factory=dict)  # kind → share of outputs each head changes

    @property
    def self_kinds(self) -> list[str]:
        """The kinds rollout applies to (self-attention only)."""
        return self_attention_kinds(list(self.kinds))

    @property
    def opening(self) -> tuple[str, int, int]:
        """(kind, layer, head) the page opens on."""
        return self.opened.key

    @property
    def opened_for_a_reason(self) -> bool:
        """The opening head was chosen (named by the card, aligned, or important), not the first-head fallback."""
        return self.opened.reason != FIRST

    def axes(self, kind: str) -> tuple[TokenAxis, TokenAxis]:
        """(query axis, key axis) of `kind`: decoder rows named by the token they write."""
        return axes_of(self.trace, kind)

    def head(self, kind: str, layer: int, head: int) -> np.ndarray:
        """One head's attention weights (Tq, Tk)."""
        return self.trace.pattern(kind, layer)[head]

    def stride(self, kind: str) -> int:
        """How many positions a grid cell of `kind` pools (1: every cell shown)."""
        return grid_stride(self.trace, kind, self.plan.extra_stride if self.plan else 1)

    def outline(self, kind: str) -> tuple[int | None, ...] | None:
        """The gold alignment to outline on `kind`'s heads (cross-attention only)."""
        return self.alignment if kind == "cross" else None


def heads_page(bundle: ModelBundle, trace: TraceData, table: HeadImportance | None) -> HeadsPage:
    """The page's numbers for `trace` (a run of `bundle` recording `attention_names(bundle)`);
    `table` is the model's head-importance table (stored, or measured in the session), or None."""
    names = attention_names(bundle)
    kinds = tuple(trace.kinds())
    if not kinds:
        return HeadsPage(trace=trace, names=names, kinds=(), untrained=is_untrained(bundle))
    shapes = {k: (trace.n_layers(k), trace.pattern(k, 0).shape[0]) for k in kinds}
    marks = {} if table is None else {k: GridMarks.of(kind_importance(table, k, *shapes[k]).changed) for k in kinds}
    return HeadsPage(
        trace=trace,
        names=names,
        kinds=kinds,
        shapes=shapes,
        opened=opening(bundle, list(kinds), table),
        alignment=gold_alignment(bundle, trace),
        untrained=is_untrained(bundle),
        plan=plan_grids(trace, list(kinds)),
        marks=marks,
    )


def default_metric(summary: HeadScores) -> str:
    """The statistic the metric picture starts on: the alignment score when there is one, else the first."""
    return ALIGNMENT if ALIGNMENT in summary.names else summary.names[0]
