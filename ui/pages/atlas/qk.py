"""The map of queries and keys: one head's queries and keys over the corpus sentences (and the user's own sentence,
ringed), projected together to 2-D; a click on a point shows its sentence and opens it on the heads page."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from hook_names import ordinal
from runs.atlas_page import heads_query
from ui.atlas_data import get_qk_map
from ui.head_picker import kind_name
from ui.i18n import current_language, t
from ui.pages.atlas.head import go_to_heads
from ui.qk_chart import draw_map, picked_sentence
from ui.safe import md_literal

MAP_CHART_KEY = "atlas_qk_chart"


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
