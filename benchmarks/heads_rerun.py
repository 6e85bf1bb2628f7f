"""One rerun of the heads page (views/heads.py) as direct calls, split into stages, plus its inputs.

The page's numbers come from one call into the run layer, `runs.heads_page.heads_page` (the grid
plan within the byte budget, the opening head, the gold alignment), plus the per-run parts of
`runs.heads` (grids, per-head statistics, rollout). This script makes the same calls, in the page's
order: grids of every kind, the enlarged head, the per-head metric picture, and the rollout; grids,
statistics and rollout are cached per run, as the page does (`ui.caches`).
Serialization is what `st.plotly_chart` does to each figure: `fig.to_dict()`
(plotly.tools.return_figure_from_figure_or_data), `plotly.io.to_json(..., validate=False)`, the md5
of the spec for the element id, and the protobuf bytes that go on the wire.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass, field

import plotly.graph_objects as go
import plotly.io
import torch
from streamlit.proto.PlotlyChart_pb2 import PlotlyChart

from runs.heads import head_summary, kind_grid, metric_zmax, rollout_of
from runs.heads_page import default_metric, heads_page
from runs.text_run import attention_names
from transformer.hooks import capture
from transformer.storage.checkpoint import ModelBundle
from transformer.text.reading import reader as text_reader
from transformer.text.rows import decoder_row, source_row
from transformer.text.tokenizer import SPECIALS
from viz.head_grid import GridText, grid_geometry
from viz.head_summary import MetricText, metric_figure
from viz.heatmap import HeatmapText, head_figure, matrix_figure
from viz.trace import TraceData


def pattern_names(bundle: ModelBundle) -> tuple[str, ...]:
    """What the heads page records: `runs.text_run.attention_names`."""
    return attention_names(bundle)


def square_trace(bundle: ModelBundle, length: int, seed: int = 0) -> TraceData:
    """A teacher-forced run with T = `length` tokens on both sides (source ends with <eos>, target
    starts with <bos>), capturing what the heads page captures. No greedy decoding: its cost
    depends on how long the model keeps talking, which server_time measures separately."""
    reader = text_reader(bundle)
    rng = random.Random(seed)
    known = list(range(len(SPECIALS), len(reader)))  # the ordinary symbols, after <pad> <bos> <eos> <unk>
    src_ids = source_row([rng.choice(known) for _ in range(length - 1)])
    tgt_ids = decoder_row([rng.choice(range(len(SPECIALS), len(bundle.target_tokenizer))) for _ in range(length - 1)])
    model = bundle.model
    src = torch.tensor([src_ids]) if bundle.config.is_encoder_decoder else None  # (1, T)
    tgt = torch.tensor([tgt_ids])  # (1, T)
    with torch.no_grad(), capture(model, pattern_names(bundle)) as cache:
        logits = model(src, tgt)  # (1, T, vocab)
    arrays = cache.numpy()
    for array in arrays.values():
        array.setflags(write=False)
    target = bundle.target_tokenizer
    return TraceData(
        text="",
        src_tokens=tuple(reader.symbols(src_ids)) if src is not None else (),
        tgt_tokens=tuple(target.symbols(tgt_ids)),
        output_tokens=(),
        output_text="",
        arrays=arrays,
        next_tokens=tuple(target.symbols(logits[0].argmax(dim=-1).tolist())),  # what each row writes
        src_ids=tuple(src_ids) if src is not None else (),
        tgt_ids=tuple(tgt_ids),
    )


@dataclass
class Rerun:
    """Seconds per stage, and per figure: its JSON bytes, its wire (protobuf) bytes and its heatmap cells."""

    seconds: dict[str, float] = field(default_factory=lambda: {"view-model": 0.0, "figures": 0.0, "serialize": 0.0})
    json_bytes: dict[str, int] = field(default_factory=dict)
    wire_bytes: dict[str, int] = field(default_factory=dict)
    cells: dict[str, int] = field(default_factory=dict)  # attention weights the figure shows
    drawn: dict[str, int] = field(default_factory=dict)  # cells actually sent (after any pooling)
    figures: dict[str, go.Figure] = field(default_factory=dict)

    def stage(self, name: str, fn):
        start = time.perf_counter()
        result = fn()
        self.seconds[name] += time.perf_counter() - start
        return result

    def add(self, name: str, fig: go.Figure, cells: int, drawn: int | None = None) -> None:
        self.figures[name] = fig
        self.cells[name] = cells
        self.drawn[name] = cells if drawn is None else drawn
        spec = self.stage("serialize", lambda: serialize(fig))
        self.json_bytes[name] = len(spec.encode("utf-8"))
        self.wire_bytes[name] = self.stage("serialize", lambda: len(wire(spec)))

    @property
    def total_seconds(self) -> float:
        return sum(self.seconds.values())


def serialize(fig: go.Figure) -> str:
    """The spec string `st.plotly_chart` puts in its protobuf (streamlit/elements/plotly_chart.py)."""
    spec = plotly.io.to_json(fig.to_dict(), validate=False)
    hashlib.new("md5", spec.encode("utf-8"), usedforsecurity=False).hexdigest()  # the element id hashes the spec
    return spec


def wire(spec: str) -> bytes:
    """The chart's protobuf bytes (its share of the websocket message)."""
    return PlotlyChart(spec=spec, config="{}").SerializeToString()


