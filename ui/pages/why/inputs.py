"""The Why page's two sentences, side by side and bound to the URL (`?text=` is the clean one, the same box the other
pages read; `?corrupt=` the corrupted one; `?target=` the target token), with each shipped model's example pair."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from runs.why_page import example_pair
from ui.i18n import t
from ui.url_values import MAX_URL_TEXT_CHARS

CLEAN_KEY = "text"  # the shared text box's key: the clean sentence is the sentence the other pages show
CORRUPT_KEY = "corrupt"
TARGET_KEY = "target"


@dataclass(frozen=True)
class PairInput:
    clean: str
    corrupted: str
    target: str | None  # None: the clean run's token at the measured position


def _use_pair(pair: tuple[str, str]) -> None:
    """Button callback (runs before the script): both boxes take the model's example pair."""
    st.session_state[CLEAN_KEY], st.session_state[CORRUPT_KEY] = pair
    st.session_state[TARGET_KEY] = ""


def _cap(key: str) -> None:
    """A URL text longer than a box holds is cut before its box reads it (`?corrupt=`, `?target=` are not among the
    shared guard's texts)."""
    raw = st.query_params.get(key)
    if raw is not None and len(raw) > MAX_URL_TEXT_CHARS:
        st.query_params[key] = raw[:MAX_URL_TEXT_CHARS]


def pair_input(model_key: str) -> PairInput:
    """The clean and corrupted boxes (the example pair on a first visit) and the target box."""
    pair = example_pair(model_key)
    for key in (CORRUPT_KEY, TARGET_KEY):
        _cap(key)
    first_visit = CLEAN_KEY not in st.session_state and not st.query_params.get(CLEAN_KEY)
    if pair is not None and first_visit and not st.query_params.get(CORRUPT_KEY):
        _use_pair(pair)
    left, right = st.columns(2)
    clean = left.text_input(t("why.clean"), key=CLEAN_KEY, bind="query-params", max_chars=MAX_URL_TEXT_CHARS)
    corrupted = right.text_input(t("why.corrupted"), key=CORRUPT_KEY, bind="query-params", max_chars=MAX_URL_TEXT_CHARS)
    row = st.container(horizontal=True, vertical_alignment="bottom")
    target = row.text_input(t("why.target"), key=TARGET_KEY, bind="query-params", help=t("why.target_help"), max_chars=64)
    if pair is not None:
        row.button(t("why.example_button"), key="why_example", on_click=_use_pair, args=(pair,), width="content")
    else:
        st.caption(t("why.no_example"))
    return PairInput((clean or "").strip(), (corrupted or "").strip(), (target or "").strip() or None)
