"""The text box every page shares, with its checks shown in the user's language."""

from __future__ import annotations

import streamlit as st

from runs.reference import model_task
from runs.validation import TextCheck, check_text
from transformer.checkpoint import ModelBundle
from ui.i18n import t
from ui.safe import md_literal

TEXT_KEY = "text"
FALLBACK_EXAMPLE = "Hello, 世界!"


def example_text(bundle: ModelBundle) -> str:
    return str(bundle.card.get("example") or FALLBACK_EXAMPLE)


def _use_example(example: str) -> None:
    st.session_state[TEXT_KEY] = example


def text_box(bundle: ModelBundle) -> TextCheck:
    """Render the input (bound to the URL) and report what was wrong with it.

    Returns a TextCheck whose `text` is None when there is nothing to run (empty input).
    """
    example = example_text(bundle)
    if TEXT_KEY not in st.session_state and not st.query_params.get(TEXT_KEY):
        st.session_state[TEXT_KEY] = example
    cols = st.columns([6, 1], vertical_alignment="bottom")
    raw = cols[0].text_input(t("input.label"), key=TEXT_KEY, bind="query-params", placeholder=example,
                             help=t("input.help"))
    cols[1].button(t("input.example"), on_click=_use_example, args=(example,), width="stretch")
    reader = bundle.source_tokenizer or bundle.target_tokenizer
    task = model_task(bundle)
    check = check_text(raw or "", reader, bundle.config.max_len - 1, task.suggest if task else None)
    _report(check)
    return check


def _report(check: TextCheck) -> None:
    if check.removed_controls:
        st.info(t("input.controls_removed", n=check.removed_controls))
    if check.empty:
        st.info(t("input.empty"))
        return
    if check.truncated_to is not None:
        st.warning(t("input.truncated", kept=check.truncated_to, total=check.original_tokens))
    if check.unknown:
        st.warning(t("input.unknown", n=len(check.unknown)))
        st.code("  ".join(check.unknown), language=None)
        for word, close in check.suggestions.items():
            st.caption(t("input.suggest", word=md_literal(word), close=md_literal(", ".join(close))))
