"""Attention heads: every layer × head of every attention kind, one head large, summaries, rollout.

The model runs once per input (cached in `ui.models.get_trace`); picking a head only reruns the
"inspect one head" fragment. Grids travel as compact images (viz/head_grid.py) within a byte
budget (viz/payload.py); clicking a tile selects that head. What takes seconds on long inputs
(grid images, per-head statistics, rollout) is cached per run, keyed by `Run` = (model key, text),
the same key `get_trace` uses.
"""

from functools import partial

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ui.export import image_format_picker, npz_button, npz_bytes, show_figure
from ui.i18n import labels_of, t
from ui.models import attention_names, get_trace
from ui.page import show_run, start_page
from viz.head_grid import grid_figure, grid_geometry
from viz.head_summary import METRICS, HeadSummary, metric_figure, summarize
from viz.heatmap import HeatmapText, head_figure, matrix_figure
from viz.payload import DEFAULT_BUDGET, EXACT_BYTES_PER_CELL, plan_layers
from viz.rollout import rollout
from viz.trace import TraceData

CLICKS_KEY = "heads_grid_clicks"  # bumped after each grid click, so the grid comes back unselected
Run = tuple[str, str]  # (model key, text): identifies a cached `get_trace` result


@st.cache_resource(max_entries=32, show_spinner=False)
def _grid_figure(run: Run, kind: str, layers: range, min_stride: int, tile_label: str, hover: str,
                 _trace: TraceData) -> go.Figure:
    return grid_figure(_trace.patterns(kind)[layers.start:layers.stop], first_layer=layers.start, min_stride=min_stride,
                       tile_label=tile_label, hover=hover)


@st.cache_resource(max_entries=32, show_spinner=False)
def _summary(run: Run, kind: str, _trace: TraceData) -> HeadSummary:
    return summarize(_trace.patterns(kind))


@st.cache_resource(max_entries=32, show_spinner=False)
def _rollout_of(run: Run, kind: str, _trace: TraceData) -> np.ndarray:
    return rollout(_trace.patterns(kind))  # (L, T, T)


def _kind_label(kind: str) -> str:
    return t(f"heads.kind_{kind}")


def _keep_valid(key: str, options: list) -> None:
    """Drop a stale selection (e.g. layer 5 from a URL, for a 2-layer model) before its widget renders,
    and re-send a valid one: the browser keeps showing a selectbox's old label after a language switch
    (its value travels as the formatted label) unless the value is set again."""
    if key in st.session_state:
        value = st.session_state[key]
        st.session_state[key] = value if value in options else options[0]


def _kind_picker(container, kinds: list[str]) -> str:
    """The attention-kind choice, synced to `?kind=` by hand: a bound selectbox would put the
    translated label in the URL, so a link would change with the language."""
    if "kind" not in st.session_state and st.query_params.get("kind") in kinds:
        st.session_state["kind"] = st.query_params["kind"]
    _keep_valid("kind", kinds)
    kind = container.selectbox(t("heads.kind"), kinds, key="kind", format_func=labels_of({k: _kind_label(k) for k in kinds}))
    if kind == kinds[0]:
        st.query_params.pop("kind", None)
    else:
        st.query_params["kind"] = kind
    return kind


def _on_grid_click(kind: str, chart_key: str) -> None:
    """A click on a grid tile selects its head (the tile's click target carries [layer, head])."""
    points = st.session_state[chart_key].selection.points
    try:
        layer, head = (int(v) for v in points[0]["customdata"][:2])
    except (IndexError, KeyError, TypeError, ValueError):
        return  # a deselection or a point without a head: nothing to select
    st.session_state.update(kind=kind, layer=layer, head=head)
    st.session_state[CLICKS_KEY] = st.session_state.get(CLICKS_KEY, 0) + 1
    st.toast(t("heads.selected", kind=_kind_label(kind), layer=layer, head=head), icon=":material/zoom_in:")


def _grids(run: Run, trace: TraceData, kinds: list[str]) -> None:
    st.header(t("heads.grid_header"))
    st.caption(t("heads.grid_caption"))
    shapes = {kind: trace.pattern(kind, 0).shape for kind in kinds}  # kind → (H, Tq, Tk)
    geometries = {kind: grid_geometry(1, *shape) for kind, shape in shapes.items()}
    cells = sum(shapes[k][0] * g.tq * g.tk for k, g in geometries.items())
    longest = max(max(shape[1:]) for shape in shapes.values())
    reserve = 2 * longest**2 * EXACT_BYTES_PER_CELL  # the enlarged head and the rollout
    plan = plan_layers(max(trace.n_layers(k) for k in kinds), cells, max(DEFAULT_BUDGET - reserve, DEFAULT_BUDGET / 4))
    page = 0
    if plan.paged:
        st.info(t("heads.paged", shown=plan.per_page, total=plan.n_layers))
        page = st.segmented_control(
            t("heads.layer_page"), list(range(plan.n_pages)), key="grid_page", default=0, required=True,
            format_func=lambda p: f"{plan.layers(p).start}–{plan.layers(p).stop - 1}",
        ) or 0
    clicks = st.session_state.get(CLICKS_KEY, 0)
    for tab, kind in zip(st.tabs([_kind_label(k) for k in kinds]), kinds, strict=True):
        layers = plan.layers(page)
        with tab:
            fig = _grid_figure(run, kind, layers, plan.extra_stride, t("heads.tile_label"), t("heads.tile_hover"), trace)
            stride = grid_geometry(1, *shapes[kind], min_stride=plan.extra_stride).stride
            if stride > 1:
                st.caption(t("heads.pooled", k=stride))
            key = f"grid_{kind}_{clicks}"
            show_figure(fig, f"heads-grid-{kind}", key=key, on_select=partial(_on_grid_click, kind, key),
                        selection_mode="points")


