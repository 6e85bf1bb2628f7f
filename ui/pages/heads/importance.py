"""Which heads matter, on the heads page: the table of a shipped model, or a measurement on demand.

A shipped model's stored table is read once per process (`ui.caches.get_stored_importance`). An untrained model's is
measured when the user asks (a button and a progress bar: it ablates every head in turn) and kept
in the session, keyed by the model key, so the grid can mark its heads afterwards.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from hook_names import ordinal
from runs import head_importance
from runs.heads import FIRST, Opening
from transformer.probes.importance import HeadImportance
from ui.caches import get_bundle, get_stored_importance
from ui.charts import show_figure
from ui.figure_words import importance_text
from ui.i18n import t
from ui.kind_tabs import open_kind_tab
from viz.head_importance import ImportanceText, importance_figure

_MEASURED_KEY = "heads_importance_measured"  # session: model key → HeadImportance measured on demand


def current_table(model_key: str) -> HeadImportance | None:
    """The stored table, else one measured in this session, else None."""
    return get_stored_importance(model_key) or st.session_state.get(_MEASURED_KEY, {}).get(model_key)


@st.cache_resource(max_entries=64, show_spinner=False)
def _stored_figure(model_key: str, kind: str, n_layers: int, n_heads: int, text: ImportanceText) -> go.Figure:
    """A shipped model's importance figure for one kind in one language, built once and shared by every
    session: it does not depend on the sentence, and a classroom reruns the page on every sentence typed
    (benchmarks §8). A table measured in a session is drawn directly: it is the session's own."""
    view = head_importance.kind_importance(get_stored_importance(model_key), kind, n_layers, n_heads)
    return importance_figure(view, text)


def opening_caption(why: Opening, verb: str = "") -> str:
    """Why the page opened on its head (`runs.heads.opening`, kept in `HeadsPage.opened`), with the numbers
    that make it true for this model: the card's alignment or induction score, and the head's importance row.
    `verb`: what a row's written token does to its aligned input token (`ui.model_words.alignment_verb`)."""
    if why.reason == FIRST:
        return ""
    at = {"layer": ordinal(why.layer), "head": ordinal(why.head)}
    if why.reason == "important" and why.row is not None:
        return t("heads.opened_important", **at, changed=why.row.changed, drop=why.row.logprob_drop)
    if why.score is None:
        text = t("heads.opened_card", **at)
    else:
        text = t(f"heads.opened_{why.reason}", **at, score=why.score, verb=verb)
    if why.row is not None:
        text += " " + t("heads.opened_row", changed=why.row.changed, drop=why.row.logprob_drop)
    return text


def _measure(model_key: str) -> None:
    bar = st.progress(0.0, text=t("heads.importance_progress", done=0, total="…"))

    def progress(done: int, total: int) -> None:
        bar.progress(done / max(total, 1), text=t("heads.importance_progress", done=done, total=total))

    table = head_importance.measure_importance(get_bundle(model_key), progress)
    st.session_state.setdefault(_MEASURED_KEY, {})[model_key] = table
    bar.empty()


def importance_section(
    model_key: str, shapes: dict[str, tuple[int, int]], *, untrained: bool, default: str | None = None
) -> None:
    """The "Heads that matter" section, one tab per attention kind (`shapes`: kind → (layers, heads)), `default`
    open at first (only the open tab is built: `ui.kind_tabs`): explanation and figure, or how to get them (a
    button that measures them, with a progress bar).

    Drawn outside any fragment and before the grid: after a measurement, the same run marks the grid."""
    st.subheader(t("heads.importance_header"))
    bundle = get_bundle(model_key)
    table = current_table(model_key)
    if table is None:
        if untrained:
            st.caption(
                t("heads.importance_random", n=head_importance.RANDOM_SAMPLE_SIZE, chars=head_importance.RANDOM_SAMPLE_MAX_CHARS)
            )
        else:
            st.caption(t("heads.importance_missing", name=bundle.name))
        if not st.button(t("heads.importance_button"), key="heads_importance_measure", icon=":material/science:"):
            return
        _measure(model_key)
        table = current_table(model_key)
    sample = t("heads.importance_sample_random" if table.split == "given" else "heads.importance_sample", n=table.n)
    st.caption(t("heads.importance_explain", sample=sample))
    kind, tab = open_kind_tab(list(shapes), "heads_importance_tab", default=default)
    n_layers, n_heads = shapes[kind]
    view = head_importance.kind_importance(table, kind, n_layers, n_heads)
    with tab:
        if not view.important.any():
            st.info(t("heads.importance_none"))
        words = importance_text()
        if table is get_stored_importance(model_key):
            fig = _stored_figure(model_key, kind, n_layers, n_heads, words)
        else:
            fig = importance_figure(view, words)
        show_figure(fig, f"importance-{kind}", key=f"heads_importance_{kind}", html=False)
