"""The map of queries and keys: one head's queries and keys over the corpus sentences (and the user's own sentence,
ringed), projected together to 2-D; a click on a point shows its sentence and opens it on the heads page."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from hook_names import ordinal
from runs.atlas_page import heads_query
from runs.qk_map import QKMap
from ui.charts import show_figure
from ui.head_picker import kind_name
from ui.i18n import current_language, t
from ui.pages.atlas.data import get_qk_map
from ui.pages.atlas.head import go_to_heads
from ui.safe import md_literal
from viz.atlas_figures import MapWords, qk_figure

MAP_CHART_KEY = "atlas_qk_chart"


def _share(x: float) -> str:
    return f"{100 * x:.0f} %"


def map_words() -> MapWords:
    return MapWords(t("atlas.map_queries"), t("atlas.map_keys"), t("atlas.map_user"), "", "", t("atlas.map_sentence"))


def draw_map(qk: QKMap, name: str, key: str) -> object:
    """The map's caption and figure; returns the chart's event (a selection names a sentence)."""
    words = map_words()
    x, y = qk.projection.explained
    words = MapWords(
        words.queries,
        words.keys,
        words.user,
        t("atlas.map_axis", i=1, share=_share(x)),
        t("atlas.map_axis", i=2, share=_share(y)),
        words.sentence,
    )
    n_sentences = len(qk.texts) - (1 if qk.user_index is not None else 0)
    st.caption(
        t(
            "atlas.map_caption",
            n=n_sentences,
            points=qk.n_points,
            method=t(f"atlas.map_method_{qk.method}"),
            x=_share(x),
            y=_share(y),
        )
    )
    fig = qk_figure(qk.xy, qk.is_query, qk.tokens, qk.sentence, qk.user, qk.texts, words)
    return show_figure(fig, name, key=key, on_select="rerun", selection_mode="points", html=False)


def picked_sentence(event: object) -> tuple[int, str] | None:
    """(sentence index, token) of the clicked point, or None."""
    try:
        point = event.selection.points[0]  # type: ignore[attr-defined]
        return int(point["customdata"][0]), str(point["customdata"][1])
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        return None


def qk_section(model_key: str, texts: Sequence[str], kind: str, layer: int, head: int, user_text: str | None) -> None:
    """The map for head (kind, layer, head) (0-based) over `texts` and the user's sentence."""
    st.subheader(t("atlas.head_title", kind=kind_name(kind), layer=ordinal(layer), head=ordinal(head)))
    try:
        qk = get_qk_map(model_key, tuple(texts), kind, layer, head, user_text)
    except (ValueError, RuntimeError) as err:
        st.error(t("atlas.map_failed", error=md_literal(err)), icon=":material/error:")
        return
    event = draw_map(qk, "qk_map", MAP_CHART_KEY)
    st.caption(t("atlas.map_user_note") if qk.user_index is not None else t("atlas.map_no_user"))
    picked = picked_sentence(event)
    if picked is not None and 0 <= picked[0] < len(qk.texts):
        text = qk.texts[picked[0]]
        st.markdown(f"{t('atlas.map_picked', token=md_literal(picked[1], code=True))}: {md_literal(text)}")
        params = heads_query(model_key, text, kind, layer, head, current_language())
        st.button(
            t("atlas.open_on_heads"), key="atlas_map_open", icon=":material/open_in_new:", on_click=go_to_heads, args=(params,)
        )
