"""Attention, step by step: one query of one head with the model's numbers, why √d_k, and W^O.

Where the numbers come from: `runs.step_page` (`ui.caches.get_step_run`, then `step_page` for the
picked head and query); the √d_k experiment is `viz.scaling.scaling_demo`.
"""

from __future__ import annotations

import math

import streamlit as st

from runs.step_page import StepPage, step_page
from runs.text_run import attention_kinds
from ui.caches import get_step_run
from ui.charts import show_figure
from ui.figure_words import multihead_text, scaling_text, step_text
from ui.head_picker import kind_picker, layer_head_picker
from ui.i18n import labels_of, t
from ui.labels import relabel_when_changed
from ui.model_words import rows_write_caption
from ui.page import PageContext, section, show_run, start_page
from ui.projector import SCREEN_PX, projector_on
from ui.prose import prose
from viz.multihead import multihead_figure
from viz.scaling import N_KEYS, N_QUERIES, d_k_options, scaling_demo, softmax_figure, variance_figure
from viz.step_by_step import MAX_KEYS
from viz.step_figures import qkv_figure, qkv_keys_fitting, scores_figure, weighted_sum_figure
from viz.tokens import as_axis

QKV_TOP_PX = 200  # projector mode: where step 1's figure starts on the first screen (the title and the pickers above)
FOLD_GAP_PX = 8  # what the figure leaves of the first screen under it
ATTENTION = r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
VARIANCE = (
    r"\operatorname{Var}(q\cdot k)=\sum_{i=1}^{d_k}\operatorname{Var}(q_i k_i)=d_k,"
    r"\qquad \operatorname{Var}\!\left(\frac{q\cdot k}{\sqrt{d_k}}\right)=1"
)
MULTIHEAD = (
    r"\mathrm{MultiHead}(Q,K,V)=\mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h)\,W^O,"
    r"\quad \mathrm{head}_i=\mathrm{Attention}(QW_i^Q,\,KW_i^K,\,VW_i^V)"
)


def _qkv(page: StepPage, height_px: int | None) -> None:
    """Step 1's figure (at `height_px` on a projector), its caption and what it leaves out."""
    view = page.steps
    show_figure(qkv_figure(view, step_text(), height_px), "step_qkv")
    st.markdown(f"**{t('step.step_qkv')}**")  # under its figure, as its caption: the figure starts the first screen
    # what the figure leaves out, under it: the figure itself belongs on the first 1280 × 720 screen
    if view.keys_clipped:
        st.info(
            t(
                "step.keys_clipped",
                total=view.n_keys,
                shown=len(view.keys),
                first=int(view.keys[0]),
                last=int(view.keys[-1]),
                hidden=f"{view.hidden_weight:.3f}",
            )
        )
    if view.dims_clipped:
        st.info(t("step.dims_clipped", d_k=view.d_k, shown=view.dims))


def _steps(page: StepPage, ctx: PageContext) -> None:
    view, kind, words = page.steps, page.run.kind, step_text()
    if kind != "encoder":
        st.caption(rows_write_caption(as_axis(page.run.queries)))
    st.latex(ATTENTION)
    prose(t("step.explain_steps"))
    show_run(page.run.trace, ctx.bundle)
    st.subheader(t("step.step_scores"))
    prose(t("step.explain_scores", sqrt=f"{math.sqrt(view.d_k):.3f}"))
    if page.no_rows:
        st.warning(t("step.no_rows"))
    show_figure(
        scores_figure(view, words),
        "step_scores",
    )
    st.subheader(t("step.step_sum"))
    prose(t("step.explain_sum"))
    show_figure(
        weighted_sum_figure(view, words),
        "step_sum",
    )
    check = view.check
    errors = {"scores": f"{check.scores_error:.1e}", "pattern": f"{check.pattern_error:.1e}", "z": f"{check.z_error:.1e}"}
    if check.passes():
        st.success(t("step.check_ok", **errors))
    else:
        st.warning(t("step.check_bad", **errors))


