"""Why this word? The two sentences side by side with the one-sentence verdict, activation patching (residual stream
and heads), the logit lens and direct logit attribution, and the export of every number.

Where the numbers come from: `runs.why_page` (the probes in `transformer.probes.lens`, `.patching`, `.attribution`);
the sweep with its progress bar and Cancel is `ui.pages.why.sweep`; the lens and attribution of the clean sentence
are cached per (model, sentence, position) below.
"""

import streamlit as st

from hook_names import ordinal
from runs.why_page import ProbeRefusal, SentenceView, export_arrays, export_csv, sentence_view
from ui.caches import get_bundle
from ui.charts import show_figure
from ui.export import npz_bytes
from ui.i18n import labels_of, t
from ui.page import section, start_page
from ui.pages.why.inputs import pair_input
from ui.pages.why.labels import component_labels, head_label, lens_labels, module_short, residual_labels
from ui.pages.why.sweep import patching
from ui.prose import prose
from viz.tokens import visible_token
from viz.why_figures import AttributionText, LensText, PatchText, dla_figure, heads_figure, lens_figure, residual_figure

WHY_HEADS_TOP_PX = 340  # where the heads' map starts on a 1280 × 720 projector (measured): it is fitted below it


def refusal(err: ValueError) -> None:
    """A refused input, in the reader's language (never a traceback)."""
    if isinstance(err, ProbeRefusal):
        st.warning(t(f"why.refuse_{err.key}", **err.values), icon=":material/block:")
    else:
        st.warning(t("why.refuse_other", reason=str(err)), icon=":material/block:")


@st.cache_resource(show_spinner=False, max_entries=32)
def get_sentence(model_key: str, text: str, position: int | None) -> SentenceView:
    return sentence_view(get_bundle(model_key), text, position)


def tokens_line(label: str, tokens: list[str], marked: set[int]) -> str:
    """A run's tokens on one line, the ones that differ from the other sentence's in bold."""
    shown = [f"**{visible_token(tok)}**" if i in marked else visible_token(tok) for i, tok in enumerate(tokens)]
    return f"{label}: " + " · ".join(shown)


ctx = start_page("why", text="none")
config = ctx.bundle.config
if config.is_encoder_only:
    st.info(t("why.bert_note"), icon=":material/info:")

# 1. The two sentences, side by side, and the verdict.
section(1, "why.pair_header")
# The verdict and the map of the heads that carry it come first, above the sentences they were measured on: on a
# 1280 × 720 projector they are what the class sees without scrolling (the boxes and token lines follow).
headline = st.container()
pair_in = pair_input(ctx.model.key)
if not pair_in.clean:
    st.info(t("why.refuse_empty"))
    st.stop()
pair = None
position = None
if not pair_in.corrupted:
    st.info(t("why.need_corrupted"))
else:
    try:
        clean_view = get_sentence(ctx.model.key, pair_in.clean, None)
    except ValueError as err:
        refusal(err)
        st.stop()
    options: list[int | None] = [None, *range(1, len(clean_view.written) + 1)]
    labels = {None: t("why.position_auto")} | {
        i: t("why.position_option", n=i, token=visible_token(clean_view.written[i - 1])) for i in options if i is not None
    }
    position = st.selectbox(t("why.position"), options, key="why_position", format_func=labels_of(labels))
    try:
        pair = patching(ctx.model.key, pair_in.clean, pair_in.corrupted, position, pair_in.target)
    except ValueError as err:
        refusal(err)
    if pair is not None:
        marked = set(pair.differs)
        left, right = st.columns(2)
        with left:
            st.markdown(f"**{t('why.clean_short')}**")
            st.markdown(tokens_line(t("why.reads"), pair.clean_inputs, marked))
            st.markdown(tokens_line(t("why.writes"), pair.clean_written, {pair.position - 1}))
        with right:
            st.markdown(f"**{t('why.corrupted_short')}**")
            st.markdown(tokens_line(t("why.reads"), pair.corrupted_inputs, marked))
            st.markdown(tokens_line(t("why.writes"), pair.corrupted_written, {pair.position - 1}))
        pairs = ", ".join(
            f"“{visible_token(pair.clean_inputs[i])}” → “{visible_token(pair.corrupted_inputs[i])}”" for i in pair.differs
        )
        st.caption(t("why.differ", n=len(pair.differs), pairs=pairs))
        if config.has_decoder:
            st.caption(t("why.teacher_forced"))
        module, head, restored = pair.best_head()
        with headline:
            st.success(
                t(
                    "why.verdict",
                    head=head_label(module, head),
                    pct=f"{restored:.0%}",
                    target=visible_token(pair.target),
                    foil=visible_token(pair.foil),
                    position=pair.position,
                ),
                icon=":material/lightbulb:",
            )
            best_module = pair.modules.index(module)
            heads_fig = heads_figure(
                pair.heads,
                [module_short(m) for m in pair.modules],
                [str(ordinal(h)) for h in range(pair.heads.shape[1])],
                (best_module, head),
                PatchText(t("why.heads_title"), t("why.head_axis")),
            )
            show_figure(heads_fig, "why_heads", top_px=WHY_HEADS_TOP_PX)

