"""Attention heads: every layer × head of every attention kind, one head large, summaries, rollout.

Where the numbers come from: one call, `ui.caches.get_heads_page` → `runs.heads_page.heads_page`
(the cached run, the grid plan within the byte budget, the gold alignment, the opening head, the
grid's importance marks). What takes seconds on long inputs and depends on a choice (a kind's grid,
per-head statistics, rollout) is cached per run in `ui.caches`, keyed by `Run` = (model key, text);
picking a head only reruns the "inspect one head" fragment. Clicking a grid tile selects that head.
Decoder rows are named by the token they write. The page opens on the most telling head; a link's
explicit kind/layer/head win. The grid tab and both "stretch" switches live in the URL.
"""

from dataclasses import replace
from functools import partial

import streamlit as st

from hook_names import from_ordinal, ordinal
from runs.heads import NO_MARKS, HeadScores, metric_zmax
from runs.heads_page import HeadsPage, default_metric
from ui.caches import Run, get_grid_figure, get_head_summary, get_heads_page, get_rollout
from ui.charts import show_figure
from ui.export import image_format_picker, npz_button, npz_bytes
from ui.figure_words import grid_text, heatmap_text, metric_text
from ui.head_picker import HEAD_KEY, KIND_KEY, LAYER_KEY, kind_name, kind_picker, layer_head_picker
from ui.i18n import labels_of, t
from ui.kind_tabs import open_kind_tab
from ui.labels import keep_valid
from ui.model_words import alignment_verb, rows_write_caption
from ui.modern_sections import kv_groups_note
from ui.page import PageContext, show_run, start_page
from ui.pages.heads.counterpart import counterpart_button
from ui.pages.heads.detectors import head_detectors
from ui.pages.heads.importance import current_table, importance_section, opening_caption
from ui.projector import projector_on
from ui.prose import prose
from viz.head_summary import metric_figure
from viz.heatmap import head_figure, matrix_figure
from viz.tokens import as_axis

CLICKS_KEY = "heads_grid_clicks"  # bumped after each grid click, so the grid comes back unselected
OPENED_KEY = "heads_opened_for"  # the model key the opening head was chosen for
HEAD_TOP_PX = 310  # projector mode: where the enlarged head starts on the first screen (title, input, its help above it)
TAB_KEY, TAB_URL = "heads_grid_tab", "grid"  # the grid's tab widget, and its URL parameter (the kind code)


def _on_grid_click(kind: str, chart_key: str) -> None:
    """A click on a grid tile selects its head (the tile's click target carries [layer, head])."""
    points = st.session_state[chart_key].selection.points
    try:
        layer, head = (int(v) for v in points[0]["customdata"][:2])
    except (IndexError, KeyError, TypeError, ValueError):
        return  # a deselection or a point without a head: nothing to select
    st.session_state.update(kind=kind, layer=layer, head=head)
    st.session_state[CLICKS_KEY] = st.session_state.get(CLICKS_KEY, 0) + 1
    st.toast(t("heads.selected", kind=kind_name(kind), layer=ordinal(layer), head=ordinal(head)), icon=":material/zoom_in:")


def _open_on(model_key: str, page: HeadsPage) -> None:
    """Seed kind/layer/head with the model's most telling head (`page.opening`).

    On entering the page a link's explicit `?kind=&layer=&head=` win; after a model switch the old
    model's head means nothing, so the new model's opening head replaces it.
    """
    kinds, (kind, layer, head) = page.kinds, page.opening
    switched = st.session_state.get(OPENED_KEY) not in (None, model_key)
    entering = LAYER_KEY not in st.session_state  # the pickers were not drawn on the previous run
    if switched or entering:
        url = {} if switched else {k: st.query_params.get(k) for k in (KIND_KEY, LAYER_KEY, HEAD_KEY)}
        chosen = url.get(KIND_KEY) if url.get(KIND_KEY) in kinds else kind
        same = chosen == kind
        for key, value in ((KIND_KEY, chosen), (LAYER_KEY, layer if same else 0), (HEAD_KEY, head if same else 0)):
            if url.get(key) is None:
                st.session_state[key] = value  # a bound picker writes it to the URL
            elif key != KIND_KEY and str(url[key]).isdigit() and int(url[key]) >= 1:
                st.session_state[key] = from_ordinal(int(url[key]))  # links count layers and heads from 1
    st.session_state[OPENED_KEY] = model_key


def _grid_tab(kinds: tuple[str, ...]) -> str:
    """The grid tab to show first: `?grid=` (a kind code, never a translated label), else the inspected kind."""
    code = st.query_params.get(TAB_URL)
    return code if code in kinds else st.session_state.get(KIND_KEY) if st.session_state.get(KIND_KEY) in kinds else kinds[0]