def heads_rerun(
    bundle: ModelBundle, trace: TraceData, memo: dict | None = None, kind: str | None = None, layer: int = 0, head: int = 0
) -> Rerun:
    """Everything views/heads.py computes and draws on one rerun (model run excluded: it is cached).

    `trace` is a run of `bundle` recording `pattern_names(bundle)`; no head-importance table (as for a
    random model before its measurement). `kind` defaults to the page's opening kind. The page
    caches grid figures, per-head statistics and rollout per run: pass the same `memo` to a second
    call to time a rerun on the same text (those come from the memo; every figure is still
    serialized, as Streamlit does on every rerun).
    """
    run, memo = Rerun(), {} if memo is None else memo

    def cached(key: tuple, stage: str, build):
        if key not in memo:
            memo[key] = run.stage(stage, build)
        return memo[key]

    page = run.stage("view-model", lambda: heads_page(bundle, trace, None))
    kind = kind or page.opening[0]
    plan = page.plan
    layers = plan.layers(0)
    grid_text = GridText()  # the English words the page shows
    for k in page.kinds:
        fig = cached(
            ("grid", k),
            "figures",
            lambda k=k: kind_grid(trace, k, layers, plan.extra_stride, grid_text),
        )
        run.stage("view-model", lambda k=k: page.stride(k))  # the page's pooling note
        n_heads, tq, tk = trace.pattern(k, 0).shape
        geo = grid_geometry(len(layers), n_heads, tq, tk, min_stride=plan.extra_stride)
        run.add(f"grid_{k}", fig, len(layers) * n_heads * tq * tk, len(layers) * n_heads * geo.tq * geo.tk)
    text = HeatmapText(title=f"{kind} attention, layer {layer}, head {head}")
    one = page.head(kind, layer, head)  # (Tq, Tk)
    queries, keys = page.axes(kind)
    fig = run.stage("figures", lambda: head_figure(one, queries, keys, text, alignment=page.outline(kind)))
    run.add("head", fig, one.size)
    summary = cached(("summary", kind), "view-model", lambda: head_summary(trace, kind, page.outline(kind)))
    metric = default_metric(summary)
    fig = run.stage(
        "figures", lambda: metric_figure(summary.score(metric), MetricText(title=metric), zmax=metric_zmax(summary, metric))
    )
    run.add("metric", fig, summary.score(metric).size)
    self_kind = page.self_kinds[0]
    rolled = cached(("rollout", self_kind), "view-model", lambda: rollout_of(trace, self_kind))  # (L, T, T)
    queries, keys = page.axes(self_kind)
    fig = run.stage("figures", lambda: matrix_figure(rolled[-1], queries, keys, HeatmapText(title="rollout")))
    run.add("rollout", fig, rolled[-1].size)
    return run
