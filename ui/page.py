"""What every page starts with: title, model picker, text box; and how a run's output is shown."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from transformer.checkpoint import ModelBundle
from ui.i18n import t
from ui.inputs import text_box
from ui.sidebar import ModelChoice, model_picker
from ui.validation import TextCheck
from viz.trace import TraceData


@dataclass(frozen=True)
class PageContext:
    model: ModelChoice
    check: TextCheck

    @property
    def bundle(self) -> ModelBundle:
        return self.model.bundle

    @property
    def text(self) -> str | None:
        return self.check.text


def start_page(section: str, *, needs_text: bool = True) -> PageContext | None:
    """Title and intro from catalog `section` ("<section>.title", "<section>.intro"), the model and text.

    Returns None when the page cannot go on (no model could be loaded); a page that needs text
    should also stop when `ctx.text` is None (the text box has already said why).
    """
    st.title(t(f"{section}.title"))
    intro = t(f"{section}.intro")
    if intro != f"{section}.intro":
        st.markdown(intro)
    choice = model_picker()
    if choice is None:
        return None
    check = text_box(choice.bundle) if needs_text else TextCheck(None)
    return PageContext(choice, check)


def show_run(trace: TraceData) -> None:
    """The model's output and its tokens, shown literally (never as markdown or HTML)."""
    cols = st.columns(2)
    with cols[0]:
        st.markdown(f"**{t('input.output')}**")
        st.code(trace.output_text or "∅", language=None, wrap_lines=True)
    with cols[1]:
        if trace.src_tokens:
            st.markdown(f"**{t('input.tokens_src')}**")
            st.code(" · ".join(trace.src_tokens), language=None, wrap_lines=True)
        st.markdown(f"**{t('input.tokens_tgt')}**")
        st.code(" · ".join(trace.tgt_tokens), language=None, wrap_lines=True)
