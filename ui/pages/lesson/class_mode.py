"""Class mode on the lesson: the teacher's screen leads, every student's screen follows and answers.

Roles live in session state only. The teacher's session holds the class's code and secret (never in
the URL); a student's session holds the code and an anonymous id it made up. The class itself is in
`runs.classroom_store` (SQLite, shared by every server process), so this file only reads and writes it:

- `follow_teacher` (top of the lesson, before any widget): a student's page is put on the teacher's
  step, model and sentence, and shows the answer once the teacher reveals it;
- `lead_class` (the teacher's every full run): the store follows the teacher's page;
- `class_bar` (under the title): the class code, who joined and answered (a fragment polling once a
  second), the join code and QR for the projector, End / Leave; a student's bar also holds the poll
  that reruns the page when the teacher moves (`st.fragment(run_every=…)`: one primary-key read a
  second, and a full rerun only when the class's version changed);
- `question_panel` (under the step's question): a student's answer, changeable until Reveal, then
  whether it was right; the teacher's tally, then the class's answers next to the truth;
- `class_controls` (foot of the lesson): start a class, or join one by typing its code;
- `class_banner` (app.py, on the lab pages): "Follow the teacher" leads back to the class.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

from runs.class_questions import ClassQuestion, class_question
from runs.classroom_store import (
    CLASS_PARAM,
    POLL_S,
    ClassError,
    ClassState,
    ClassStore,
    Tally,
    default_dir,
    normalize_code,
    question_id,
)
from runs.lesson import STEPS
from runs.model_ref import ModelRef, shipped_models
from transformer.storage.registry import RANDOM
from ui.i18n import t
from ui.inputs import TEXT_KEY
from ui.pages.lesson import teacher_cookie
from ui.pages.lesson.class_join import join_card
from ui.safe import md_literal
from ui.sidebar import MODEL_KEY

if TYPE_CHECKING:  # app.py imports this file for its banner on every page; the lesson's figures are not needed there
    from ui.pages.lesson.steps import Lesson

TEACHER_KEY = "class_teacher"  # session state: (code, secret) of the class this session leads
STUDENT_KEY = "class_student"  # session state: the code of the class this session follows
STUDENT_ID_KEY = "class_student_id"  # session state: this session's anonymous id
VERSION_KEY = "class_version"  # session state: the class version this student's page was drawn for
SHOW_JOIN_KEY = "class_show_join"  # the teacher's toggle: the join card above the figure
JOIN_INPUT_KEY = "class_join_code"
NOTICE_KEY = "class_notice"  # a message for the next run (a refused join, an ended class)
COOKIE_READ_KEY = "class_cookie_read"  # session state: this session has read the teacher's cookie
RESUMED_KEY = "class_resumed"  # session state: this session took the class back from the browser's cookie this run
STEP_PARAM = "step"
# the sidebar's widgets for a random model's settings (ui/sidebar.py), so a student follows one too
RANDOM_WIDGETS = {
    "architecture": "r_arch",
    "n_layers": "r_layers",
    "d_model": "r_dmodel",
    "n_heads": "r_heads",
    "norm_position": "r_norm",
    "positional": "r_pos",
    "seed": "r_seed",
}


@dataclass(frozen=True)
class InClass:
    """This session's class: its state as the store has it, and whether this session leads it."""

    state: ClassState
    teacher: bool
    resumed: bool = False  # the teacher's page came back after a reload, this run


@st.cache_resource(show_spinner=False)
def _store(folder: str) -> ClassStore:
    return ClassStore(folder)


def store() -> ClassStore:
    """The class store in `$ATLAS_CLASS_DIR` (read each call, so a test's folder is used)."""
    return _store(str(default_dir()))


def student_id() -> str:
    return st.session_state.setdefault(STUDENT_ID_KEY, secrets.token_urlsafe(12))


def _notice(key: str, **values: object) -> None:
    st.session_state[NOTICE_KEY] = (key, values)


def _show_notice() -> None:
    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice is not None:
        key, values = notice
        st.warning(t(f"classroom.{key}", **values), icon=":material/group_off:")


# ---- joining and leaving -----------------------------------------------------------------------------