@st.fragment
def _scaling(model_d_k: int) -> None:
    """The √d_k experiment, opened on the model's own d_k: only this fragment reruns when its slider or seed moves."""
    st.latex(VARIANCE)
    prose(t("step.explain_scale"))
    cols = st.columns([3, 1])
    options = d_k_options(model_d_k)
    if st.session_state.get("dk") not in (None, *options):
        del st.session_state["dk"]  # another model's own d_k
    d_k = cols[0].select_slider(t("step.scale_dk"), options, value=model_d_k, key="dk", bind="query-params")
    seed = cols[1].number_input(t("step.scale_seed"), 0, 1_000_000, 0, key="dk_seed", bind="query-params")
    demo, words = scaling_demo(int(d_k), int(seed), d_ks=options), scaling_text()
    left, right = st.columns(2)
    with left:
        show_figure(
            variance_figure(demo, words),
            "step_variance",
        )
        st.metric(t("step.variance_metric", d_k=demo.d_k), f"{demo.variance:.2f}")
        st.caption(t("step.variance_caption", n=demo.n_samples, seed=demo.seed, d_k=demo.d_k))
    with right:
        st.markdown(f"**{t('step.softmax_title', k=N_KEYS)}**")
        show_figure(
            softmax_figure(demo, words),
            "step_softmax",
        )
        st.table(
            {
                "": [t("step.metric_max"), t("step.metric_entropy"), t("step.metric_grad")],
                t("step.unscaled_col"): demo.unscaled.formatted(),
                t("step.scaled_col"): demo.scaled.formatted(),
            }
        )
        st.caption(t("step.metrics_caption", n=N_QUERIES, k=N_KEYS, bits=f"{math.log2(N_KEYS):.0f}"))


def _multihead(page: StepPage) -> None:
    st.latex(MULTIHEAD)
    prose(t("step.explain_multi"))
    view = page.multihead
    st.markdown(t("step.shapes", **{name: str(tuple(shape)) for name, shape in view.shapes.items()}))
    show_figure(
        multihead_figure(view, multihead_text()),
        "step_multihead",
    )
    (st.success if view.error <= 1e-4 else st.warning)(
        t("step.concat_ok" if view.error <= 1e-4 else "step.concat_bad", err=f"{view.error:.1e}")
    )


ctx = start_page("step", figure_first=True)
config = ctx.bundle.config
# 1. One query, one head, with the model's numbers: one row of choices (kind, layer, head, query; the same
# URL keys as the Masks and Attention-heads pages), then step 1's figure: the first 1280 × 720 screen shows it
# (on a projector right under the title, the section's name, the intro and the text box under it, and as many keys
# as fit). The formula, what it means and the run's output follow it.
resent = relabel_when_changed((ctx.text, st.session_state.get("kind")), ("query",))
on_projector = projector_on()
with ctx.top:
    if not on_projector:
        section(1, "step.section_steps")
    cols = st.columns([3, 1.4, 1.4, 3], vertical_alignment="bottom")
    kind = kind_picker(cols[0], attention_kinds(ctx.bundle), default="decoder", section="masks")
    layer, head = layer_head_picker(cols[1:3], config.n_layers, config.n_heads, section="masks")
    # Two phases: the query picker's options are the run's rows (decoder rows named by the token they write)
    run = get_step_run(ctx.model.key, ctx.text, kind, layer)
    queries = run.queries
    query = cols[3].selectbox(
        t("step.query"),
        list(range(len(queries))),
        index=0 if "query" in resent else len(queries) // 2,  # a re-sent value takes no default
        key="query",
        bind="query-params",
        format_func=labels_of({i: queries.option_label(i, t("bytes.option")) for i in range(len(queries))}),
    )
    height = SCREEN_PX - QKV_TOP_PX - FOLD_GAP_PX if on_projector else None
    page = step_page(run, head, int(query), max_keys=qkv_keys_fitting(height) if height else MAX_KEYS)
    _qkv(page, height)
if on_projector:
    section(1, "step.section_steps")
_steps(page, ctx)

# 2. Why √d_k: an experiment of its own (a fragment: only it reruns when its slider moves).
section(2, "step.section_scale")
_scaling(config.d_k)

# 3. Multi-head: every head of the layer, concatenated and projected by W^O.
section(3, "step.section_multi")
_multihead(page)
