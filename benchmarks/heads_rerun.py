"""One rerun of the heads page (views/heads.py) as direct calls, split into stages, plus its inputs.

The page script runs `main()` on import, so its steps are repeated here with the same `viz`
functions, in the same order and with the same arguments (keep in step with views/heads.py):
grids of every kind (planned within the byte budget), the enlarged head, the per-head metric
picture, and the rollout; grids, statistics and rollout are cached per run, as the page does.
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

from transformer.checkpoint import ModelBundle
from transformer.hooks import capture
from transformer.tokenizer import BOS_ID, EOS_ID
from viz.head_grid import grid_figure, grid_geometry
from viz.head_summary import METRICS, metric_figure, summarize
from viz.heatmap import HeatmapText, head_figure, matrix_figure
from viz.payload import DEFAULT_BUDGET, EXACT_BYTES_PER_CELL, plan_layers
from viz.rollout import rollout
from viz.trace import TraceData


def pattern_names(bundle: ModelBundle) -> tuple[str, ...]:
    """What the heads page records (ui.models.attention_names, without importing streamlit's caches)."""
    return tuple(n for n in bundle.model.hook_names if n.endswith("attn.hook_pattern"))


def square_trace(bundle: ModelBundle, length: int, seed: int = 0) -> TraceData:
    """A teacher-forced run with T = `length` tokens on both sides (source ends with <eos>, target
    starts with <bos>), capturing what the heads page captures. No greedy decoding: its cost
    depends on how long the model keeps talking, which server_time measures separately."""
    reader = bundle.source_tokenizer or bundle.target_tokenizer
    rng = random.Random(seed)
    known = list(range(4, len(reader)))
    src_ids = [rng.choice(known) for _ in range(length - 1)] + [EOS_ID]
    tgt_ids = [BOS_ID] + [rng.choice(range(4, len(bundle.target_tokenizer))) for _ in range(length - 1)]
    model = bundle.model
    src = torch.tensor([src_ids]) if bundle.config.is_encoder_decoder else None  # (1, T)
    tgt = torch.tensor([tgt_ids])  # (1, T)
    with torch.no_grad(), capture(model, pattern_names(bundle)) as cache:
        model(src, tgt)
    arrays = cache.numpy()
    for array in arrays.values():
        array.setflags(write=False)
    target = bundle.target_tokenizer
    return TraceData(text="", src_tokens=tuple(reader.symbols(src_ids)) if src is not None else (),
                     tgt_tokens=tuple(target.symbols(tgt_ids)), output_tokens=(), output_text="", arrays=arrays)


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


def heads_rerun(trace: TraceData, memo: dict | None = None, kind: str | None = None, layer: int = 0,
                head: int = 0) -> Rerun:
    """Everything views/heads.py computes and draws on one rerun (model run excluded: it is cached).

    The page caches grid figures, per-head statistics and rollout per run: pass the same `memo` to
    a second call to time a rerun on the same text (those come from the memo; every figure is
    still serialized, as Streamlit does on every rerun).
    """
    run, memo = Rerun(), {} if memo is None else memo
    kinds = trace.kinds()
    kind = kind or kinds[0]

    def cached(key: tuple, stage: str, build):
        if key not in memo:
            memo[key] = run.stage(stage, build)
        return memo[key]

    def plan():
        shapes = {k: trace.pattern(k, 0).shape for k in kinds}  # kind → (H, Tq, Tk)
        geometries = {k: grid_geometry(1, *shape) for k, shape in shapes.items()}
        cells = sum(shapes[k][0] * g.tq * g.tk for k, g in geometries.items())
        reserve = 2 * max(max(s[1:]) for s in shapes.values()) ** 2 * EXACT_BYTES_PER_CELL
        return plan_layers(max(trace.n_layers(k) for k in kinds), cells, max(DEFAULT_BUDGET - reserve, DEFAULT_BUDGET / 4))

    layer_plan = run.stage("view-model", plan)
    layers = layer_plan.layers(0)
    for k in kinds:
        fig = cached(("grid", k), "figures", lambda k=k: grid_figure(
            trace.patterns(k)[layers.start:layers.stop], first_layer=layers.start, min_stride=layer_plan.extra_stride,
            tile_label="L{layer} H{head}", hover="Layer {layer}, head {head}: click to enlarge"))
        n_heads, tq, tk = trace.pattern(k, 0).shape
        geo = grid_geometry(len(layers), n_heads, tq, tk, min_stride=layer_plan.extra_stride)
        run.add(f"grid_{k}", fig, len(layers) * n_heads * tq * tk, len(layers) * n_heads * geo.tq * geo.tk)
    text = HeatmapText(title=f"{kind} attention, layer {layer}, head {head}")
    one = trace.pattern(kind, layer)[head]  # (Tq, Tk)
    fig = run.stage("figures", lambda: head_figure(one, trace.query_tokens(kind), trace.key_tokens(kind), text))
    run.add("head", fig, one.size)
    summary = cached(("summary", kind), "view-model", lambda: summarize(trace.patterns(kind)))
    metric = METRICS[0]  # the page's default choice
    zmax = summary.max_entropy if metric == "entropy" else None if metric == "distance" else 1.0
    fig = run.stage("figures", lambda: metric_figure(summary.metric(metric), title=metric, zmax=zmax))
    run.add("metric", fig, summary.metric(metric).size)
    self_kind = next(k for k in kinds if k != "cross")
    rolled = cached(("rollout", self_kind), "view-model", lambda: rollout(trace.patterns(self_kind)))  # (L, T, T)
    tokens = trace.query_tokens(self_kind)
    fig = run.stage("figures", lambda: matrix_figure(rolled[-1], tokens, tokens, HeatmapText(title="rollout")))
    run.add("rollout", fig, rolled[-1].size)
    return run
