"""LayerNorm: what every LayerNorm does to the user's tokens, where it sits (post- vs pre-norm) and
why the Transformer normalizes per token rather than per batch (the BatchNorm contrast).

Where the numbers come from: `runs.layernorm_page`, one call per section (each section is a
fragment with its own widgets): `ui.caches.get_layernorm_network`, `get_layernorm_pair`,
`get_layernorm_contrast`.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from hook_names import ordinal, stack_input
from runs.layernorm_page import text_stack
from runs.model_ref import RANDOM_DEFAULTS
from runs.sentence_batch import MAX_SENTENCES
from ui.batch import more_sentences, report_lines
from ui.caches import get_layernorm_contrast, get_layernorm_network, get_layernorm_pair
from ui.charts import show_figure
from ui.figure_words import contrast_text, layernorm_text, norm_diagram_text
from ui.i18n import labels_of, t
from ui.labels import keep_valid
from ui.modern_sections import rmsnorm_section
from ui.page import PageContext, start_page
from ui.projector import projector_on
from ui.prose import prose
from viz.batchnorm_contrast import batch_mean_figure, sentence_one_figure
from viz.layernorm import NormSite, StackStats, norm_sites, stacks
from viz.layernorm_figures import (
    gain_bias_figure,
    residual_figure,
    site_detail_figure,
    stats_overview_figure,
)
from viz.norm_diagram import sublayer_diagram
from viz.tokens import TokenAxis

OVERVIEW_TOP_PX = 330  # projector mode: where the statistics start on the first screen (title, text box, heading)
FEATURES_SHOWN = 24  # features in the batch-mean chart: enough to see the shifts, few enough to read
LAYERNORM = (
    r"\mathrm{LayerNorm}(x) = g \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + b, \quad "
    r"\mu = \frac{1}{d_{model}} \sum_{j} x_j, \quad \sigma^2 = \frac{1}{d_{model}} \sum_{j} (x_j - \mu)^2"
)


def site_label(site: NormSite) -> str:
    kind = t(f"layernorm.kind_{site.kind}")
    return kind if site.layer is None else t("layernorm.site", layer=ordinal(site.layer), kind=kind)


def stream_labels(stats: StackStats) -> list[str]:
    """Short names of the residual-stream points (they sit under a crowded, rotated axis)."""
    short = [
        t(f"layernorm.short_{s.kind}")
        if s.layer is None
        else t("layernorm.site_short", layer=ordinal(s.layer), kind=t(f"layernorm.short_{s.kind}"))
        for s in stats.sites
    ]
    return [t("layernorm.point_input_short"), *short]


def _stack_choice(hook_names: list[str], key: str, place: DeltaGenerator | None = None) -> str:
    options = stacks(hook_names)
    if len(options) == 1:
        return options[0]
    return (place or st).segmented_control(
        t("layernorm.stack"),
        options,
        format_func=labels_of({s: t(f"layernorm.stack_{s}") for s in options}),
        key=key,
        default=options[0],
        required=True,
    )


@st.fragment
def network_section(ctx: PageContext) -> None:
    """Statistics at every LayerNorm for the user's text, one norm in detail, the residual stream."""
    names = list(ctx.bundle.model.hook_names)
    # On a projector the stack switch sits beside the heading, so the statistics end on the first 1280 × 720 screen
    # with their labels (issue 39 §7: they spanned 387–899 px).
    head = st.columns([3, 2], vertical_alignment="bottom") if projector_on() else None
    (head[0] if head else st).subheader(t("layernorm.network_title"))
    stack = _stack_choice(names, "ln_stack", head[1] if head else None)
    network = get_layernorm_network(ctx.model.key, ctx.text, stack)
    stats, tokens = network.stats, TokenAxis(network.tokens, hex=network.raw)  # raw bytes for the hovers
    labels, words = [site_label(s) for s in stats.sites], layernorm_text()
    overview = stats_overview_figure(stats, tokens, labels, words, one_row=head is not None)
    show_figure(overview, "ln_overview", top_px=OVERVIEW_TOP_PX)
    # the statistics first (the 1280 × 720 first screen shows them), then the formula and what it means
    st.latex(LAYERNORM)
    prose(t("layernorm.why"))
    prose(t("layernorm.network_text"))

    keep_valid(f"ln_site_{stack}", list(range(len(stats.sites))))
    chosen = st.selectbox(
        t("layernorm.site_pick"), range(len(stats.sites)), format_func=lambda i: labels[i], key=f"ln_site_{stack}"
    )
    show_figure(site_detail_figure(stats, chosen, tokens, words), "ln_site")
    gain, bias = network.affine[chosen]
    prose(t("layernorm.affine_text"))
    show_figure(gain_bias_figure(gain, bias, words), "ln_affine")

    prose(t("layernorm.stream_text"))
    d = network.d_model
    series = {t(f"layernorm.norm_{network.norm_position}"): (stream_labels(stats), stats.stream_norm)}
    show_figure(residual_figure(series, d_model=d, text=words), "ln_stream")


