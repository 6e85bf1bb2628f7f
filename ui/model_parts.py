"""One line under a page's title saying which parts of the Transformer the current model does not have.

A decoder-only model has no encoder: no encoder self-attention, no cross-attention, no source
padding mask. Each page says what that means for what it shows (catalog `parts.<section>`); a page
without such a line (its own text already says it) shows nothing. An encoder-only model (BERT) has no
decoder: no masked self-attention, no cross-attention, no generation (catalog `encoder_only.<section>`).
"""

from __future__ import annotations

import streamlit as st

from transformer.storage.checkpoint import ModelBundle
from ui.i18n import t


def missing_parts_note(bundle: ModelBundle, section: str) -> None:
    """For a decoder-only or encoder-only model, the page's note on what it lacks (if the page has one)."""
    catalog = "encoder_only" if bundle.config.is_encoder_only else "parts"
    key = f"{catalog}.{section}"
    if bundle.config.is_encoder_decoder or t(key) == key:
        return
    st.caption(t(key), help=t(f"{catalog}.help"))
