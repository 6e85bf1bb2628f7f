"""Explanatory prose that gives way to the figures on a projector.

A lab page explains before it shows; on a 1280 × 720 projector, with type at 22 px, a paragraph of
five lines pushes the chart it explains below the fold. `prose` writes the text as-is normally and,
in projector mode, folds a long text into a collapsed expander the teacher opens when the class
needs it. Short captions and one-line notes should stay `st.caption` / `st.markdown`.
"""

from __future__ import annotations

import unicodedata

import streamlit as st

from ui.i18n import t
from ui.projector import projector_on

FOLD_WIDTH = 160  # display width (a CJK character counts 2) above which projector mode folds: ~2 lines at 22 px


def display_width(text: str) -> int:
    """Width of `text` in half-width cells: a Chinese character is as wide as two Latin letters on screen,
    so one threshold fits both languages."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def folds(markdown_text: str) -> bool:
    """Whether `prose` folds this text now (projector mode on and the text longer than FOLD_WIDTH)."""
    return projector_on() and display_width(markdown_text) > FOLD_WIDTH


def prose(markdown_text: str, *, label: str | None = None) -> None:
    """Write `markdown_text` (trusted catalog markdown) with `st.markdown`; in projector mode a long text
    goes into a collapsed expander labelled `label` (default: the translated "Read the explanation")."""
    if folds(markdown_text):
        with st.expander(label or t("prose.more"), icon=":material/notes:"):
            st.markdown(markdown_text)
    else:
        st.markdown(markdown_text)
