"""The class's own sentences in class mode (issue 38): a student's box to send a sentence for the current step, and
the teacher's view of one chosen head across all of the class's sentences (a small multiple of its patterns, and
the class's tokens in the map of queries and keys), with no student identity anywhere.

Sentences are kept by `runs.class_sentences` (plain text, cut, a few per student, deleted with the class) and shown
inert (`ui.safe.md_literal`; figure titles escaped by `viz.atlas_figures`)."""

from __future__ import annotations

import streamlit as st

from hook_names import ordinal
from runs.class_sentences import MAX_PER_STUDENT, MAX_SENTENCE_CHARS, ClassSentences
from runs.classroom_store import ClassError, ClassState, ClassStore
from runs.text_run import attention_kinds
from ui.atlas_data import get_qk_map, head_pattern
from ui.caches import get_bundle
from ui.charts import show_figure
from ui.head_picker import kind_name, kind_picker, layer_head_picker
from ui.i18n import t
from ui.qk_chart import draw_map
from ui.safe import md_literal
from viz.atlas_figures import MultipleText, small_multiple

INPUT_KEY = "class_sentence_input"
KEYS = ("cs_kind", "cs_layer", "cs_head")  # the teacher's head for the class's sentences (off the URL)


def sentences_of(store: ClassStore) -> ClassSentences:
    """The class's sentences in `store`'s file (their table is the store's own: nothing to make or keep)."""
    return ClassSentences(store)


def _send(store: ClassStore, state: ClassState, student: str) -> None:
    """Form callback: keep the typed sentence, say what happened, empty the box."""
    raw = st.session_state.get(INPUT_KEY, "")
    try:
        sent = sentences_of(store).submit(state.code, student, state.question, raw)
    except ClassError as err:
        reason = str(err.args[0]) if err.args else ""
        key = {"limit": "atlas.class_limit", "bad_answer": "atlas.class_empty"}.get(reason, "atlas.class_failed")
        st.session_state["class_sentence_notice"] = ("warning", t(key, limit=MAX_PER_STUDENT, error=md_literal(reason)))
        return
    message = t("atlas.class_sent") + (" " + t("atlas.class_cut", limit=MAX_SENTENCE_CHARS) if sent.cut else "")
    st.session_state["class_sentence_notice"] = ("success", message)
    st.session_state[INPUT_KEY] = ""


def student_box(store: ClassStore, state: ClassState, student: str) -> None:
    """A student's box for their own sentence (plain text, at most MAX_SENTENCE_CHARS)."""
    with st.form("class_sentence_form", border=False):
        st.text_input(t("atlas.class_submit"), key=INPUT_KEY, max_chars=4 * MAX_SENTENCE_CHARS)  # cut, and said so, on send
        st.form_submit_button(t("atlas.class_send"), on_click=_send, args=(store, state, student), icon=":material/send:")
    notice = st.session_state.pop("class_sentence_notice", None)
    if notice:
        (st.success if notice[0] == "success" else st.warning)(notice[1])


def teacher_view(store: ClassStore, state: ClassState, secret: str) -> None:
    """The chosen head across all of the class's sentences, or a message while there are none."""
    try:
        texts = sentences_of(store).sentences(state.code, secret, state.question)
    except ClassError as err:
        st.warning(t("atlas.class_failed", error=md_literal(err)), icon=":material/error:")
        return
    if not texts:
        st.info(t("atlas.class_none"), icon=":material/forum:")
        return
    bundle = get_bundle(state.model)
    kinds = tuple(attention_kinds(bundle))
    cols = st.columns(3)
    kind = kind_picker(cols[0], kinds, default=kinds[-1], section="atlas", key=KEYS[0], url=False)
    layer, head = layer_head_picker(
        cols[1:], bundle.config.n_layers, bundle.config.n_heads, section="atlas", keys=KEYS[1:], url=False
    )
    label = t("atlas.head_title", kind=kind_name(kind), layer=ordinal(layer), head=ordinal(head))
    st.caption(t("atlas.class_caption", n=len(texts), head=label))
    runs = [head_pattern(state.model, text, kind, layer, head) for text in texts]
    fig = small_multiple(
        [r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs], texts, MultipleText(t("heads.weight"), t("bytes.hover"))
    )
    show_figure(fig, "class_sentences", key="class_sentences_grid", html=False)
    for i, text in enumerate(texts, start=1):
        st.caption(f"{i}. {md_literal(text)}")
    draw_map(get_qk_map(state.model, tuple(texts), kind, layer, head, None), "class_qk_map", "class_qk_chart")


def class_sentences_panel(store: ClassStore, state: ClassState, secret: str | None, student: str) -> None:
    """Under the step: the teacher's view (with `secret`) or a student's box, folded under one title."""
    with st.expander(t("atlas.class_title"), icon=":material/forum:", expanded=secret is not None):
        if secret is not None:
            teacher_view(store, state, secret)
        else:
            student_box(store, state, student)