def join(raw: object) -> bool:
    """Join the class `raw` names as a student; a bad or unknown code leaves a notice instead."""
    code = normalize_code(raw)
    teacher = st.session_state.get(TEACHER_KEY)
    if code is not None and teacher is not None and teacher[0] == code:
        return False  # the teacher opened their own join link: they lead, they do not follow
    try:
        if code is None:
            raise ClassError("no_class")
        store().join(code, student_id())
    except ClassError:
        shown = str(raw)[:16] + ("…" if len(str(raw)) > 16 else "")
        _notice("no_such_class", code=md_literal(shown))
        return False
    st.session_state[STUDENT_KEY] = code
    st.session_state.pop(VERSION_KEY, None)
    return True


def _join_typed() -> None:
    if join(st.session_state.get(JOIN_INPUT_KEY, "")):
        st.query_params[CLASS_PARAM] = st.session_state[STUDENT_KEY]


def leave() -> None:
    """Stop following (the class goes on; this session's answers stay counted)."""
    st.session_state.pop(STUDENT_KEY, None)
    st.query_params.pop(CLASS_PARAM, None)


def start_class(step: int, model: str, text: str) -> None:
    """Start a class on the teacher's current step, model and sentence; this session holds its secret, and this
    browser keeps it for a reload (`teacher_cookie`)."""
    leave()
    st.session_state[TEACHER_KEY] = store().create(step, model, text)
    teacher_cookie.remember(*st.session_state[TEACHER_KEY])
    st.session_state[SHOW_JOIN_KEY] = True


def end_class() -> None:
    code, secret = st.session_state.pop(TEACHER_KEY)
    with contextlib.suppress(ClassError):  # already over (expired): nothing left to delete
        store().end(code, secret)
    teacher_cookie.forget()
    _notice("ended_by_you", code=code)


def resume_teacher() -> None:
    """A new session (the teacher reloaded, or their laptop slept) leads the class again when this browser kept
    the secret of a class that is still live; a cookie the store no longer knows is dropped."""
    if TEACHER_KEY in st.session_state or STUDENT_KEY in st.session_state or COOKIE_READ_KEY in st.session_state:
        return
    st.session_state[COOKIE_READ_KEY] = True  # the cookies a session sees are those it connected with: read once
    kept = teacher_cookie.recalled()
    if kept is None:
        return
    if store().leads(*kept):
        st.session_state[TEACHER_KEY] = kept
        st.session_state[RESUMED_KEY] = True
    else:
        teacher_cookie.forget()


# ---- the student follows -------------------------------------------------------------------------


def _follow_model(model: str) -> None:
    """Put the sidebar's model picker (and a random model's settings) on the teacher's model."""
    ref = ModelRef.parse(model)
    if ref.is_random:
        wanted = {MODEL_KEY: RANDOM, **{RANDOM_WIDGETS[name]: value for name, value in ref.settings if name in RANDOM_WIDGETS}}
    elif model in shipped_models():
        wanted = {MODEL_KEY: model}
    else:  # a model trained in the teacher's session: this page's picker does not offer it
        _notice("model_elsewhere")
        return
    for key, value in wanted.items():
        if st.session_state.get(key) != value:
            st.session_state[key] = value


def follow_teacher() -> InClass | None:
    """For a student (or a `?class=CODE` link): put this page on the teacher's step, model and sentence,
    before any widget is drawn. None when this session follows no class. A teacher back from a reload leads
    again first (`resume_teacher`), so their own join link does not make them a student."""
    resume_teacher()
    raw = st.query_params.get(CLASS_PARAM)
    linked = normalize_code(raw)
    new_link = raw is not None and (linked is None or linked != st.session_state.get(STUDENT_KEY))
    if new_link and not join(raw):
        st.query_params.pop(CLASS_PARAM, None)  # a bad code: said once, not again on every rerun
    code = st.session_state.get(STUDENT_KEY)
    state = None if code is None else store().state(code)
    if code is not None and state is None:  # ended or expired since this page was drawn
        leave()
        _notice("ended", code=code)
    if state is not None:
        st.query_params[STEP_PARAM] = str(state.step)
        _follow_model(state.model)
        if st.session_state.get(TEXT_KEY) != state.text:
            st.session_state[TEXT_KEY] = state.text
        st.session_state[VERSION_KEY] = state.version
    _show_notice()
    return None if state is None else InClass(state, teacher=False)


