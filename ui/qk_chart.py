"""The map of queries and keys as a chart, shared by the corpus page and the class's sentences (the lesson's class
mode): its caption naming the projection and what it keeps, the figure, and the point a click picked."""

from __future__ import annotations

import streamlit as st

from runs.qk_map import QKMap
from ui.charts import show_figure
from ui.i18n import t
from viz.atlas_figures import MapText, qk_figure


def _share(x: float) -> str:
    return f"{100 * x:.0f} %"


def map_words() -> MapText:
    return MapText(t("atlas.map_queries"), t("atlas.map_keys"), t("atlas.map_user"), "", "", t("atlas.map_sentence"))


def draw_map(qk: QKMap, name: str, key: str) -> object:
    """The map's caption and figure; returns the chart's event (a selection names a sentence)."""
    words = map_words()
    x, y = qk.projection.explained
    words = MapText(
        words.queries,
        words.keys,
        words.user,
        t("atlas.map_axis", i=1, share=_share(x)),
        t("atlas.map_axis", i=2, share=_share(y)),
        words.sentence,
        t("bytes.hover"),
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
    fig = qk_figure(qk.xy, qk.is_query, qk.tokens, qk.sentence, qk.user, qk.texts, words, raw=qk.hex)
    return show_figure(fig, name, key=key, on_select="rerun", selection_mode="points", html=False)


def picked_sentence(event: object) -> tuple[int, str] | None:
    """(sentence index, token) of the clicked point, or None."""
    try:
        point = event.selection.points[0]  # type: ignore[attr-defined]
        return int(point["customdata"][0]), str(point["customdata"][1])
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        return None
