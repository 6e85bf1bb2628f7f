"""A translated choice kept in the URL by its code, not its label.

A widget bound with `bind="query-params"` stores what it shows; a translated label would stop
matching after a language switch (see `ui.sidebar`). So the code is synced by hand, as
`ui.head_picker.kind_picker` does for the attention kind: read once into session state, written
back after the widget, left out of the URL while it is the default.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from ui.labels import keep_valid


def seed_choice(key: str, options: Sequence[str], default: str) -> None:
    """Before the widget renders: its value from `?key=` when valid, else `default`; a stale value repaired."""
    if key not in st.session_state:
        st.session_state[key] = st.query_params.get(key) if st.query_params.get(key) in options else default
    keep_valid(key, list(options), default)


def write_choice(key: str, value: str, default: str) -> None:
    """After the widget: `?key=value`, or no parameter while the default is chosen (links stay short)."""
    if value == default:
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = value