@st.fragment(run_every=POLL_S)
def _poll_teacher(code: str) -> None:
    """A student's check, once a second: rerun the whole page only when the teacher moved or revealed."""
    state = store().state(code)
    if state is None or state.version != st.session_state.get(VERSION_KEY):
        st.rerun(scope="app")


# ---- the teacher leads ---------------------------------------------------------------------------


def lead_class(step: int, model: str, text: str, revealed: bool) -> InClass | None:
    """For the teacher: the class goes to the step, model and sentence this page shows, and its answer is
    revealed once the teacher reveals it here. None when this session leads no class.

    `InClass.resumed`: this run took the class back after a reload (`resume_teacher`); the page then shows the
    answer if the class already sees it (the session that revealed it is gone, and with it the page's record)."""
    teacher = st.session_state.get(TEACHER_KEY)
    if teacher is None:
        return None
    code, secret = teacher
    resumed = bool(st.session_state.pop(RESUMED_KEY, False))
    try:
        state = store().move(code, secret, step, model, text)
        if revealed and not state.revealed:
            state = store().reveal(code, secret)
    except ClassError:
        st.session_state.pop(TEACHER_KEY, None)
        teacher_cookie.forget()
        st.warning(t("classroom.ended", code=code), icon=":material/group_off:")
        return None
    return InClass(state, teacher=True, resumed=resumed)


@st.fragment(run_every=POLL_S)
def _live_counts(code: str, secret: str, asks: bool) -> None:
    try:
        tally = store().tally(code, secret)
    except ClassError:
        st.caption(t("classroom.ended", code=code))
        return
    line = ":material/group: " + t("classroom.joined", n=tally.joined)
    if asks:
        line += " · :material/how_to_vote: " + t("classroom.answered", n=tally.answered, of=tally.joined)
    st.markdown(line)


def class_bar(cls: InClass | None, asks: bool) -> None:
    """Under the title: the class, its counts and the teacher's or student's buttons."""
    if cls is None:
        return
    code = cls.state.code
    with st.container(horizontal=True, vertical_alignment="center", key="class_bar", gap="small"):
        st.markdown(f":material/groups: **{t('classroom.class_code')} `{code}`**")
        if cls.teacher:
            _live_counts(code, st.session_state[TEACHER_KEY][1], asks)
            st.toggle(t("classroom.show_join"), key=SHOW_JOIN_KEY)
            st.button(t("classroom.end"), key="class_end", on_click=end_class, icon=":material/stop_circle:")
        else:
            st.caption(t("classroom.following"))
            st.button(t("classroom.leave"), key="class_leave", on_click=leave, type="tertiary")
    if not cls.teacher:
        _poll_teacher(code)  # draws nothing: outside the bar, so it takes no room in the row
    elif st.session_state.get(SHOW_JOIN_KEY):
        join_card(code)


# ---- the question --------------------------------------------------------------------------------


def _label(question: ClassQuestion, code: str) -> str:
    for choice in question.choices:
        if choice.code == code:
            return md_literal(choice.label) if choice.literal else t(f"classroom.opt_{choice.label}")
    return md_literal(code)  # a typed number


def _send(code: str, question: ClassQuestion, qid: str, key: str) -> None:
    answer = question.normalize(st.session_state.get(key))
    if answer is None:
        return  # cleared or not a whole number in range: nothing is sent
    try:
        store().answer(code, student_id(), qid, answer)
    except ClassError as err:
        _notice(f"refused_{err.reason}")


@st.fragment
def _student_answer(code: str, question: ClassQuestion, qid: str, revealed: bool) -> None:
    """Answer (a fragment: choosing reruns only this), changeable until Reveal; then right or wrong."""
    mine = store().my_answer(code, student_id(), qid)
    if revealed:
        if mine is None:
            st.info(t("classroom.no_answer", truth=_label(question, question.truth)), icon=":material/schedule:")
        elif question.correct(mine):
            st.success(t("classroom.right", answer=_label(question, mine)), icon=":material/check_circle:")
        else:
            st.error(t("classroom.wrong", answer=_label(question, mine), truth=_label(question, question.truth)))
        return
    key = f"class_answer_{qid}"
    prompt = t(f"classroom.prompt_{question.prompt}")
    if question.is_number:
        with st.form(f"class_form_{qid}", border=False, enter_to_submit=True):
            st.number_input(prompt, 0, None, int(mine) if mine else None, 1, key=key, placeholder=t("classroom.type_number"))
            st.form_submit_button(
                t("classroom.send"), on_click=_send, args=(code, question, qid, key), type="primary", key=f"class_send_{qid}"
            )
    else:
        codes = [c.code for c in question.choices]
        st.radio(
            prompt,
            codes,
            index=codes.index(mine) if mine in codes else None,
            format_func=lambda c: _label(question, c),
            key=key,
            on_change=_send,
            args=(code, question, qid, key),
        )
    _show_notice()
    if store().my_answer(code, student_id(), qid) is not None:
        st.caption(t("classroom.answer_in"))


