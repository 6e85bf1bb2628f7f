"""A button that runs the same sentence through the model with the other architecture.

The translators come in two architectures (`transformer.storage.registry.COUNTERPARTS`): the paper's
encoder–decoder, whose decoder reads the source through cross-attention, and a GPT-style decoder-only
model, whose one stack reads the source as the start of its own sequence (self-attention over the
prompt). One click keeps the text and swaps the model, so a class sees the same reading done both ways.
"""

from __future__ import annotations

import streamlit as st

from transformer.storage.registry import counterpart
from ui.i18n import t
from ui.sidebar import MODEL_KEY


def _switch(model_key: str) -> None:
    st.session_state[MODEL_KEY] = model_key  # a callback: runs before the script, so the sidebar shows it at once


def counterpart_button(model_key: str, encoder_decoder: bool) -> None:
    """Nothing for a model without a counterpart."""
    other = counterpart(model_key)
    if other is None:
        return
    st.caption(t("heads.counterpart_from_cross" if encoder_decoder else "heads.counterpart_from_prompt", other=other))
    st.button(
        t("heads.counterpart_button", other=other),
        key="counterpart",
        on_click=_switch,
        args=(other,),
        icon=":material/swap_horiz:",
    )