def _on_tab(labels: dict[str, str]) -> None:
    """Write the chosen tab's kind code to the URL, so a copied link opens the same tab."""
    code = labels.get(st.session_state.get(TAB_KEY))
    if code is not None:
        st.query_params[TAB_URL] = code


def _grids(run: Run, page: HeadsPage) -> None:
    st.header(t("heads.grid_header"))
    cols = st.columns([3, 1], vertical_alignment="center")
    cols[0].caption(t("heads.grid_caption"))
    stretch = cols[1].toggle(t("heads.grid_stretch"), key="grid_stretch", bind="query-params", help=t("heads.grid_stretch_help"))
    plan, kinds = page.plan, page.kinds
    shown = 0
    if plan.paged:
        st.info(t("heads.paged", shown=plan.per_page, total=plan.n_layers))
        shown = (
            st.segmented_control(
                t("heads.layer_page"),
                list(range(plan.n_pages)),
                key="grid_page",
                default=0,
                required=True,
                format_func=lambda p: f"{ordinal(plan.layers(p).start)}–{ordinal(plan.layers(p).stop - 1)}",
            )
            or 0
        )
    clicks = st.session_state.get(CLICKS_KEY, 0)
    text = grid_text()
    labels = {kind_name(k): k for k in kinds}
    kind, tab = open_kind_tab(kinds, TAB_KEY, default=_grid_tab(kinds), on_change=_on_tab, args=(labels,))
    with tab:
        if kind != "encoder":
            st.caption(rows_write_caption(as_axis(page.axes(kind)[0])))
        marked = page.marks.get(kind, NO_MARKS)
        layers = plan.layers(shown)
        fig = get_grid_figure(run, kind, layers, plan.extra_stride, text, page.trace, stretch=bool(stretch), marks=marked)
        stride = page.stride(kind)
        if stride > 1:
            st.caption(t("heads.pooled", k=stride))
        if marked.importance is not None:
            st.caption(t("heads.marked"))
        key = f"grid_{kind}_{clicks}"
        show_figure(
            fig,
            f"heads-grid-{kind}",
            key=key,
            width="content",
            on_select=partial(_on_grid_click, kind, key),
            selection_mode="points",
        )


def _metric_picture(summary: HeadScores, kind: str) -> None:
    """One per-head statistic as a small layer × head heatmap, so the odd head stands out."""
    st.subheader(t("heads.summary_header"))
    st.caption(t("heads.summary_caption", max_entropy=f"{summary.max_entropy:.2f}"))
    if kind == "cross":
        st.caption(t("heads.cross_metrics"))
    metrics, default = list(summary.names), default_metric(summary)
    keep_valid("heads_metric", metrics, default)
    if "heads_metric" not in st.session_state and default == "alignment":
        st.session_state["heads_metric"] = default
    metric = st.selectbox(
        t("heads.metric_pick"), metrics, key="heads_metric", format_func=labels_of({m: t(f"heads.metric_{m}") for m in metrics})
    )
    fig = metric_figure(summary.score(metric), metric_text(metric), zmax=metric_zmax(summary, metric))
    show_figure(fig, f"heads-{kind}-{metric}", key="heads_metric_fig", width="content", html=False)


def _summary_table(summary: HeadScores) -> None:
    """Every statistic of every head; a click on a column title sorts (find the previous-token head)."""
    names = {"layer": t("heads.layer"), "head": t("heads.head"), **{m: t(f"heads.metric_{m}") for m in summary.names}}
    shown = {"layer": ordinal, "head": ordinal}  # the table counts layers and heads as the pages do
    rows = [{names[k]: shown.get(k, lambda v: v)(v) for k, v in row.items()} for row in summary.rows()]
    st.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        key="heads_table",
        column_config={names[m]: st.column_config.NumberColumn(format="%.2f") for m in summary.names},
    )


def _heads_page(run: Run) -> HeadsPage:
    """The page's numbers for `run`, over the cached run. Fragments, callbacks and the download button take the
    `run` key and call this, never a `HeadsPage`: Streamlit keeps what they hold until the next run replaces them,
    and a GPT-2-sized run at 1,024 tokens is 604 MB that the next text's run would otherwise find still alive."""
    model_key, text = run
    return get_heads_page(model_key, text, current_table(model_key))


