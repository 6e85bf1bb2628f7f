"""What every page starts with: title, model picker, text box; and how a run's output is shown."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from runs.reference import ReferenceCheck, check_reference
from runs.validation import TextCheck
from transformer.checkpoint import ModelBundle
from ui.i18n import t
from ui.inputs import text_box
from ui.model_parts import missing_parts_note
from ui.sidebar import ModelChoice, model_picker
from viz.tokens import visible_token
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


def show_reference(check: ReferenceCheck | None) -> None:
    """The task's right output and the verdict, or a warning that the text has no right output."""
    if check is None:
        return
    if check.expected is None:
        st.warning(t("input.out_of_grammar"), icon=":material/help:")
        return
    if check.correct:
        st.success(t("input.correct"), icon=":material/check_circle:")
    else:
        st.error(t("input.wrong"), icon=":material/cancel:")
        st.markdown(f"**{t('input.expected')}**")
        st.code(check.expected, language=None, wrap_lines=True)
    st.caption(t("input.heldout" if check.heldout else "input.maybe_seen"))


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
    missing_parts_note(choice.bundle, section)
    check = text_box(choice.bundle) if needs_text else TextCheck(None)
    return PageContext(choice, check)


def show_run(trace: TraceData, bundle: ModelBundle) -> None:
    """The model's output (and whether it is right) and its tokens, shown literally (never as markdown or HTML)."""
    cols = st.columns(2)
    with cols[0]:
        st.markdown(f"**{t('input.output')}**")
        st.code(trace.output_text or "∅", language=None, wrap_lines=True)
        show_reference(check_reference(bundle, trace))
        if trace.teacher_forced:
            st.caption(t("input.teacher_forced"))
    with cols[1]:
        if trace.src_tokens:
            st.markdown(f"**{t('input.tokens_src')}**")
            st.code(" · ".join(map(visible_token, trace.src_tokens)), language=None, wrap_lines=True)
        st.markdown(f"**{t('input.tokens_tgt')}**")
        st.code(" · ".join(map(visible_token, trace.tgt_tokens)), language=None, wrap_lines=True)