# 2. Patching.
if pair is not None:
    section(2, "why.patch_header")
    prose(t("why.patch_explain"))
    st.markdown(
        t(
            "why.metric",
            position=pair.position,
            target=visible_token(pair.target),
            foil=visible_token(pair.foil),
            clean=f"{pair.clean_diff:.2f}",
            corrupted=f"{pair.corrupted_diff:.2f}",
        )
    )
    row, pos, value = pair.best_point()
    token = visible_token(pair.stream_tokens[pos])
    key = "why.verdict_point_embeddings" if row == 0 else "why.verdict_point"
    st.caption(t(key, layer=ordinal(row), token=token, pct=f"{value:.0%}"))
    resid_fig = residual_figure(
        pair.residual,
        residual_labels(pair.residual.shape[0]),
        [visible_token(s) for s in pair.stream_tokens],
        (row, pos),
        PatchText(t("why.residual_title"), bytes=t("bytes.hover")),
        pair.stream_hex,
    )
    show_figure(resid_fig, "why_residual")
    position = pair.position

# 3. The logit lens of the clean sentence.
section(3 if pair is not None else 2, "why.lens_header")
prose(t("why.lens_explain"))
try:
    view = get_sentence(ctx.model.key, pair_in.clean, position)
except ValueError as err:
    refusal(err)
    st.stop()
lens = view.lens
st.markdown(t("why.lens_of", position=lens.position, token=visible_token(lens.token)))
per = st.segmented_control(
    t("why.lens_reads"),
    ["layers", "sublayers"],
    default="layers",
    key="why_lens_reads",
    format_func=lambda v: t(f"why.lens_{v}"),
)
keep = [i for i, end in enumerate(lens.layer_end) if end or per != "layers"]
read_labels = lens_labels(lens, per_layer=per != "sublayers")
lens_fig = lens_figure(
    [read_labels[i] for i in keep],
    lens.p_token[keep],
    [visible_token(lens.top_tokens[i][0]) for i in keep],
    LensText(
        title=t("why.lens_title"),
        y_title=t("why.lens_y", token=visible_token(lens.token)),
        top=t("bytes.lens_top"),
        bytes=t("bytes.hover"),
    ),
    [lens.top_hex[i][0] if lens.top_hex else "" for i in keep],
)
show_figure(lens_fig, "why_lens")
st.caption(t("why.lens_last", token=visible_token(lens.token), p=f"{lens.p_token[-1]:.3f}"))

# 4. Direct logit attribution.
section(4 if pair is not None else 3, "why.dla_header")
if view.attribution is None:
    if view.attribution_refused is not None:
        refusal(view.attribution_refused)
else:
    shares = view.attribution
    prose(t("why.dla_explain", token=visible_token(shares.token), position=shares.position))
    names = component_labels(shares)
    dla_fig = dla_figure(
        names,
        shares.shares,
        AttributionText(
            title=t("why.dla_title", token=visible_token(shares.token)),
            x_title=t("why.dla_x"),
            rest=t("why.dla_rest", n=max(0, len(names) - 12)),
        ),
    )
    show_figure(dla_fig, "why_dla")
    st.caption(t("why.dla_sum", total=f"{shares.total:.4f}", logit=f"{shares.logit:.4f}"))

# 5. Export.
section(5 if pair is not None else 4, "why.export_header")
arrays, string_labels = export_arrays(pair, view)
cols = st.columns(2)
with cols[0]:
    st.download_button(
        t("why.export_npz"),
        data=lambda: npz_bytes(arrays, **string_labels),
        file_name="why.npz",
        mime="application/octet-stream",
        on_click="ignore",
        key="why_npz",
        icon=":material/download:",
    )
with cols[1]:
    st.download_button(
        t("why.export_csv"),
        data=lambda: export_csv(pair, view).encode("utf-8"),
        file_name="why.csv",
        mime="text/csv",
        on_click="ignore",
        key="why_csv",
        icon=":material/download:",
    )
st.caption(t("why.export_figures"))