@st.fragment
def position_section(ctx: PageContext) -> None:
    """Post-norm vs pre-norm: where the norm sits, and two random models with the same seed compared."""
    st.subheader(t("layernorm.position_title"))
    prose(t("layernorm.position_text"))
    cols = st.columns(2)
    cols[0].latex(r"\mathrm{LayerNorm}(x + \mathrm{Sublayer}(x))")
    cols[1].latex(r"x + \mathrm{Sublayer}(\mathrm{LayerNorm}(x))")
    show_figure(sublayer_diagram(norm_diagram_text()), "ln_diagram")

    config = ctx.bundle.config
    layers = st.slider(
        t("layernorm.pair_layers"),
        1,
        12,
        max(6, config.n_layers),
        key="ln_pair_layers",
        bind="query-params",
        help=t("layernorm.pair_layers_help"),
    )
    seed = int(RANDOM_DEFAULTS["seed"]) if not ctx.model.is_random else int(st.session_state.get("r_seed", 0))
    pair = get_layernorm_pair(ctx.model.key, ctx.text, layers, seed)
    d, finals = pair.d_model, pair.finals
    series = {t(f"layernorm.norm_{p}"): (stream_labels(stats), stats.stream_norm) for p, stats in pair.stats.items()}
    st.caption(t("layernorm.pair_caption", layers=layers, d=d, seed=seed))
    show_figure(residual_figure(series, d_model=d, text=layernorm_text()), "ln_pair")
    cols = st.columns(2)
    cols[0].metric(t("layernorm.last_post"), f"{finals['post']:.1f}")
    cols[1].metric(t("layernorm.last_pre"), f"{finals['pre']:.1f}")
    prose(t("layernorm.pair_text"))


@st.fragment
def batch_section(ctx: PageContext) -> None:
    """LayerNorm vs BatchNorm on a padded batch of the user's sentences (real activations of one run)."""
    st.subheader(t("layernorm.batch_title"))
    prose(t("layernorm.batch_text"))
    st.latex(
        r"\text{BatchNorm: } \mu_j = \tfrac{1}{N}\sum_{b,t} x_{b,t,j} \qquad "
        r"\text{LayerNorm: } \mu_{b,t} = \tfrac{1}{d_{model}}\sum_{j} x_{b,t,j}"
    )
    batch = more_sentences(ctx.bundle, ctx.text, t("layernorm.more_label", n=MAX_SENTENCES - 1), t("layernorm.more_help"), 100)
    report_lines(batch)  # per sentence, numbered from 2 (the text box is sentence 1): controls, truncation, unknown
    if not batch.ok:
        st.info(t("layernorm.batch_too_few"))
        return
    stack = text_stack(ctx.bundle)
    sites = norm_sites(ctx.bundle.model.hook_names, stack)
    options = [stack_input(stack)] + [s.hook_in for s in sites if s.layer is not None]
    labels = dict(zip(options, [t("layernorm.point_input")] + [site_label(s) for s in sites if s.layer is not None], strict=True))
    keep_valid("ln_batch_site", options)
    where = st.selectbox(t("layernorm.batch_site"), options, format_func=labels.get, key="ln_batch_site")
    contrast = get_layernorm_contrast(ctx.model.key, batch.sentences, where)
    c = contrast.contrast
    left, right = st.columns(2)
    left.metric(t("layernorm.m_batch_mean"), f"{c.batch_mean_change:.3f}", help=t("layernorm.m_max_help"))
    left.metric(t("layernorm.m_batch_mean_pad"), f"{c.batch_mean_change_pad:.3f}", help=t("layernorm.m_max_help"))
    right.metric(t("layernorm.m_bn_out"), f"{c.bn_output_change:.3f}", help=t("layernorm.m_max_help"))
    right.metric(t("layernorm.m_ln_stats"), f"{c.ln_stats_change:.3f}", help=t("layernorm.m_max_help"))
    words = contrast_text()
    show_figure(batch_mean_figure(c, FEATURES_SHOWN, words), "ln_batch_mean")
    show_figure(sentence_one_figure(c, contrast.feature, words), "ln_s1")
    prose(t("layernorm.batch_conclusion"))


ctx = start_page("layernorm")
rmsnorm_section(ctx.bundle, ctx.text)  # an RMSNorm model: RMSNorm beside LayerNorm, on the text
network_section(ctx)
position_section(ctx)
batch_section(ctx)
