"""One tab per attention kind, of which only the open one is built.

Streamlit sends the contents of every tab on every rerun although a reader sees one. On the heads
page that meant three kinds × (grid, importance and detector figures) built and serialized for each
sentence a student typed: a third of a classroom server's CPU (benchmarks §8). A keyed tab container
with `on_change` knows which tab is open (`.open`) and reruns the page when another is chosen, so
the hidden tabs can stay empty until then.

The tab container's state is the open tab's label, which a language switch makes stale; the open
kind is also kept by name (`<key>_kind`), so the same tab stays open in the other language.

A model with one kind (GPT-2: decoder self-attention; BERT: encoder self-attention) gets its kind's name and no tab
bar: there is nothing to switch to, and a tab panel is not free in the browser. Streamlit's tab panel checks for a
focusable child after every change inside it, and each check makes the browser recompute the page's styles; while
plotly drew a GPT-2-sized page's grid and detector charts that took 0.15-0.2 s of its time from Enter to painted
(median of five texts, `benchmarks.pretrained_scale --browser`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui.head_picker import kind_name


def open_kind_tab(
    kinds: Sequence[str],
    key: str,
    *,
    default: str | None = None,
    on_change: Callable[..., None] | str = "rerun",
    args: tuple[Any, ...] = (),
) -> tuple[str, DeltaGenerator]:
    """Draw one tab per kind (labels in the UI language) and return (kind, container) of the open one; a single
    kind is named above its container instead.

    Args:
        key: the tabs' widget key; the open tab is its session state (a label: after a language switch
            the stored label is another language's, and the tabs reopen the kind last open).
        default: the kind open at first (default: the first kind).
        on_change: "rerun" or a callback (run before the rerun, with `args`).
    """
    if len(kinds) == 1:  # one kind: its name, no tab bar (module docstring)
        st.markdown(f"**{kind_name(kinds[0])}**")
        st.session_state[f"{key}_kind"] = kinds[0]
        return kinds[0], st.container()
    labels = {kind_name(kind): kind for kind in kinds}
    last_open = st.session_state.get(f"{key}_kind")
    if st.session_state.get(key) not in labels:  # first run, or labels of another language
        st.session_state.pop(key, None)
        default = last_open if last_open in kinds else default  # a language switch keeps the open tab
    first = kind_name(default if default in kinds else kinds[0])
    tabs = st.tabs(list(labels), key=key, default=first, on_change=on_change, args=args)
    opened = next(((kind, tab) for tab, kind in zip(tabs, kinds, strict=True) if tab.open), (kinds[0], tabs[0]))
    st.session_state[f"{key}_kind"] = opened[0]
    return opened  # (the fallback is not reached: a keyed tab container always has one open tab)
