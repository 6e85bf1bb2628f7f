"""The numbers behind the Attention-heads page: which layers the grids show, their figures, per-head
statistics and rollout. The page (views/heads.py) caches these per run; benchmarks/heads_rerun.py
calls the same functions, so the benchmark measures what the page does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from hook_names import parse_head_label
from runs.reference import model_task
from transformer.engine.precision import widen_into
from transformer.probes.head_scores import SUMMARY_SCORE_NAMES, HeadScores, head_scores, names_for
from transformer.probes.importance import HeadImportance, HeadScore
from transformer.storage.checkpoint import ModelBundle
from transformer.tasks.base import Example
from viz import payload
from viz.alignment import Alignment
from viz.head_grid import GridText, grid_figure, grid_geometry
from viz.heatmap import matrix_bytes
from viz.payload import LayerPages, plan_layers
from viz.rollout import rollout
from viz.tokens import TokenAxis, attention_axes
from viz.trace import TraceData


@dataclass(frozen=True)
class GridMarks:
    """Per-head importance of the layers a grid shows, as nested tuples (hashable), or nothing."""

    importance: tuple[tuple[float, ...], ...] | None = None

    @classmethod
    def of(cls, changed: np.ndarray | None) -> GridMarks:
        return cls(None if changed is None else tuple(tuple(float(v) for v in row) for row in changed))

    def array(self, layers: range) -> np.ndarray | None:
        return None if self.importance is None else np.asarray(self.importance, dtype=np.float32)[layers.start : layers.stop]


NO_MARKS = GridMarks()


def axes_of(trace: TraceData, kind: str) -> tuple[TokenAxis, TokenAxis]:
    """(query axis, key axis) of `kind`: decoder rows named by the token they write (viz.tokens)."""
    raw = (trace.src_hex, trace.tgt_hex, trace.next_hex)
    return attention_axes(kind, trace.src_tokens, trace.tgt_tokens, trace.next_tokens, raw)


def right_output_alignment(bundle: ModelBundle, trace: TraceData) -> tuple[Example, tuple[int | None, ...]] | None:
    """The task's example for this run's text and its alignment, when the model wrote exactly the task's right
    output (row i writes output token i, so only then do the rows write the words the alignment names); None for
    models without a task, texts outside the grammar, inputs with unknown symbols, teacher-forced runs and wrong
    outputs."""
    task = model_task(bundle)
    if task is None or trace.unknown or trace.teacher_forced or not trace.text.strip():
        return None
    example = task.reference(trace.text)
    if example is None or example.alignment is None:
        return None
    expected = bundle.target_tokenizer.tokenize(example.target)
    if list(trace.output_tokens) != list(expected) or len(expected) != len(example.alignment):
        return None
    return example, tuple(example.alignment)


def aligned_within(alignment: tuple[int | None, ...], n_sources: int) -> bool:
    """Whether every aligned source index names one of `n_sources` positions."""
    return all(a is None or 0 <= a < n_sources for a in alignment)


def gold_alignment(bundle: ModelBundle, trace: TraceData) -> tuple[int | None, ...] | None:
    """The task's word alignment for this run's decoder rows (`right_output_alignment`), or None when there is
    none to show or it names a source position the encoder does not have."""
    found = right_output_alignment(bundle, trace)
    if found is None or not aligned_within(found[1], len(trace.src_tokens)):
        return None
    return found[1]


# The heads a model's card names, in the order the page prefers them: (key under card["attention"], kind, why).
# A translator's cross-attention alignment head; the induction model's induction head; the GPT translator's
# prompt-reading head (cross-attention's job, done by self-attention over the prompt).
CARD_HEADS: tuple[tuple[str, str, str], ...] = (
    ("best_cross_attention_head", "cross", "alignment"),
    ("induction_head", "decoder", "induction"),
    ("best_prompt_attention_head", "decoder", "prompt"),
)
FIRST = "first"  # the reason of the fallback opening: layer 0 head 0, chosen for no reason


@dataclass(frozen=True)
class Opening:
    """The head the page opens on and why: `reason` is a `CARD_HEADS` why, "important" or `FIRST`.

    `score` is the number behind the reason (alignment match or induction score, from the card or the
    importance table); `row` the head's row of the importance table, when there is one."""

    kind: str
    layer: int
    head: int
    reason: str
    score: float | None = None
    row: HeadScore | None = None

    @property
    def key(self) -> tuple[str, int, int]:
        return self.kind, self.layer, self.head


def card_head(bundle: ModelBundle, key: str, kind: str) -> tuple[int, int] | None:
    """(layer, head) of the card's `attention[key]` ("decoder.layers.1.cross_attn head 3") if it is a head of `kind`."""
    named = bundle.card.get("attention", {}).get(key) if isinstance(bundle.card, dict) else None
    if not isinstance(named, str):
        return None
    try:
        label = parse_head_label(named)
    except ValueError:
        return None
    return (label.layer, label.head) if label.kind == kind else None


def card_alignment_head(bundle: ModelBundle) -> tuple[int, int] | None:
    """(layer, head) of the card's `attention.best_cross_attention_head` ("decoder.layers.1.cross_attn head 3")."""
    return card_head(bundle, "best_cross_attention_head", "cross")


def card_alignment_score(bundle: ModelBundle) -> float | None:
    """The card's alignment match of its alignment head (the number the page opens on; None without one)."""
    return _card_score(bundle, "alignment")


