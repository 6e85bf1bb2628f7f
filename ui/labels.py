"""Labels that follow a language switch: the one mechanism, re-setting a widget's state before it renders.

A widget whose value did not change keeps the label the browser drew (a selectbox's value travels
as its formatted label), so after a language switch it would keep showing the old language.
Assigning the same value through session state before the widget renders makes Streamlit send it
again, with the new label. Widget keys stay stable (never carry the language), so a choice
survives the switch and tests and URLs address a widget by one name.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from ui.i18n import current_language

_SIGNATURE_KEY = "labels_signature"


def keep_valid(key: str, options: Sequence, fallback: object = None) -> None:
    """Before widget `key` renders: re-send its value (so its label is redrawn in the current language),
    or replace a stale one (e.g. layer 5 from a URL, for a 2-layer model) by `fallback` (default: the
    first option). A key not yet in the session is left alone: the widget's own default (or its URL
    parameter) applies."""
    if key in st.session_state:
        value = st.session_state[key]
        st.session_state[key] = value if value in options else (options[0] if fallback is None else fallback)


def relabel_when_changed(signature: tuple, keys: Sequence[str]) -> frozenset[str]:
    """Re-send widgets `keys` once whenever the language or `signature` (e.g. the edited sentences,
    which label a row picker) changes: for widgets that must not be re-set on every run (multiselects,
    the sidebar's model picker). Each set of keys remembers its own signature, so two callers on one
    page (the sidebar and the page) do not re-send each other's widgets on every run.

    Returns the keys whose value was re-sent: a selectbox given its value through state takes no default
    `index` (else Streamlit logs a warning on that run), so its caller passes 0 when its key is among them."""
    signature = (current_language(), *signature)
    remembered = f"{_SIGNATURE_KEY}:{'|'.join(keys)}"
    if st.session_state.get(remembered) == signature:
        return frozenset()
    st.session_state[remembered] = signature
    resent = [key for key in keys if key in st.session_state]
    for key in resent:
        st.session_state[key] = st.session_state[key]
    return frozenset(resent)