@st.fragment
def _inspector(run: Run, ctx: PageContext) -> None:
    """Pick one head and see it large, the run's output beside it; only this fragment reruns when the choice changes.

    The pickers sit in the right column, beside the head: the head starts right under the header, on the
    first 1280 × 720 screen (above it, a row of pickers pushed it to the fold).
    """
    page = _heads_page(run)
    trace, kinds, opening, alignment = page.trace, page.kinds, page.opening, page.alignment
    if not projector_on():  # on a projector the head itself comes first: its title says what it is
        st.header(t("heads.inspect_header"))
    left, right = st.columns([3, 2])
    with right:
        kind = kind_picker(st, list(kinds), default=opening[0], drop_default=True)
        layer, head = layer_head_picker(st.columns(2), *page.shapes[kind])
        stretch = st.toggle(t("heads.stretch"), key="heads_stretch", bind="query-params", help=t("heads.stretch_help"))
        outline = None
        if (
            kind == "cross"
            and alignment is not None
            and st.toggle(
                t("heads.alignment_toggle"),
                value=True,
                key="heads_alignment",
                bind="query-params",
                help=t("heads.alignment_help", verb=alignment_verb(ctx.bundle)),
            )
        ):
            outline = alignment
    text = heatmap_text(t("heads.head_title", kind=kind_name(kind), layer=ordinal(layer), head=ordinal(head)))
    queries, keys = page.axes(kind)
    fig = head_figure(page.head(kind, layer, head), queries, keys, text, stretch=bool(stretch), alignment=outline)
    with left:
        show_figure(
            fig, f"attention-{kind}-L{layer}-H{head}", key="head_fig", width="content", keep_width=True, top_px=HEAD_TOP_PX
        )
        if (kind, layer, head) == opening and page.opened_for_a_reason:
            st.caption(opening_caption(page.opened, verb=alignment_verb(ctx.bundle)))  # under it: the head first
        if kind != "encoder":
            st.caption(rows_write_caption(as_axis(page.axes(kind)[0])))
        if kind == "cross" and alignment is None and not page.untrained:
            st.caption(t("heads.alignment_unavailable"))
        counterpart_button(run[0], encoder_decoder="cross" in kinds)
    summary = get_head_summary(run, kind, trace, page.outline(kind))
    with right:
        show_run(trace, ctx.bundle)
        _metric_picture(summary, kind)
    _summary_table(summary)


@st.fragment
def _rollout(run: Run) -> None:
    page = _heads_page(run)
    self_kinds = page.self_kinds
    st.header(t("heads.rollout_header"))
    prose(t("heads.rollout_intro"))
    cols = st.columns(2)
    kind = kind_picker(cols[0], self_kinds, key="rollout_kind", url=False)
    rolled = get_rollout(run, kind, page.trace)  # (L, T, T)
    layers = list(range(len(rolled)))
    if st.session_state.get("rollout_layer") not in layers:
        st.session_state["rollout_layer"] = layers[-1]  # start from the whole stack
    upto = cols[1].select_slider(t("heads.rollout_upto"), layers, key="rollout_layer", format_func=lambda i: str(ordinal(i)))
    if kind != "encoder":
        st.caption(rows_write_caption(as_axis(page.axes(kind)[0])))
    queries, keys = page.axes(kind)
    text = replace(
        heatmap_text(t("heads.rollout_title", kind=kind_name(kind), layer=ordinal(upto))), value=t("heads.rollout_value")
    )
    fig = matrix_figure(rolled[upto], queries, keys, text)
    show_figure(fig, f"rollout-{kind}-L{upto}", key="rollout_fig", width="content", keep_width=True)


def _attention_npz(run: Run) -> bytes:
    """Every attention map of `run` as .npz (built when the button is clicked, from the cached run)."""
    page = _heads_page(run)
    trace = page.trace
    arrays = {name: trace.arrays[name] for name in page.names if name in trace.arrays}
    tokens = {"src_tokens": trace.src_tokens, "tgt_tokens": trace.tgt_tokens, "next_tokens": trace.next_tokens}
    return npz_bytes(arrays, **tokens, text=trace.text, precision=trace.precision)  # float16 arrays from a bfloat16 run


def _downloads(run: Run) -> None:
    st.header(t("export.header"))
    st.caption(t("export.caption"))
    image_format_picker()
    npz_button(partial(_attention_npz, run), "attention", key="heads_npz")


ctx = start_page("heads")
run = (ctx.model.key, ctx.text)
with st.spinner(t("heads.running")):
    page = _heads_page(run)
if not page.kinds:
    show_run(page.trace, ctx.bundle)
    st.warning(t("heads.no_attention"))
    st.stop()
_open_on(ctx.model.key, page)
kv_groups_note(ctx.bundle)  # grouped-query attention: which heads share keys and values
_inspector(run, ctx)
importance_section(ctx.model.key, page.shapes, untrained=page.untrained, default=page.opening[0])
_grids(run, page)
_rollout(run)
head_detectors(ctx.model.key, default=page.opening[0])
_downloads(run)
# The grid's click callbacks keep this script's globals until the next run: they must not keep this run's arrays.
del page
