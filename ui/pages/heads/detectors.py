"""The head-detector section of the Attention-heads page: a layer × head grid per score, the top
heads marked, a one-line meaning per score, and the full table.

Scores come from `runs.head_detectors` (a repeated random sequence, and the task's held-out
sentences for source alignment), cached once per model: they do not depend on the page's text.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from hook_names import ordinal
from runs.claim import Claim
from runs.detector_claims import alignment_claim, none_marked_claim
from transformer.probes.head_scores import DETECTOR_SCORE_NAMES, INDEX_SCORE_NAMES, HeadScores
from transformer.storage.checkpoint import ModelBundle
from ui.caches import get_bundle, get_detectors, working
from ui.charts import show_figure
from ui.figure_words import detector_text
from ui.i18n import t
from ui.kind_tabs import open_kind_tab
from ui.model_words import alignment_verb
from viz.detector_figure import DetectorText, detector_figure, marked_heads


@st.cache_resource(max_entries=64, show_spinner=False)
def _scores_figure(model_key: str, kind: str, text: DetectorText) -> go.Figure:
    """The scores figure of one model and kind in one language, built once and shared by every session.

    It depends on the model only, yet the page reruns on every sentence a student types: rebuilt each
    time (a subplot per score), it was a third of a 10-student classroom's server CPU (benchmarks §8).
    The figure is only read afterwards (`show_figure` enlarges a copy in projector mode).
    """
    return detector_figure(get_detectors(model_key).scores[kind], text)


def _meanings(scores: HeadScores, verb: str) -> None:
    """What each score measures; `verb`: what a written token does to its aligned input token (the task's)."""
    lines = (f"- **{t(f'detectors.name_{name}')}** — {t(f'detectors.meaning_{name}', verb=verb)}" for name in scores.names)
    st.markdown("\n".join(lines))


def say(claim: Claim) -> str:
    """A claim in the reader's language: layers and heads counted from 1, a score named in words."""
    params = dict(claim.params)
    for key in ("layer", "head"):
        if key in params:
            params[key] = ordinal(int(params[key]))
    if "name" in params:
        params["name"] = t(f"detectors.name_{params['name']}")
    return t(claim.key, **params)


def _top_heads(bundle: ModelBundle, scores: HeadScores) -> None:
    marks = marked_heads(scores)
    lines = [
        t(
            "detectors.top_line",
            name=t(f"detectors.name_{name}"),
            heads=", ".join(
                t("detectors.head_at", layer=ordinal(layer), head=ordinal(head), score=f"{scores.score(name)[layer, head]:.2f}")
                for layer, head in marks[name]
            ),
        )
        for name in scores.names
        if marks[name]
    ]
    st.markdown("\n".join(f"- {line}" for line in lines) if lines else say(none_marked_claim(bundle, scores)))


def _table(scores: HeadScores, kind: str) -> None:
    names = {name: t(f"detectors.name_{name}") for name in scores.names}
    n_layers, n_heads = scores.scores.shape[1:]
    rows = [
        {
            t("heads.layer"): ordinal(layer),
            t("heads.head"): ordinal(head),
            **{names[name]: float(scores.score(name)[layer, head]) for name in scores.names},
        }
        for layer in range(n_layers)
        for head in range(n_heads)
    ]
    st.dataframe(
        rows,
        hide_index=True,
        key=f"detectors_table_{kind}",
        column_config={label: st.column_config.NumberColumn(format="%.2f") for label in names.values()},
    )


def head_detectors(model_key: str, default: str | None = None) -> None:
    """Render the section for the model `model_key` (the page's `ctx.model.key`), one tab per attention
    kind, `default` open at first (only the open tab is built: `ui.kind_tabs`)."""
    st.header(t("detectors.header"))
    with working(t("detectors.running"), get_detectors, model_key):
        table = get_detectors(model_key)
    st.caption(t("detectors.caption", n=table.half))
    kind, tab = open_kind_tab(list(table.kinds), "detectors_tab", default=default)
    scores = table.scores[kind]
    with tab:
        fig = _scores_figure(model_key, kind, detector_text(DETECTOR_SCORE_NAMES))
        show_figure(fig, f"head-detectors-{kind}", key=f"detectors_{kind}", html=False)
        _top_heads(get_bundle(model_key), scores)
        if kind == "cross":
            shown = [name for name in INDEX_SCORE_NAMES if name in DETECTOR_SCORE_NAMES]
            dropped = t("architecture.list_sep").join(t(f"detectors.name_{name}") for name in shown)
            st.caption(t("detectors.cross_scores", names=dropped))
            st.caption(say(alignment_claim(get_bundle(model_key), table)))
        with st.expander(t("detectors.meanings_header"), expanded=False):
            _meanings(scores, alignment_verb(get_bundle(model_key)))
        with st.expander(t("detectors.table_header"), expanded=False):
            _table(scores, kind)
    if "cross" not in table.kinds:
        st.caption(t("detectors.no_cross"))