def _metric_picture(summary: HeadSummary, kind: str) -> None:
    """One per-head statistic as a small layer × head heatmap, so the odd head stands out."""
    st.subheader(t("heads.summary_header"))
    st.caption(t("heads.summary_caption", max_entropy=f"{summary.max_entropy:.2f}"))
    _keep_valid("heads_metric", list(METRICS))
    metric = st.selectbox(t("heads.metric_pick"), METRICS, key="heads_metric",
                          format_func=labels_of({m: t(f"heads.metric_{m}") for m in METRICS}))
    zmax = summary.max_entropy if metric == "entropy" else None if metric == "distance" else 1.0
    fig = metric_figure(summary.metric(metric), title=t(f"heads.metric_{metric}"), layer_label=t("heads.layer"),
                        head_label=t("heads.head"), zmax=zmax)
    show_figure(fig, f"heads-{kind}-{metric}", key="heads_metric_fig", html=False)


def _summary_table(summary: HeadSummary) -> None:
    """Every statistic of every head; a click on a column title sorts (find the previous-token head)."""
    names = {"layer": t("heads.layer"), "head": t("heads.head"), **{m: t(f"heads.metric_{m}") for m in METRICS}}
    rows = [{names[k]: v for k, v in row.items()} for row in summary.rows()]
    st.dataframe(rows, hide_index=True, width="stretch", key="heads_table",
                 column_config={names[m]: st.column_config.NumberColumn(format="%.2f") for m in METRICS})


@st.fragment
def _inspector(run: Run, trace: TraceData, kinds: list[str]) -> None:
    """Pick one head and see it large; only this fragment reruns when the choice changes."""
    st.header(t("heads.inspect_header"))
    cols = st.columns([2, 1, 1, 2], vertical_alignment="bottom")
    kind = _kind_picker(cols[0], kinds)
    n_heads = trace.pattern(kind, 0).shape[0]
    layers, heads = list(range(trace.n_layers(kind))), list(range(n_heads))
    _keep_valid("layer", layers)
    _keep_valid("head", heads)
    layer = cols[1].selectbox(t("heads.layer"), layers, key="layer", bind="query-params")
    head = cols[2].selectbox(t("heads.head"), heads, key="head", bind="query-params")
    stretch = cols[3].toggle(t("heads.stretch"), key="heads_stretch", help=t("heads.stretch_help"))
    text = HeatmapText(title=t("heads.head_title", kind=_kind_label(kind), layer=layer, head=head),
                       x_title=t("heads.axis_key"), y_title=t("heads.axis_query"), value=t("heads.weight"))
    fig = head_figure(trace.pattern(kind, layer)[head], trace.query_tokens(kind), trace.key_tokens(kind), text,
                      stretch=stretch)
    left, right = st.columns([3, 2])
    with left:
        show_figure(fig, f"attention-{kind}-L{layer}-H{head}", key="head_fig")
    summary = _summary(run, kind, trace)
    with right:
        _metric_picture(summary, kind)
    _summary_table(summary)


@st.fragment
def _rollout(run: Run, trace: TraceData, kinds: list[str]) -> None:
    self_kinds = [k for k in kinds if k != "cross"]
    st.header(t("heads.rollout_header"))
    st.markdown(t("heads.rollout_intro"))
    cols = st.columns(2)
    _keep_valid("rollout_kind", self_kinds)
    kind = cols[0].selectbox(t("heads.kind"), self_kinds, key="rollout_kind",
                                 format_func=labels_of({k: _kind_label(k) for k in self_kinds}))
    rolled = _rollout_of(run, kind, trace)  # (L, T, T)
    layers = list(range(len(rolled)))
    if st.session_state.get("rollout_layer") not in layers:
        st.session_state["rollout_layer"] = layers[-1]  # start from the whole stack
    upto = cols[1].select_slider(t("heads.rollout_upto"), layers, key="rollout_layer")
    tokens = trace.query_tokens(kind)
    text = HeatmapText(title=t("heads.rollout_title", kind=_kind_label(kind), layer=upto),
                       x_title=t("heads.axis_key"), y_title=t("heads.axis_query"), value=t("heads.rollout_value"))
    show_figure(matrix_figure(rolled[upto], tokens, tokens, text), f"rollout-{kind}-L{upto}", key="rollout_fig")


def _downloads(trace: TraceData, names: tuple[str, ...]) -> None:
    st.header(t("export.header"))
    st.caption(t("export.caption"))
    image_format_picker()
    arrays = {name: trace.arrays[name] for name in names if name in trace.arrays}
    npz_button(lambda: npz_bytes(arrays, src_tokens=trace.src_tokens, tgt_tokens=trace.tgt_tokens, text=trace.text),
               "attention", key="heads_npz")


def main() -> None:
    ctx = start_page("heads")
    if ctx is None or ctx.text is None:
        return
    names = attention_names(ctx.bundle)
    with st.spinner(t("heads.running")):
        trace = get_trace(ctx.model.key, ctx.text, names)
    show_run(trace, ctx.bundle)
    kinds = trace.kinds()
    if not kinds:
        st.warning(t("heads.no_attention"))
        return
    run = (ctx.model.key, ctx.text)
    _grids(run, trace, kinds)
    _inspector(run, trace, kinds)
    _rollout(run, trace, kinds)
    _downloads(trace, names)


main()
