"""Rendering blocks of the Masks page: translated labels in, `viz` figures out, shown with export.

Each function is one block of the page, so the page script reads as the lesson's outline.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ui import charts
from ui.head_picker import kind_name
from ui.i18n import t
from viz.mask_figures import batch_heatmap, binary_heatmap
from viz.masked_scores import pattern_figure, score_steps, steps_figure
from viz.masks import MaskBatch, key_padding_matrix
from viz.trace import TraceData


def show_figure(fig: go.Figure, name: str) -> None:
    """A figure stretched to its column under the key `name` (the page's tests address charts by it)."""
    charts.show_figure(fig, name, key=name)


def _legend() -> tuple[str, str]:
    return t("masks.allowed"), t("masks.blocked")


def show_batch(view: MaskBatch) -> None:
    """The padded batch as tables of tokens (pad cells grey): encoder input, then decoder input."""
    rows = [t("masks.sentence_n", n=i + 1) for i in range(view.size)]
    legend = (t("masks.legend_token"), t("masks.legend_pad"))
    if view.has_source:
        show_figure(batch_heatmap(view.src_tokens, view.src_padding, row_labels=rows, title=t("masks.batch_src"),
                                  x_title=t("masks.position"), legend=legend), "batch_source")
        if len(set(view.lengths("src"))) == 1:
            st.info(t("masks.same_length"))
    title = t("masks.batch_tgt" if view.has_source else "masks.batch_tgt_decoder")
    show_figure(batch_heatmap(view.tgt_tokens, view.tgt_padding, row_labels=rows, title=title,
                              x_title=t("masks.position"), legend=legend), "batch_target")


def mask_matrices(view: MaskBatch, row: int) -> None:
    """Sentence `row`'s padding, causal, combined decoder and cross masks, two per line."""
    tgt = view.tgt_tokens[row]
    common = {"x_title": t("masks.key"), "y_title": t("masks.query"), "legend": _legend()}
    figures = []
    if view.has_source:
        src = view.src_tokens[row]
        figures.append(("mask_padding", binary_heatmap(view.encoder_self[row], row_tokens=src, col_tokens=src,
                                                       title=t("masks.padding_title_encoder"), **common)))
    else:
        figures.append(("mask_padding", binary_heatmap(key_padding_matrix(view.tgt_padding[row]), row_tokens=tgt,
                                                       col_tokens=tgt, title=t("masks.padding_title_decoder"), **common)))
    figures.append(("mask_causal", binary_heatmap(view.causal, row_tokens=tgt, col_tokens=tgt,
                                                  title=t("masks.causal_title"), **common)))
    figures.append(("mask_decoder", binary_heatmap(view.decoder_self[row], row_tokens=tgt, col_tokens=tgt,
                                                   title=t("masks.combined_title"), **common)))
    if view.cross is not None:
        figures.append(("mask_cross", binary_heatmap(view.cross[row], row_tokens=tgt, col_tokens=view.src_tokens[row],
                                                     title=t("masks.cross_title"), **common)))
    for start in range(0, len(figures), 2):
        for col, (name, fig) in zip(st.columns(2), figures[start : start + 2], strict=False):
            with col:
                show_figure(fig, name)


def _labels(trace: TraceData, kind: str) -> dict[str, object]:
    return {"row_tokens": trace.query_tokens(kind), "col_tokens": trace.key_tokens(kind),
            "x_title": t("masks.key"), "y_title": t("masks.query")}


def show_steps(trace: TraceData, kind: str, layer: int, head: int) -> None:
    """Scores before masking, after masking (blocked = grey "−∞") and after softmax, side by side."""
    steps = score_steps(trace.arrays, kind, layer, head)
    titles = (t("masks.scores_title"), t("masks.masked_title"), t("masks.pattern_title"))
    show_figure(steps_figure(steps, titles=titles, score_label=t("masks.score"), weight_label=t("masks.weight"),
                             blocked_label=t("masks.masked_word"), **_labels(trace, kind)),
                f"score_steps_{kind}_{layer}_{head}")
    if steps.n_blocked == 0:
        st.info(t("masks.no_mask_here", kind=kind_name(kind)))


def show_outputs(before: TraceData, after: TraceData) -> None:
    """The model's output without and with the intervention, side by side, and whether it changed."""
    cols = st.columns(2)
    for col, trace, key in ((cols[0], before, "masks.output_without"), (cols[1], after, "masks.output_with")):
        col.markdown(f"**{t(key)}**")
        col.code(trace.output_text or "∅", language=None, wrap_lines=True)
    if after.output_tokens != before.output_tokens:
        st.warning(t("masks.changed"), icon=":material/change_circle:")
    else:
        st.success(t("masks.unchanged"), icon=":material/check_circle:")


def compare_patterns(before: TraceData, after: TraceData, kind: str, layer: int, head: int) -> None:
    """The chosen head's attention weights without and with the intervention."""
    cols = st.columns(2)
    for col, trace, key in ((cols[0], before, "masks.pattern_before"), (cols[1], after, "masks.pattern_after")):
        pattern = score_steps(trace.arrays, kind, layer, head).pattern
        title = t(key, kind=kind_name(kind), layer=layer, head=head)
        with col:
            show_figure(pattern_figure(pattern, title=title, weight_label=t("masks.weight"), **_labels(trace, kind)),
                        f"{key.split('.')[1]}_{kind}_{layer}_{head}")
