"""Positional encoding (paper §3.4–3.5): the sinusoid table, its waves and wavelengths, why nearby
positions look alike, the relative-position rotation, learned tables, and the user's own tokens
before and after the position is added.

Where the numbers come from: `runs.positional_page`, one call per section (`ui.caches.get_pe_sinusoids`
and, for the offset slider under its figures, `get_pe_relative`; `get_pe_learned`; `get_pe_tokens`).
"""

from __future__ import annotations

import streamlit as st

from runs.model_ref import ModelRef
from runs.modern_page import is_modern
from runs.positional_page import learned_options
from runs.teaching_arrays import sinusoid_table
from ui.caches import get_pe_learned, get_pe_relative, get_pe_sinusoids, get_pe_tokens
from ui.charts import show_figure
from ui.figure_words import positional_text
from ui.i18n import labels_of, t
from ui.labels import keep_valid
from ui.modern_sections import no_position_vector_note, rotary_section
from ui.page import PageContext, start_page
from ui.prose import prose
from viz.embedding_scale import before_after_figure, learned_figure, norms_figure
from viz.positional import MAX_HEATMAP_CELLS, pe_curves, pe_heatmap, similarity_figure, wavelength_figure
from viz.relative_position import relative_figure

MAIN_TOP_PX = 335  # projector mode: where the sinusoid table starts on the first screen (title, input and table controls above)

D_MODEL_OPTIONS = [8, 16, 32, 64, 128, 256, 512, 1024]
DIMS_SHOWN = 32  # dimensions shown in the token × dimension heatmaps and the rotation matrices
PE_FORMULA = (
    r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right) \qquad "
    r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
)


def _table_controls(model_d: int) -> tuple[int, int]:
    cols = st.columns(2)
    d_model = cols[0].select_slider(
        t("positional.d_model"),
        D_MODEL_OPTIONS,
        value=model_d if model_d in D_MODEL_OPTIONS else 64,
        key="pe_d",
        bind="query-params",
        help=t("positional.d_model_help"),
    )
    max_pos = cols[1].slider(
        t("positional.max_pos"), 16, 1024, 100, step=4, key="pe_pos", bind="query-params", help=t("positional.max_pos_help")
    )
    return int(d_model), int(max_pos)


