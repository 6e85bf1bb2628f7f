"""One click to the translator that reads what the class typed (Chinese typed into an English reader, or back).

A teacher need not know model names: when the typed text's language (`runs.typed_language`) is not the one the
model reads, and a shipped model translates the same data the other way (`transformer.storage.registry.other_direction`),
the page says so under the text box with a button that switches the model and keeps the text.
"""

from __future__ import annotations

import streamlit as st

from runs.typed_language import typed_language
from transformer.storage.registry import other_direction
from ui.i18n import t
from ui.sidebar import MODEL_KEY


def _switch(model_key: str) -> None:
    st.session_state[MODEL_KEY] = model_key  # a callback: runs before the script, so the sidebar shows it at once


def reader_switch(model_key: str, reads: str | None, text: str) -> None:
    """Offer the other-direction model when `text` is in another language than the model `reads` ("en"/"zh")."""
    typed = typed_language(text)
    other = other_direction(model_key)
    if reads is None or typed is None or typed == reads or other is None:
        return
    cols = st.columns([3, 1], vertical_alignment="center")
    cols[0].info(t("reader_switch.note", typed=t(f"reader_switch.language_{typed}"), other=other), icon=":material/translate:")
    cols[1].button(t("reader_switch.button", other=other), key="reader_switch", on_click=_switch, args=(other,), width="stretch")
