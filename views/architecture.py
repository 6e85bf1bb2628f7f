"""Architecture overview: Figure 1 of the paper for the current model, with live shapes and links.

Where the numbers come from: one call, `ui.caches.get_architecture_page` → `runs.architecture_page`.
"""

from __future__ import annotations

import streamlit as st

from runs.architecture_page import ArchitecturePage
from ui.caches import get_architecture_page
from ui.charts import show_figure
from ui.figure_words import architecture_text
from ui.i18n import t
from ui.modern_sections import block_section
from ui.page import show_run, start_page
from ui.pretrained import scale_table
from ui.projector import SCREEN_PX, projector_on
from ui.prose import prose
from viz.architecture_figure import architecture_figure, fitted_layout

NORM = {
    "post": r"x_{l+1}=\mathrm{LayerNorm}\big(x_l+\mathrm{Sublayer}(x_l)\big)",
    "pre": r"x_{l+1}=x_l+\mathrm{Sublayer}\big(\mathrm{LayerNorm}(x_l)\big)",
}
DIAGRAM_TOP_PX = 110  # projector mode: where the diagram starts on the first screen (the title alone above it)
FOLD_GAP_PX = 8  # what the diagram leaves of the first screen under it
LINKED_PAGES = ("positional", "heads", "masks", "step_by_step", "layernorm", "feed_forward", "output")
ATTENTION_KIND = {"self_attn": "encoder", "masked_self_attn": "decoder", "cross_attn": "cross"}  # box → heads ?kind=


def _switch(page: str, **params: str) -> None:
    """Open `views/<page>.py` with URL `params`."""
    for key in params:  # the target page's picker would keep a value left in the session over the URL's
        st.session_state.pop(key, None)
    st.switch_page(f"views/{page}.py", query_params=params or None)


def _diagram(page: ArchitecturePage) -> None:
    """The figure; clicking a box opens the page that explains it (attention: the heads page on that kind)."""
    stacks, words = page.stacks, architecture_text(page.config, page.stacks)
    # on a projector its rows are fitted to the first screen (the title above it, the text box under it)
    layout = fitted_layout(stacks, words, SCREEN_PX - DIAGRAM_TOP_PX - FOLD_GAP_PX) if projector_on() else None
    event = show_figure(
        architecture_figure(stacks, words, page.config.n_layers, layout),
        "architecture",
        on_select="rerun",
        selection_mode="points",
    )
    if layout is not None and not layout.shapes:  # one-line boxes too narrow for name and shape
        st.caption(t("architecture.shapes_hover"))
    points = event.selection.points if event else []
    boxes = {b.id: b for bs in stacks.values() for b in bs}
    box = boxes.get(points[0].get("customdata")) if points else None
    if box is None:
        return
    if box.component in ATTENTION_KIND:
        _switch("heads", kind=ATTENTION_KIND[box.component])
    elif box.pages:
        _switch(box.pages[0])


def _links(page: ArchitecturePage) -> None:
    st.subheader(t("architecture.links"))
    words, stacks = architecture_text(page.config, page.stacks), page.stacks
    for page in LINKED_PAGES:  # one row per page: the link, then what it shows (never truncated)
        parts = dict.fromkeys(words.name(b) for bs in stacks.values() for b in bs if page in b.pages)
        link, shows = st.columns([2, 5], vertical_alignment="center")
        with link:
            st.page_link(f"views/{page}.py", label=t(f"nav.{page}"), icon=":material/arrow_forward:")
        shows.caption(t("architecture.links_parts", parts=t("architecture.list_sep").join(parts)))


def _parameters(page: ArchitecturePage) -> None:
    st.subheader(t("architecture.params"))
    prose(t("architecture.params_explain"))
    groups = page.parameters
    total = page.total_parameters or 1
    st.table(
        {
            t("architecture.params_component"): [t(f"architecture.param_{g}") for g, _ in groups],
            t("architecture.params_count"): [f"{n:,}" for _, n in groups],
            t("architecture.params_share"): [f"{100 * n / total:.1f}%" for _, n in groups],
        }
    )
    st.caption(t("architecture.params_total", n=f"{total:,}"))


ctx = start_page("architecture", figure_first=True)
page = get_architecture_page(ctx.model.key, ctx.text)
config, trace = page.config, page.trace
# The diagram first (the 1280 × 720 first screen shows it: on a projector right under the title, the text box
# under it); what it means and the run's output under it.
with ctx.top:
    _diagram(page)
src = t("architecture.shapes_src", n=len(trace.src_tokens)) if trace.src_tokens else ""
scale_table(ctx.bundle)  # a pretrained model's real sizes beside the shipped toy's
block_section(ctx.bundle)  # a Llama / Qwen-style model: its real block beside the paper's
st.caption(
    t(
        "architecture.shapes_note",
        src=src,
        tgt=len(trace.tgt_tokens),
        d_model=config.d_model,
        heads=config.n_heads,
        d_k=config.d_k,
        n=config.n_layers,
    )
)
if config.is_encoder_only:
    prose(t("encoder_only.architecture"))
else:
    prose(t("architecture.explain_encoder_decoder" if config.is_encoder_decoder else "architecture.explain_decoder_only"))
st.latex(NORM[config.norm_position])
prose(t(f"architecture.explain_{config.norm_position}"))
show_run(trace, ctx.bundle)
_links(page)
_parameters(page)
