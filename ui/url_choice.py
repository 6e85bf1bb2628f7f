"""A translated choice kept in the URL by its code, not its label; a sidebar switch kept in the URL as `?key=1`.

A widget bound with `bind="query-params"` stores what it shows; a translated label would stop
matching after a language switch (see `ui.sidebar`). So the code is synced by hand, as
`ui.head_picker.kind_picker` does for the attention kind: read once into session state, written
back after the widget, left out of the URL while it is the default.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from ui.labels import keep_valid
from ui.url_values import switched_on


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


def switch_requested(key: str) -> bool:
    """Whether switch `key` is on: its widget's value once it has rendered, before that the link's `?key=1`."""
    if key in st.session_state:
        return bool(st.session_state[key])
    return switched_on(st.query_params.get(key))


def url_switch(key: str, label: str, help_text: str) -> bool:
    """A sidebar toggle seeded from `?key=1` and kept in the URL while on (absent while off, links stay short), so
    a copied link keeps it; returns whether it is on."""
    if key not in st.session_state:
        st.session_state[key] = switch_requested(key)
    st.sidebar.toggle(label, key=key, help=help_text)
    if st.session_state[key]:
        st.query_params[key] = "1"
    else:
        st.query_params.pop(key, None)
    return bool(st.session_state[key])