def _card_score(bundle: ModelBundle, reason: str) -> float | None:
    """The card's number for its named head: the alignment match (both translators' heads) or the induction score."""
    card = bundle.card if isinstance(bundle.card, dict) else {}
    value = (
        card.get("metrics", {}).get("induction_score")
        if reason == "induction"
        else card.get("attention", {}).get("alignment_argmax_match")
    )
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _row(table: HeadImportance | None, kind: str, layer: int, head: int) -> HeadScore | None:
    try:
        return None if table is None else table.score(kind, layer, head)
    except KeyError:
        return None


def opening(bundle: ModelBundle, kinds: Sequence[str], table: HeadImportance | None) -> Opening:
    """The head the page opens on, and why: the head the card names (a translator's alignment head on
    cross-attention, the induction head, the GPT translator's prompt-reading head), else a translator's
    best aligner from the table, else the most important head, else the first kind's layer 0 head 0."""
    if model_task(bundle) is not None:
        for key, kind, reason in CARD_HEADS:
            if kind in kinds and (named := card_head(bundle, key, kind)) is not None:
                return Opening(kind, *named, reason, _card_score(bundle, reason), _row(table, kind, *named))
        if "cross" in kinds and table is not None and (best := table.alignment_head()) is not None and best.kind == "cross":
            return Opening("cross", best.layer, best.head, "alignment", best.alignment, best)
    if table is not None and (important := [s for s in table.important() if s.kind in kinds]):
        return Opening(important[0].kind, important[0].layer, important[0].head, "important", row=important[0])
    return Opening(kinds[0], 0, 0, FIRST)


def opening_head(bundle: ModelBundle, kinds: Sequence[str], table: HeadImportance | None) -> tuple[str, int, int]:
    """(kind, layer, head) of `opening`."""
    return opening(bundle, kinds, table).key


def plan_grids(trace: TraceData, kinds: list[str], budget: float | None = None) -> LayerPages:
    """How many layers of every kind's grid one rerun can show within the figure-bytes budget.

    The enlarged head and the rollout (`viz.heatmap.matrix_bytes`) are reserved first; the grids share the rest,
    but never less than a quarter of the budget. `budget` defaults to `viz.payload.DEFAULT_BUDGET`
    read at call time (a test lowers it to see paging).
    """
    budget = payload.DEFAULT_BUDGET if budget is None else budget
    shapes = {kind: trace.pattern(kind, 0).shape for kind in kinds}  # kind → (H, Tq, Tk)
    geometries = {kind: grid_geometry(1, *shape) for kind, shape in shapes.items()}
    cells = sum(shapes[k][0] * g.tq * g.tk for k, g in geometries.items())
    longest = max(max(shape[1:]) for shape in shapes.values())
    reserve = 2 * matrix_bytes(longest, longest)  # the enlarged head and the rollout
    return plan_layers(max(trace.n_layers(k) for k in kinds), cells, max(budget - reserve, budget / 4))


def kind_grid(
    trace: TraceData,
    kind: str,
    layers: range,
    min_stride: int,
    text: GridText = GridText(),
    *,
    stretch: bool = False,
    marks: GridMarks = GridMarks(),
) -> go.Figure:
    """The layer × head grid of attention `kind` for `layers` (one page of the plan).

    Tile hovers list where the first rows look, decoder rows named by what they write;
    `marks` outline the heads whose removal changes the output; `stretch` scales each tile to its peak.
    """
    queries, keys = axes_of(trace, kind)
    return grid_figure(
        [trace.pattern(kind, layer) for layer in layers],  # only the page's layers, unstacked: L' × (H, Tq, Tk)
        first_layer=layers.start,
        min_stride=min_stride,
        text=text,
        stretch=stretch,
        importance=marks.array(layers),
        query_axis=queries,
        key_axis=keys,
    )


def grid_stride(trace: TraceData, kind: str, min_stride: int) -> int:
    """How many positions a grid cell of `kind` pools (1: every cell shown)."""
    return grid_geometry(1, *trace.pattern(kind, 0).shape, min_stride=min_stride).stride


def head_summary(trace: TraceData, kind: str, alignment: Alignment | None = None) -> HeadScores:
    """The summary table's scores (`SUMMARY_SCORE_NAMES`) of every layer of `kind` on this run: the index
    scores for self-attention; for cross-attention entropy, first token and (given the gold `alignment`, which
    the page outlines on cross-attention only) the alignment score."""
    layers = [trace.pattern(kind, layer) for layer in range(trace.n_layers(kind))]  # views: scored layer by layer
    names = names_for(SUMMARY_SCORE_NAMES, kind)
    return head_scores(layers, alignment=alignment if kind == "cross" else None, names=names)


def metric_zmax(summary: HeadScores, metric: str) -> float | None:
    """The top of a statistic's colour scale: log2(Tk) for entropy, free for distance, else 1."""
    return summary.max_entropy if metric == "entropy" else None if metric == "distance" else 1.0


def self_attention_kinds(kinds: list[str]) -> list[str]:
    """The kinds rollout applies to: self-attention only (cross-attention mixes two sequences)."""
    return [k for k in kinds if k != "cross"]


def rollout_of(trace: TraceData, kind: str) -> np.ndarray:
    """(L, T, T) attention rollout of self-attention `kind`: what each position has read after each layer."""
    layers = [trace.pattern(kind, layer) for layer in range(trace.n_layers(kind))]  # views, averaged layer by layer
    return rollout(layers, widen=widen_into)  # a bfloat16 run's float16 weights widened through PyTorch
