"""Everything the step-by-step page (views/step_by_step.py) draws for one head and one query.

Two phases, because the query picker's options (the rows of the chosen attention, decoder rows named
by the token they write) come from the run: `step_run` runs the text for one attention module, then
`step_page` builds the chosen query's view-models from it. The √d_k experiment does not read the run
(`viz.scaling.scaling_demo`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from runs.heads import axes_of
from runs.teaching_arrays import output_projection
from transformer.storage.checkpoint import ModelBundle
from viz.multihead import MultiHeadView, build_multihead_view
from viz.step_by_step import MAX_KEYS, StepView, build_step_view
from viz.tokens import TokenAxis
from viz.trace import TraceData


@dataclass(frozen=True)
class StepRun:
    """One run of the text recording one attention module (`viz.step_by_step.step_hook_names`), and its W^O."""

    trace: TraceData
    kind: str
    layer: int
    queries: TokenAxis  # the module's query rows: the query picker's options
    keys: TokenAxis
    w_o: np.ndarray  # (d_model, H·d_k)
    b_o: np.ndarray  # (d_model,)


@dataclass(frozen=True)
class StepPage:
    """One query of one head: the three steps, and the path from the heads' outputs through W^O."""

    run: StepRun
    steps: StepView
    multihead: MultiHeadView

    @property
    def no_rows(self) -> bool:
        """No key may be read and no weight sits outside the shown window: the softmax row is empty."""
        return not bool(self.steps.allowed.any()) and self.steps.hidden_weight == 0.0


def step_run(bundle: ModelBundle, trace: TraceData, kind: str, layer: int) -> StepRun:
    """`trace` (a run of `bundle` recording `step_hook_names(kind, layer)`) with its query axis and W^O."""
    queries, keys = axes_of(trace, kind)
    w_o, b_o = output_projection(bundle, kind, layer)
    return StepRun(trace=trace, kind=kind, layer=layer, queries=queries, keys=keys, w_o=w_o, b_o=b_o)


def step_page(run: StepRun, head: int, query: int, max_keys: int = MAX_KEYS) -> StepPage:
    """The view-models of query row `query` of head `head` (the steps, over at most `max_keys` keys: fewer on a
    projector's first screen) and of every head (W^O)."""
    arrays = run.trace.arrays
    return StepPage(
        run=run,
        steps=build_step_view(arrays, run.kind, run.layer, head, query, run.queries, run.keys, max_keys=max_keys),
        multihead=build_multihead_view(arrays, run.kind, run.layer, query, run.queries, run.w_o, run.b_o),
    )
