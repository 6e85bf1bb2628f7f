"""What every page starts with: title, model picker, text box; and how a run's output is shown."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, overload

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from runs.reference import ReferenceCheck, check_reference
from runs.validation import TextCheck
from transformer.storage.checkpoint import ModelBundle
from transformer.tasks import Diagnosis
from ui.caches import note_session
from ui.grammar_panel import role_name
from ui.i18n import t
from ui.inputs import text_box, use_text
from ui.model_parts import missing_parts_note
from ui.precision import precision_note
from ui.projector import projector_on
from ui.prose import prose
from ui.safe import md_literal
from ui.sidebar import ModelChoice, model_picker
from ui.url_guard import guard_query_params
from ui.url_values import MAX_URL_TEXT_CHARS, UrlRepair
from viz.tokens import visible_token
from viz.trace import TraceData

REFERENCES_SHOWN = 5  # a sentence with many translations lists its first few
TOKENS_INLINE = 16  # tokens shown under the output (a line or two); the whole list in an expander


@dataclass(frozen=True)
class PageContext:
    """What `start_page` hands the page: the model, the text box's verdict, and what its `before_model` returned."""

    model: ModelChoice
    check: TextCheck
    before_model: object = None
    top: DeltaGenerator | None = None  # where the page's first figure goes (`start_page(figure_first=True)`)

    @property
    def bundle(self) -> ModelBundle:
        return self.model.bundle

    @property
    def text(self) -> str | None:
        return self.check.text


def show_reference(check: ReferenceCheck | None) -> None:
    """The task's right output and the verdict, or a warning that the text has no right output (with why,
    and the nearest sentence the grammar makes, one click away)."""
    if check is None:
        return
    if check.corpus:
        show_corpus_reference(check)
        return
    if check.expected is None and check.unknown and check.diagnosis is None:  # no grammar to say more
        st.info(t("input.unknown_not_judged"), icon=":material/help:")
        return
    if check.expected is None:
        st.warning(t("input.out_of_grammar"), icon=":material/help:")
        show_diagnosis(check.diagnosis)
        return
    if check.correct:
        st.success(t("input.correct"), icon=":material/check_circle:")
    else:
        st.error(t("input.wrong"), icon=":material/cancel:")
        st.markdown(f"**{t('input.expected')}**")
        st.code(check.expected, language=None, wrap_lines=True)
    if check.unknown:
        st.caption(t("input.unknown_in_place"))
    if check.judged is not None:
        st.caption(t("input.judged_prefix", n=check.judged))
    st.caption(t("input.heldout" if check.heldout else "input.maybe_seen"))


def show_corpus_reference(check: ReferenceCheck) -> None:
    """A natural translator's verdict: a match with the corpus, how close it comes (chrF), or no reference at all."""
    if not check.references:
        st.info(t("input.no_reference"), icon=":material/rate_review:")
        return
    if check.correct:
        st.success(t("input.corpus_match"), icon=":material/check_circle:")
    else:
        st.info(t("input.corpus_differs", chrf=f"{check.chrf:.0f}"), icon=":material/compare_arrows:")
    st.markdown(f"**{t('input.corpus_references', n=len(check.references))}**")
    st.code("\n".join(check.references[:REFERENCES_SHOWN]), language=None, wrap_lines=True)
    st.caption(t("input.heldout" if check.heldout else "input.corpus_trained"))


def show_diagnosis(diagnosis: Diagnosis | None) -> None:
    """Which word or combination is outside the grammar, and the nearest sentence with a "use it" button."""
    if diagnosis is None:
        return
    lines = []
    for problem in diagnosis.problems:
        params = {name: md_literal(value) for name, value in problem.params.items()}
        if problem.kind == "missing_role":
            params["role"] = role_name(problem.params.get("role", ""))
        key = f"grammar.problem_{problem.kind}"
        lines.append("- " + (t(key, **params) if t(key) != key else md_literal(problem.kind)))
    if lines:
        st.markdown("\n".join(lines))
    if diagnosis.nearest is not None:
        st.markdown(f"**{t('grammar.nearest')}**")
        cols = st.columns([3, 2], vertical_alignment="center")
        cols[0].code(diagnosis.nearest, language=None, wrap_lines=True)
        if cols[1].button(
            t("grammar.use_it"),
            key="use_nearest",
            on_click=use_text,
            args=(diagnosis.nearest,),
            icon=":material/arrow_upward:",
            width="stretch",
        ):
            # the verdict may sit in a fragment (the heads page's inspector), whose rerun would leave the
            # text box above it showing the old sentence: rerun the whole page with the new one
            st.rerun(scope="app")


TextNeed = Literal["required", "optional", "none"]


