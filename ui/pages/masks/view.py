"""Rendering blocks of the Masks page: translated labels in, `viz` figures out, shown with export.

Each function is one block of the page, so the page script reads as the lesson's outline.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.errors import StreamlitAPIException

from hook_names import ordinal
from runs.causal_claims import generation_claim
from runs.causal_view import CausalSummary, CausalTarget
from runs.claim import Claim
from transformer.probes.causal import CausalExperiment
from ui import charts
from ui.figure_words import mask_text
from ui.head_picker import kind_name
from ui.i18n import t
from ui.model_words import first_row_example
from viz.mask_figures import batch_heatmap, binary_heatmap
from viz.masked_scores import pattern_figure, score_steps, steps_figure
from viz.masks import MaskBatch, key_padding_matrix
from viz.tokens import Labels, TokenAxis, as_axis, attention_axes, byte_pieces, visible_token
from viz.trace import TraceData

# Widths (px) the figures are laid out for: their column at a 1280 px wide window (projector), so
# cell numbers are only drawn where they fit there (wider windows only give them more room).
FULL_WIDTH, HALF_WIDTH = 800, 390
AHEAD_COLOUR, CHANGED_COLOUR = "#fde9b6", "#f9c8c8"  # table cells: looks ahead / prediction changed


def show_figure(fig: go.Figure, name: str) -> None:
    """A figure stretched to its column under the key `name` (the page's tests address charts by it)."""
    charts.show_figure(fig, name, key=name)


def show_batch(view: MaskBatch) -> None:
    """The padded batch as tables of tokens (pad cells grey): encoder input, then decoder input."""
    words = mask_text()
    if view.has_source:
        show_figure(
            batch_heatmap(
                view.src_tokens, view.src_padding, replace(words, title=t("masks.batch_src")), raw=view.raw_rows("src")
            ),
            "batch_source",
        )
        if len(set(view.lengths("src"))) == 1:
            st.info(t("masks.same_length"))
    if not view.has_decoder:
        return
    title = t("masks.batch_tgt" if view.has_source else "masks.batch_tgt_decoder")
    show_figure(
        batch_heatmap(view.tgt_tokens, view.tgt_padding, replace(words, title=title), raw=view.raw_rows("tgt")), "batch_target"
    )


def rows_note(view: MaskBatch, row: int) -> None:
    """The one sentence that says why decoder rows are labelled by what they write, with sentence `row`'s first row."""
    st.caption(t("masks.rows_write", example=first_row_example(as_axis(view.query_labels(row)))))


def mask_matrices(view: MaskBatch, row: int) -> None:
    """Sentence `row`'s padding, causal, combined decoder and cross masks, two per line; decoder query
    rows named by the token each position writes (`MaskBatch.query_labels`)."""
    tgt, queries = view.key_labels("tgt", row), view.query_labels(row)
    words, common = mask_text(), {"width_hint": HALF_WIDTH}
    figures = []
    if view.has_source:
        src = view.key_labels("src", row)
        figures.append(
            (
                "mask_padding",
                binary_heatmap(
                    view.encoder_self[row],
                    row_tokens=src,
                    col_tokens=src,
                    text=replace(words, title=t("masks.padding_title_encoder")),
                    **common,
                ),
            )
        )
    else:
        figures.append(
            (
                "mask_padding",
                binary_heatmap(
                    key_padding_matrix(view.tgt_padding[row]),
                    row_tokens=queries,
                    col_tokens=tgt,
                    text=replace(words, title=t("masks.padding_title_decoder")),
                    **common,
                ),
            )
        )
    if not view.has_decoder:  # an encoder-only model: the padding mask is its only one
        show_figure(figures[0][1], figures[0][0])
        return
    figures.append(
        (
            "mask_causal",
            binary_heatmap(
                view.causal, row_tokens=queries, col_tokens=tgt, text=replace(words, title=t("masks.causal_title")), **common
            ),
        )
    )
    figures.append(
        (
            "mask_decoder",
            binary_heatmap(
                view.decoder_self[row],
                row_tokens=queries,
                col_tokens=tgt,
                text=replace(words, title=t("masks.combined_title")),
                **common,
            ),
        )
    )
    if view.cross is not None:
        figures.append(
            (
                "mask_cross",
                binary_heatmap(
                    view.cross[row],
                    row_tokens=queries,
                    col_tokens=view.key_labels("src", row),
                    text=replace(words, title=t("masks.cross_title")),
                    **common,
                ),
            )
        )
    for start in range(0, len(figures), 2):
        for col, (name, fig) in zip(st.columns(2), figures[start : start + 2], strict=False):
            with col:
                show_figure(fig, name)


def axes_of(trace: TraceData, kind: str) -> tuple[Labels, Labels]:
    """(query, key) labels of one run's attention `kind`: decoder rows named by what they write."""
    if kind == "encoder" or len(trace.next_tokens) != len(trace.tgt_tokens):
        return TokenAxis(trace.query_tokens(kind), hex=trace.query_hex(kind)), TokenAxis(
            trace.key_tokens(kind), hex=trace.key_hex(kind)
        )
    raw = (trace.src_hex, trace.tgt_hex, trace.next_hex)
    return attention_axes(kind, trace.src_tokens, trace.tgt_tokens, trace.next_tokens, raw)


def _labels(trace: TraceData, kind: str) -> dict[str, object]:
    rows, cols = axes_of(trace, kind)
    return {"row_tokens": rows, "col_tokens": cols}


def show_steps(trace: TraceData, kind: str, layer: int, head: int) -> None:
    """Scores before masking, after masking (blocked = grey "−∞") and after softmax, side by side."""
    steps = score_steps(trace.arrays, kind, layer, head)
    show_figure(
        steps_figure(steps, text=mask_text(), width_hint=FULL_WIDTH, **_labels(trace, kind)),
        f"score_steps_{kind}_{layer}_{head}",
    )
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
        title = t(key, kind=kind_name(kind), layer=ordinal(layer), head=ordinal(head))
        with col:
            show_figure(
                pattern_figure(pattern, text=replace(mask_text(), title=title), width_hint=HALF_WIDTH, **_labels(trace, kind)),
                f"{key.split('.')[1]}_{kind}_{layer}_{head}",
            )


def show_causal(
    experiment: CausalExperiment, target: CausalTarget, summary: CausalSummary, why: Claim, layer: int, head: int
) -> None:
    """Both truths of the causal mask, side by side: greedy generation with and without it, and one
    teacher-forced pass over the target with and without it (rows now look ahead). What the page says of
    either is this sentence's (`runs.causal_claims`); `why` is `training_claim`'s, for this model."""
    generation, forced = st.columns(2)
    with generation:
        st.markdown(f"**{t('masks.causal_generation')}**")
        if experiment.generated_with_mask is None:
            st.info(t("masks.causal_not_generated"))
        else:
            for key, text in (
                ("masks.generated_with", experiment.generated_with_mask),
                ("masks.generated_without", experiment.generated_without_mask),
            ):
                st.caption(t(key))
                st.code(text or "∅", language=None, wrap_lines=True)
            said = generation_claim(experiment)
            if said is not None:
                show = st.warning if experiment.generation_changed else st.success
                icon = ":material/change_circle:" if experiment.generation_changed else ":material/check_circle:"
                show(t(said.key, **said.params), icon=icon)
    with forced:
        st.markdown(f"**{t('masks.causal_forced')}**")
        st.caption(t(f"masks.target_{target.source}{'_' + target.why if target.why else ''}"))
        st.code(experiment.reference, language=None, wrap_lines=True)
        st.markdown(
            t(
                "masks.forced_summary",
                n=summary.positions,
                ahead=summary.looking_ahead,
                weight=f"{summary.max_future_weight:.1%}",
                changed=summary.changed,
                right_with=summary.right_with_mask,
                right_without=summary.right_without_mask,
            )
        )
    _prediction_table(experiment)
    _causal_patterns(experiment, layer, head)
    st.markdown(t(why.key, **why.params))
    with contextlib.suppress(StreamlitAPIException):  # not in the navigation (e.g. this page run alone)
        st.page_link("views/training.py", label=t("masks.training_link"), icon=":material/arrow_forward:")


def _prediction_table(experiment: CausalExperiment) -> None:
    """One row per decoder position: what it reads, should write, and predicts with and without the mask."""
    pct = "{} · {:.0%}".format
    frame = pd.DataFrame(
        {
            t("masks.col_reads"): [visible_token(p.reads) for p in experiment.positions],
            t("masks.col_expected"): [visible_token(p.expected) for p in experiment.positions],
            t("masks.col_with"): [pct(visible_token(p.with_mask), p.p_with_mask) for p in experiment.positions],
            t("masks.col_without"): [pct(visible_token(p.without_mask), p.p_without_mask) for p in experiment.positions],
            t("masks.col_ahead"): [p.future_weight for p in experiment.positions],
        }
    )
    ahead, changed = [p.looks_ahead for p in experiment.positions], [p.changed for p in experiment.positions]

    def colour(column: pd.Series) -> list[str]:
        marks = ahead if column.name == t("masks.col_ahead") else changed if column.name == t("masks.col_without") else []
        paint = AHEAD_COLOUR if column.name == t("masks.col_ahead") else CHANGED_COLOUR
        return [f"background-color: {paint}" if i < len(marks) and marks[i] else "" for i in range(len(column))]

    st.dataframe(
        frame.style.apply(colour),
        key="causal_table",
        hide_index=True,  # the rows are named by what they read; a bare 0, 1, 2 column counted them from 0
        width="stretch",
        column_config={
            t("masks.col_ahead"): st.column_config.ProgressColumn(
                t("masks.col_ahead"), min_value=0.0, max_value=1.0, format="percent", help=t("masks.col_ahead_help")
            )
        },
    )
    st.caption(t("masks.table_legend"))
    tokens = [tok for p in experiment.positions for tok in (p.reads, p.expected, p.with_mask, p.without_mask)]
    hexes = [raw for p in experiment.positions for raw in (p.reads_hex, p.expected_hex, p.with_mask_hex, p.without_mask_hex)]
    pieces = byte_pieces(tokens, hexes)
    if pieces:  # a table cell has no hover: a byte-level piece's raw bytes are listed under it
        st.caption(t("bytes.legend", pieces=" · ".join(pieces)))


def _causal_patterns(experiment: CausalExperiment, layer: int, head: int) -> None:
    """One decoder self-attention head of the teacher-forced pass, with and without the mask."""
    index = experiment.layers.index(layer) if layer in experiment.layers else 0
    shown = experiment.layers[index]
    reads, reads_hex = [p.reads for p in experiment.positions], tuple(p.reads_hex for p in experiment.positions)
    expected, expected_hex = tuple(p.expected for p in experiment.positions), tuple(p.expected_hex for p in experiment.positions)
    rows = TokenAxis(expected, tuple(reads), expected_hex, reads_hex)  # rows: reads → should write, with raw bytes
    for col, patterns, key in zip(
        st.columns(2),
        (experiment.patterns_with_mask, experiment.patterns_without_mask),
        ("masks.forced_with", "masks.forced_without"),
        strict=True,
    ):
        with col:
            show_figure(
                pattern_figure(
                    patterns[index][head],
                    row_tokens=rows,
                    col_tokens=TokenAxis(tuple(reads), hex=reads_hex),
                    text=replace(mask_text(), title=t(key, layer=ordinal(shown), head=ordinal(head))),
                    width_hint=HALF_WIDTH,
                ),
                f"{key.split('.')[1]}_{shown}_{head}",
            )