def _distribution(question: ClassQuestion, tally: Tally) -> None:
    """The class's answers next to the truth: one bar per choice (typed numbers: the most given, and the truth)."""
    if question.is_number:
        codes = list(dict.fromkeys([question.truth, *list(tally.counts)[:5]]))
        other = tally.answered - sum(tally.counts.get(c, 0) for c in codes)
    else:
        codes, other = [c.code for c in question.choices], 0
    st.markdown(t("classroom.distribution", n=tally.answered))
    for code in codes:
        n = tally.counts.get(code, 0)
        share = n / tally.answered if tally.answered else 0.0
        label = _label(question, code)
        text = f"**✓ {label}** · {n} ({share:.0%})" if code == question.truth else f"{label} · {n} ({share:.0%})"
        st.progress(share, text=text)
    if other:
        st.progress(other / tally.answered, text=f"{t('classroom.other')} · {other}")


def question_panel(cls: InClass | None, ls: Lesson, n: int, beside) -> None:
    """Under the step's question: the student's answer; for the teacher a line on what happens now, and
    after Reveal the class's answers in `beside` (the figure's column: the two side by side)."""
    if cls is None:
        return
    state = cls.state
    question = step_question(ls, n)
    if question is None:
        return
    if question_id(n, ls.model_key, ls.text) != state.question:  # this page shows another model or sentence
        st.caption(t("classroom.not_same"))
        return
    if not cls.teacher:
        with st.container(key="class_question"):
            _student_answer(state.code, question, state.question, state.revealed)
    elif state.revealed:
        with beside, st.container(key="class_question", border=True):
            _distribution(question, store().tally(state.code, st.session_state[TEACHER_KEY][1]))
    else:
        st.caption(t("classroom.answering"))


def step_question(ls: Lesson, n: int) -> ClassQuestion | None:
    """The class's question on step `n` (1-based) of the lesson's sentence, from the step's own numbers."""
    step = STEPS[n - 1]
    return class_question(step, ls.numbers(step), ls.trace)


def asks_class(ls: Lesson, n: int) -> bool:
    """Whether step `n` has a question the class answers on this sentence."""
    return step_question(ls, n) is not None


# ---- starting, joining, the lab pages ------------------------------------------------------------


def class_controls(cls: InClass | None, step: int, model: str, text: str) -> None:
    """At the foot of the lesson, outside a class: start one (the teacher) or join one by its code. (Also where
    the teacher's browser is told to keep or drop the class's secret: `teacher_cookie.write_pending`.)"""
    teacher_cookie.write_pending()
    if cls is not None:
        return
    with st.expander(t("classroom.title"), icon=":material/groups:"):
        st.button(
            t("classroom.start"),
            key="class_start",
            on_click=start_class,
            args=(step, model, text),
            type="primary",
            icon=":material/co_present:",
            help=t("classroom.start_help"),
        )
        with st.form("class_join_form", border=False):
            st.text_input(t("classroom.code_label"), key=JOIN_INPUT_KEY, max_chars=16, placeholder="ABCDE")
            st.form_submit_button(t("classroom.join"), on_click=_join_typed, icon=":material/login:")


def class_banner(lesson_page: st.Page) -> None:
    """On a lab page, while this session follows a class: a way back to the teacher's step."""
    code = st.session_state.get(STUDENT_KEY)
    if code is None:
        return
    with st.container(horizontal=True, vertical_alignment="center", key="class_banner"):
        st.caption(t("classroom.browsing", code=code))
        st.page_link(lesson_page, label=t("classroom.follow"), icon=":material/school:")