@overload
def start_page(
    section: str,
    *,
    text: TextNeed = "required",
    title: bool = True,
    before_model: Callable[[], object] | None = None,
    figure_first: bool = False,
) -> PageContext: ...


@overload
def start_page(section: str, *, model: Literal[False], title: bool = True) -> None: ...


def start_page(
    section: str,
    *,
    text: TextNeed = "required",
    model: bool = True,
    title: bool = True,
    before_model: Callable[[], object] | None = None,
    figure_first: bool = False,
) -> PageContext | None:
    """What every page starts with: the URL guard, title and intro from catalog `section` ("<section>.title",
    "<section>.intro"), what the link carried that could not be used, the model picker and the text box.

    Stops the page (`st.stop`) where it cannot go on: no model could be loaded, or `text="required"` and the
    text box has no usable text (it has already said why). The variants:
    - `text`: "optional" draws the text box but goes on without a text (the positional page's tables need
      none); "none" draws no text box (the masks page has its batch of sentences, the lesson its own box);
    - `model=False`: no model picker (the training page trains its own); returns None;
    - `title=False`: no title and intro (the lesson's title is the step's, under its Previous / Next);
    - `before_model`: called after the URL guard and before the first widget (the lesson: a student's page
      is put on the teacher's model and sentence); its result is the context's `before_model`.
    - `figure_first`: the context's `top` is a container right under the title in projector mode, above the
      intro and the text box, for the page's first figure (and the pickers it needs). A figure as tall as the
      paper's Figure 1, or q, K and V with their numbers, needs the 1280 × 720 screen's height below the title
      (issue 39 §7); the sentence, written once, is read from the box under it. Off the projector `top` is a
      container where the page would have drawn anyway, after the text box, so the page keeps one code path.
    """
    repair = guard_query_params()  # before any widget reads the URL
    note_session()  # a second session starts the model-run worker (`runs.run_worker`)
    if title:
        st.title(t(f"{section}.title"))
    top = st.container() if figure_first and projector_on() else None
    if title:
        intro = t(f"{section}.intro")
        if intro != f"{section}.intro":
            prose(intro)  # folded on a projector: the page's first chart belongs on the first screen
    report_url(repair)
    if not model:
        return None
    prepared = before_model() if before_model is not None else None
    choice = model_picker()
    if choice is None:
        st.stop()
    missing_parts_note(choice.bundle, section)
    check = text_box(choice.bundle) if text != "none" else TextCheck(None)
    if text == "required" and check.text is None:
        st.stop()
    return PageContext(choice, check, prepared, top if top is not None else st.container())


def section(number: int, key: str) -> None:
    """A numbered section of a page's storyboard: "3 · One head: scores → masking → softmax". The number is the
    section's place in the page script; the words are catalog `key` (the same in every language)."""
    st.header(f"{number} · {t(key)}")


def report_url(repair: UrlRepair) -> None:
    """Say what the link carried that could not be used (a cut text, out-of-range numbers): after
    `guard_query_params`, on every page (`start_page`)."""
    for key, length in repair.cut:
        st.warning(
            t("input.url_text_cut", name=key, total=f"{length:,}", kept=f"{MAX_URL_TEXT_CHARS:,}"), icon=":material/content_cut:"
        )
    if repair.dropped:
        st.info(t("input.url_numbers_dropped", names=", ".join(f"`{key}`" for key in repair.dropped)))


def show_run(trace: TraceData, bundle: ModelBundle) -> None:
    """The model's output (and whether it is right) and its tokens, shown literally (never as markdown or HTML).

    The token lists stay short whatever the input's length (a long list pushed every chart below the fold):
    the first TOKENS_INLINE tokens, and the whole list in an expander.
    """
    cols = st.columns(2)
    with cols[0]:
        st.markdown(f"**{t('input.output')}**")
        st.code(trace.output_text or "∅", language=None, wrap_lines=True)
        show_reference(check_reference(bundle, trace))
        if trace.teacher_forced:
            st.caption(t("input.teacher_forced"))
        precision_note(trace)
    with cols[1]:
        if trace.src_tokens:
            _token_list(t("input.tokens_src"), trace.src_tokens)
        _token_list(t("input.tokens_tgt"), trace.tgt_tokens)


def _token_list(title: str, tokens: Sequence[str]) -> None:
    shown = [visible_token(tok) for tok in tokens]
    st.markdown(f"**{title}** ({len(shown)})")
    if len(shown) <= TOKENS_INLINE:
        st.code(" · ".join(shown), language=None, wrap_lines=True)
        return
    st.code(" · ".join(shown[:TOKENS_INLINE]) + " · …", language=None, wrap_lines=True)
    with st.expander(t("input.all_tokens", n=len(shown))):
        st.code(" · ".join(shown), language=None, wrap_lines=True)
