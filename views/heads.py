"""Attention heads: every layer × head of every attention kind, one head large, summaries, rollout.

The model runs once per input (cached in `ui.models.get_trace`); picking a head only reruns the
"inspect one head" fragment. The numbers come from `runs.heads` (grid plan within the byte budget,
statistics, rollout); what takes seconds on long inputs is cached per run in `ui.models`, keyed by
`Run` = (model key, text), the same key `get_trace` uses. Clicking a grid tile selects that head.
"""

from functools import partial

import streamlit as st

from runs.heads import grid_stride, metric_zmax, plan_grids, self_attention_kinds
from runs.text_run import attention_names
from ui.charts import show_figure
from ui.export import image_format_picker, npz_button, npz_bytes
from ui.head_detectors import head_detectors
from ui.head_picker import kind_name, kind_picker, layer_head_picker
from ui.i18n import labels_of, t
from ui.labels import keep_valid
from ui.models import Run, get_grid_figure, get_head_summary, get_rollout, get_trace
from ui.page import show_run, start_page
from viz.head_summary import METRICS, HeadSummary, metric_figure
from viz.heatmap import HeatmapText, head_figure, matrix_figure
from viz.trace import TraceData

CLICKS_KEY = "heads_grid_clicks"  # bumped after each grid click, so the grid comes back unselected


def _on_grid_click(kind: str, chart_key: str) -> None:
    """A click on a grid tile selects its head (the tile's click target carries [layer, head])."""
    points = st.session_state[chart_key].selection.points
    try:
        layer, head = (int(v) for v in points[0]["customdata"][:2])
    except (IndexError, KeyError, TypeError, ValueError):
        return  # a deselection or a point without a head: nothing to select
    st.session_state.update(kind=kind, layer=layer, head=head)
    st.session_state[CLICKS_KEY] = st.session_state.get(CLICKS_KEY, 0) + 1
    st.toast(t("heads.selected", kind=kind_name(kind), layer=layer, head=head), icon=":material/zoom_in:")


def _grids(run: Run, trace: TraceData, kinds: list[str]) -> None:
    st.header(t("heads.grid_header"))
    st.caption(t("heads.grid_caption"))
    plan = plan_grids(trace, kinds)
    page = 0
    if plan.paged:
        st.info(t("heads.paged", shown=plan.per_page, total=plan.n_layers))
        page = st.segmented_control(
            t("heads.layer_page"), list(range(plan.n_pages)), key="grid_page", default=0, required=True,
            format_func=lambda p: f"{plan.layers(p).start}–{plan.layers(p).stop - 1}",
        ) or 0
    clicks = st.session_state.get(CLICKS_KEY, 0)
    for tab, kind in zip(st.tabs([kind_name(k) for k in kinds]), kinds, strict=True):
        layers = plan.layers(page)
        with tab:
            fig = get_grid_figure(run, kind, layers, plan.extra_stride, t("heads.tile_label"), t("heads.tile_hover"), trace)
            stride = grid_stride(trace, kind, plan.extra_stride)
            if stride > 1:
                st.caption(t("heads.pooled", k=stride))
            key = f"grid_{kind}_{clicks}"
            show_figure(fig, f"heads-grid-{kind}", key=key, width="content",
                        on_select=partial(_on_grid_click, kind, key), selection_mode="points")


def _metric_picture(summary: HeadSummary, kind: str) -> None:
    """One per-head statistic as a small layer × head heatmap, so the odd head stands out."""
    st.subheader(t("heads.summary_header"))
    st.caption(t("heads.summary_caption", max_entropy=f"{summary.max_entropy:.2f}"))
    keep_valid("heads_metric", list(METRICS))
    metric = st.selectbox(t("heads.metric_pick"), METRICS, key="heads_metric",
                          format_func=labels_of({m: t(f"heads.metric_{m}") for m in METRICS}))
    fig = metric_figure(summary.metric(metric), title=t(f"heads.metric_{metric}"), layer_label=t("heads.layer"),
                        head_label=t("heads.head"), zmax=metric_zmax(summary, metric))
    show_figure(fig, f"heads-{kind}-{metric}", key="heads_metric_fig", width="content", html=False)


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
    kind = kind_picker(cols[0], kinds, drop_default=True)
    layer, head = layer_head_picker(cols[1:3], trace.n_layers(kind), trace.pattern(kind, 0).shape[0])
    stretch = cols[3].toggle(t("heads.stretch"), key="heads_stretch", help=t("heads.stretch_help"))
    text = HeatmapText(title=t("heads.head_title", kind=kind_name(kind), layer=layer, head=head),
                       x_title=t("heads.axis_key"), y_title=t("heads.axis_query"), value=t("heads.weight"))
    fig = head_figure(trace.pattern(kind, layer)[head], trace.query_tokens(kind), trace.key_tokens(kind), text,
                      stretch=stretch)
    left, right = st.columns([3, 2])
    with left:
        show_figure(fig, f"attention-{kind}-L{layer}-H{head}", key="head_fig", width="content")
    summary = get_head_summary(run, kind, trace)
    with right:
        _metric_picture(summary, kind)
    _summary_table(summary)


@st.fragment
def _rollout(run: Run, trace: TraceData, kinds: list[str]) -> None:
    self_kinds = self_attention_kinds(kinds)
    st.header(t("heads.rollout_header"))
    st.markdown(t("heads.rollout_intro"))
    cols = st.columns(2)
    kind = kind_picker(cols[0], self_kinds, key="rollout_kind", url=False)
    rolled = get_rollout(run, kind, trace)  # (L, T, T)
    layers = list(range(len(rolled)))
    if st.session_state.get("rollout_layer") not in layers:
        st.session_state["rollout_layer"] = layers[-1]  # start from the whole stack
    upto = cols[1].select_slider(t("heads.rollout_upto"), layers, key="rollout_layer")
    tokens = trace.query_tokens(kind)
    text = HeatmapText(title=t("heads.rollout_title", kind=kind_name(kind), layer=upto),
                       x_title=t("heads.axis_key"), y_title=t("heads.axis_query"), value=t("heads.rollout_value"))
    show_figure(matrix_figure(rolled[upto], tokens, tokens, text), f"rollout-{kind}-L{upto}", key="rollout_fig",
                width="content")


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
    head_detectors(ctx.model.key)
    _downloads(trace, names)


main()
