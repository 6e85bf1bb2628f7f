"""Figures kept between a fragment's polls: a poll that brings nothing new re-sends the figure already built.

The training page's live panel polls every second. Rebuilding its figures each time costs the server CPU the
training thread needs on a 2-core machine, so each figure is rebuilt only when what it shows changed (its
`signature`: the frame count, the frame shown, the head, the language).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import plotly.graph_objects as go
import streamlit as st

from ui.i18n import current_language

MEMO_KEY = "figure_memo"  # session state: slot → (signature, figure)


def memo_figure(slot: str, signature: Hashable, build: Callable[[], go.Figure]) -> go.Figure:
    """The figure of `slot`: the one built last if `signature` (plus the UI language) is unchanged, else `build()`."""
    memo = st.session_state.setdefault(MEMO_KEY, {})
    key = (signature, current_language())
    kept = memo.get(slot)
    if kept is None or kept[0] != key:
        kept = memo[slot] = (key, build())
    return kept[1]