@st.fragment
def table_section(model_d: int, layout: str = "sinusoidal") -> None:
    """The table, chosen dimensions as waves, wavelengths, similarity and the relative-position check.

    `layout`: the model's own sinusoid layout; for Marian's (every sine first, every cosine after) its table is
    drawn too, beside the paper's interleaved one the rest of the section explains."""
    d_model, max_pos = _table_controls(model_d)
    view = get_pe_sinusoids(d_model, max_pos)
    pe, stride = view.pe, view.stride  # (P, d_model)
    words = positional_text()

    show_figure(pe_heatmap(pe, words, stride=stride), "pe_table", top_px=MAIN_TOP_PX)
    if stride > 1:
        st.caption(t("positional.thinned", k=stride, cells=f"{MAX_HEATMAP_CELLS:,}"))
    if layout == "sinusoidal-split":
        st.info(t("positional.split_layout", half=(d_model + 1) // 2), icon=":material/swap_horiz:")
        split = sinusoid_table(max_pos, d_model, layout)  # (P, d_model)
        show_figure(pe_heatmap(split, words, stride=stride), "pe_table_split")
    # the table first (the 1280 × 720 first screen shows it), then the formula and what it means
    st.subheader(t("positional.table_title"))
    st.latex(PE_FORMULA)
    prose(t("positional.why"))
    prose(t("positional.table_text"))

    st.subheader(t("positional.waves_title"))
    prose(t("positional.waves_text"))
    default_dims = [d for d in dict.fromkeys((0, 1, 6, d_model // 2)) if d < d_model]
    dims = st.multiselect(
        t("positional.dims"),
        list(range(d_model)),
        default=default_dims,
        key=f"pe_dims_{d_model}",
        max_selections=8,
        help=t("positional.dims_help"),
    )
    cols = st.columns(2)
    with cols[0]:
        show_figure(pe_curves(pe, dims, words), "pe_waves")
    with cols[1]:
        show_figure(wavelength_figure(d_model, max_pos, dims, words), "pe_wavelengths")
    st.caption(t("positional.wavelength_text"))

    st.subheader(t("positional.similarity_title"))
    prose(t("positional.similarity_text", half=d_model // 2))
    show_figure(similarity_figure(view.similarity, words, stride=view.sim_stride), "pe_similarity")

    st.subheader(t("positional.relative_title"))
    prose(t("positional.relative_text"))
    st.latex(
        r"\begin{pmatrix} PE_{(pos+k,\,2i)} \\ PE_{(pos+k,\,2i+1)} \end{pmatrix} = "
        r"\begin{pmatrix} \cos \omega_i k & \sin \omega_i k \\ -\sin \omega_i k & \cos \omega_i k \end{pmatrix}"
        r"\begin{pmatrix} PE_{(pos,\,2i)} \\ PE_{(pos,\,2i+1)} \end{pmatrix}, \quad \omega_i = 10000^{-2i/d_{model}}"
    )
    k = st.slider(t("positional.offset"), 1, min(64, max_pos - 2), 3, key="pe_k", bind="query-params")
    check = get_pe_relative(d_model, max_pos, k)  # its own call: the offset slider sits under the figures above
    cols = st.columns(3)
    cols[0].metric(t("positional.closed_error"), f"{check.closed_error:.1e}")
    cols[1].metric(t("positional.fitted_error"), f"{check.fitted_error:.1e}")
    cols[2].metric(t("positional.difference"), f"{check.difference:.1e}")
    show_figure(relative_figure(check, DIMS_SHOWN, words), "pe_relative")
    if d_model > DIMS_SHOWN:
        st.caption(t("positional.cropped", n=DIMS_SHOWN, d=d_model))


@st.fragment
def learned_section(ctx: PageContext) -> None:
    """A learned position table beside the sinusoids of the same size."""
    st.subheader(t("positional.learned_title"))
    prose(t("positional.learned_text"))
    options = learned_options(ctx.model.key, ctx.bundle)
    keep_valid("pe_learned", options)
    key = st.selectbox(
        t("positional.learned_model"),
        options,
        key="pe_learned",
        format_func=labels_of({k: t("positional.random_learned") if ModelRef.parse(k).is_random else k for k in options}),
    )
    view = get_pe_learned(key)
    if view is None:  # only reachable if a shipped model's config.json and weights disagree
        st.warning(t("positional.no_learned"))
        return
    show_figure(learned_figure(view.table, view.sinusoid, positional_text()), "pe_learned")


def tokens_section(ctx: PageContext) -> None:
    """The user's tokens: scaled embeddings, PE and their sum, and the sqrt(d_model) scale argument."""
    st.subheader(t("positional.tokens_title"))
    view = get_pe_tokens(ctx.model.key, ctx.text)  # one pass of the stack that reads the text
    scale = view.scale
    d = scale.d_model
    prose(t("positional.tokens_text", stack=t(f"positional.stack_{view.stack}")))
    if not view.has_positions:
        st.info(t("positional.no_pe"))
    words = positional_text()
    show_figure(before_after_figure(scale, DIMS_SHOWN, words), "pe_tokens")
    if d > DIMS_SHOWN:
        st.caption(t("positional.cropped_tokens", n=DIMS_SHOWN, d=d))
    prose(t("positional.scale_text", d=d, sqrt_d=f"{d**0.5:.2f}", pe_norm=f"{(d / 2) ** 0.5:.2f}"))
    st.latex(r"\lVert PE_{pos} \rVert = \sqrt{d_{model}/2}, \qquad x_{pos} = \sqrt{d_{model}}\; E[\text{token}] + PE_{pos}")
    show_figure(norms_figure(scale, words), "pe_norms")


ctx = start_page("positional", text="optional")
rotary_section(ctx.bundle, ctx.text)  # a rotary model: its own positions first, live on the text
no_position_vector_note(ctx.bundle)
table_section(ctx.bundle.config.d_model, ctx.bundle.config.positional)
learned_section(ctx)
if ctx.text is not None and not is_modern(ctx.bundle):  # a rotary model adds no vector to show (note above)
    tokens_section(ctx)
