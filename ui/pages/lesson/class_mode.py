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

When the class file cannot be used (`StoreUnavailable`: deleted and not creatable, garbage, immutable, a
read-only folder), no page shows an error: the lesson goes on without class mode, the class bar says so in
the user's language, and a small fragment checks once a second whether the store can be written again, then
reruns the page into the class (the teacher's page puts back a class the file lost: `ClassStore.restore`).

A teacher's second tab (the cookie makes it the teacher's) takes the class as it is: its step, model and
sentence, never its own defaults, and a tab whose class moved elsewhere (another tab) follows before it leads.
One browser is one student (`browser_id`); a class admits its cap, and joins and code guesses are rate-limited
per client address (`runs.rate_limit`).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

from runs.class_questions import ClassQuestion
from runs.classroom_store import (
    CLASS_PARAM,
    DEFAULT_CAP,
    MAX_CAP,
    POLL_S,
    ClassError,
    ClassState,
    ClassStore,
    StoreUnavailable,
    Tally,
    default_dir,
    normalize_code,
    question_id,
)
from runs.lesson import STEPS, class_question
from runs.model_ref import ModelRef, shipped_models
from runs.rate_limit import RateLimiter
from transformer.storage.registry import RANDOM
from ui.i18n import t
from ui.inputs import TEXT_KEY
from ui.pages.lesson import browser_id, teacher_cookie
from ui.pages.lesson.class_join import join_card
from ui.safe import md_literal
from ui.sidebar import MODEL_KEY

if TYPE_CHECKING:  # app.py imports this file for its banner on every page; the lesson's figures are not needed there
    from ui.pages.lesson.steps import Lesson

TEACHER_KEY = "class_teacher"  # session state: (code, secret) of the class this session leads
STUDENT_KEY = "class_student"  # session state: the code of the class this session follows
STUDENT_ID_KEY = browser_id.ID_KEY  # session state: this browser's anonymous id
VERSION_KEY = "class_version"  # session state: the class version this student's page was drawn for
SHOW_JOIN_KEY = "class_show_join"  # the teacher's toggle: the join card above the figure
JOIN_INPUT_KEY = "class_join_code"
NOTICE_KEY = "class_notice"  # a message for the next run (a refused join, an ended class)
COOKIE_READ_KEY = "class_cookie_read"  # session state: this session has read the teacher's cookie
RESUMED_KEY = "class_resumed"  # session state: this session took the class back from the browser's cookie this run
ADOPT_KEY = "class_adopt"  # session state: the teacher's page takes the class as it is on its next run
ADOPTED_KEY = "class_adopted"  # session state: this run put the teacher's page on the class (so it does not move it)
SINCE_KEY = "class_since"  # session state: when this session started, took or joined its class (store clock)
PAUSED_KEY = "class_paused"  # session state: the store was unavailable this run (the bar says so)
REJOIN_KEY = "class_rejoin"  # session state: a student to count again once the class is back (the file was renewed)
CAP_KEY = "class_cap"  # the teacher's number input: the most students the class admits
RESTORE_GRACE_S = 30.0  # a student whose class the file lost waits this long for the teacher's page to put it back
JOIN_BURST_ENV, JOIN_EVERY_ENV = "ATLAS_CLASS_JOIN_BURST", "ATLAS_CLASS_JOIN_EVERY_S"
JOIN_BURST, JOIN_EVERY_S = 10, 6.0  # per client address: 10 joins or code guesses at once, then one each 6 s
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


@st.cache_resource(show_spinner=False)
def _join_limiter(burst: int, every_s: float) -> RateLimiter:
    return RateLimiter(burst, every_s)


def join_limiter() -> RateLimiter:
    """The server process's limit on joins and code guesses per client (`ATLAS_CLASS_JOIN_BURST`, `…_EVERY_S`)."""
    burst = int(os.environ.get(JOIN_BURST_ENV) or JOIN_BURST)
    every_s = float(os.environ.get(JOIN_EVERY_ENV) or JOIN_EVERY_S)
    return _join_limiter(burst, every_s)


def client_key() -> str:
    """The client's address: the connection's, or behind a proxy on this machine (`serve.school`'s nginx) the
    last address the proxy added to X-Forwarded-For (the one it saw; earlier ones the client may have made up)."""
    ip = st.context.ip_address
    ip = ip if isinstance(ip, str) else None  # None: a connection from this machine (Streamlit hides loopback)
    forwarded = str(st.context.headers.get("X-Forwarded-For") or "").split(",")[-1].strip()
    with contextlib.suppress(ValueError):
        if forwarded and (ip is None or ipaddress.ip_address(ip).is_loopback):
            return forwarded[:64]
    return ip or "local"


def student_id() -> str:
    """This browser's anonymous id (a second tab reuses it: one browser, one student)."""
    return browser_id.browser_id()


def _paused() -> None:
    """The store is unavailable this run: the class bar says so, and the page waits it out."""
    st.session_state[PAUSED_KEY] = True


def _notice(key: str, **values: object) -> None:
    st.session_state[NOTICE_KEY] = (key, values)


def _show_notice() -> None:
    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice is not None:
        key, values = notice
        st.warning(t(f"classroom.{key}", **values), icon=":material/group_off:")


# ---- joining and leaving -----------------------------------------------------------------------------


def join(raw: object) -> bool:
    """Join the class `raw` names as a student; a bad or unknown code, a full class, or too many tries from this
    client leave a notice instead. A browser already in the class (a second tab) joins without a try spent."""
    code = normalize_code(raw)
    teacher = st.session_state.get(TEACHER_KEY)
    if code is not None and teacher is not None and teacher[0] == code:
        return False  # the teacher opened their own join link: they lead, they do not follow
    shown = md_literal(str(raw)[:16] + ("…" if len(str(raw)) > 16 else ""))
    try:
        if code is None or not store().is_member(code, student_id()):
            wait_s = join_limiter().wait(client_key())
            if wait_s > 0:
                _notice("slow_down", s=max(1, round(wait_s)))
                return False
        if code is None:
            raise ClassError("no_class")
        store().join(code, student_id())
    except StoreUnavailable:
        _paused()
        return False
    except ClassError as err:
        if err.reason == "full":
            _notice("full", code=shown)
        else:
            _notice("no_such_class", code=shown)
        return False
    st.session_state[STUDENT_KEY] = code
    st.session_state[SINCE_KEY] = time.time()
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
    cap = st.session_state.get(CAP_KEY) or DEFAULT_CAP
    try:
        st.session_state[TEACHER_KEY] = store().create(step, model, text, cap=int(cap))
    except StoreUnavailable:
        _paused()
        return
    st.session_state[SINCE_KEY] = time.time()
    st.session_state.pop(VERSION_KEY, None)
    teacher_cookie.remember(*st.session_state[TEACHER_KEY])
    st.session_state[SHOW_JOIN_KEY] = True


def end_class() -> None:
    code, secret = st.session_state.pop(TEACHER_KEY)
    with contextlib.suppress(ClassError):  # already over (expired), or the file unavailable: nothing to delete now
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
        st.session_state[ADOPT_KEY] = True  # a new tab or a reload takes the class as it is: it never moves it
        st.session_state[SINCE_KEY] = time.time()
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


def _put_page_on(state: ClassState) -> None:
    """This page on the class's step, model and sentence (before any widget reads them)."""
    st.query_params[STEP_PARAM] = str(state.step)
    _follow_model(state.model)
    if st.session_state.get(TEXT_KEY) != state.text:
        st.session_state[TEXT_KEY] = state.text
    st.session_state[VERSION_KEY] = state.version


def _lost_with_the_file(since_key: str = SINCE_KEY) -> bool:
    """Whether this session's class is gone because the file was renewed after the session took it (deleted or
    moved aside), not because it ended: then the teacher's page puts it back (`ClassStore.restore`)."""
    return store().created_at() > float(st.session_state.get(since_key, float("inf")))


def follow_teacher() -> InClass | None:
    """For a student (or a `?class=CODE` link): put this page on the teacher's step, model and sentence,
    before any widget is drawn. None when this session follows no class. A teacher back from a reload, or
    in a new tab, leads again first (`resume_teacher`), so their own join link does not make them a student,
    and their page is put on the class as it is (`ADOPT_KEY`), never the class on their page."""
    st.session_state.pop(PAUSED_KEY, None)
    st.session_state.pop(ADOPTED_KEY, None)
    try:
        return _follow()
    except StoreUnavailable:
        _paused()
        _show_notice()
        return None


def _follow() -> InClass | None:
    resume_teacher()
    if TEACHER_KEY in st.session_state and st.session_state.pop(ADOPT_KEY, False):
        state = store().state(st.session_state[TEACHER_KEY][0])
        if state is not None:
            _put_page_on(state)
            st.session_state[ADOPTED_KEY] = True
    raw = st.query_params.get(CLASS_PARAM)
    linked = normalize_code(raw)
    new_link = raw is not None and (linked is None or linked != st.session_state.get(STUDENT_KEY))
    if new_link and not join(raw) and not st.session_state.get(PAUSED_KEY):
        st.query_params.pop(CLASS_PARAM, None)  # a bad code: said once, not again on every rerun
    code = st.session_state.get(STUDENT_KEY)
    state = None if code is None else store().state(code)
    if code is not None and state is None:
        if _lost_with_the_file() and time.time() - store().created_at() < RESTORE_GRACE_S:
            st.session_state[REJOIN_KEY] = True  # the teacher's page puts the class back in a moment: wait for it
            _paused()
            _show_notice()
            return None
        leave()  # ended or expired since this page was drawn
        _notice("ended", code=code)
    if state is not None:
        if st.session_state.pop(REJOIN_KEY, False):
            with contextlib.suppress(ClassError):
                store().join(code, student_id())
        _put_page_on(state)
    _show_notice()
    return None if state is None else InClass(state, teacher=False)


@st.fragment(run_every=POLL_S)
def _poll_teacher(code: str) -> None:
    """A student's check, once a second: rerun the whole page only when the teacher moved or revealed (or the
    store failed: the page then goes on without the class, and says so)."""
    try:
        state = store().state(code)
    except StoreUnavailable:
        state = None
    if state is None or state.version != st.session_state.get(VERSION_KEY):
        st.rerun(scope="app")


@st.fragment(run_every=POLL_S)
def _await_store(code: str | None) -> None:
    """While the store is unavailable: once a second, whether a write goes through again (and, for a student
    whose class the file lost, whether the teacher's page put it back); then the page reruns into the class."""
    if not store().writable():
        return
    if code is not None and st.session_state.get(REJOIN_KEY):
        with contextlib.suppress(ClassError):
            back = store().state(code) is not None
            gone = time.time() - store().created_at() >= RESTORE_GRACE_S
            if not (back or gone):
                return
    st.rerun(scope="app")


# ---- the teacher leads ---------------------------------------------------------------------------


def lead_class(step: int, model: str, text: str, revealed: bool) -> InClass | None:
    """For the teacher: the class goes to the step, model and sentence this page shows, and its answer is
    revealed once the teacher reveals it here. None when this session leads no class.

    `InClass.resumed`: this run took the class back after a reload (`resume_teacher`); the page then shows the
    answer if the class already sees it (the session that revealed it is gone, and with it the page's record)."""
    teacher = st.session_state.get(TEACHER_KEY)
    if teacher is None or st.session_state.get(PAUSED_KEY):
        return None
    code, secret = teacher
    adopted = bool(st.session_state.pop(ADOPTED_KEY, False))
    resumed = bool(st.session_state.pop(RESUMED_KEY, False)) or adopted
    try:
        current = store().state(code)
        if current is None and _lost_with_the_file():
            current = store().restore(code, secret, step, model, text)  # the file lost it: put it back as this page shows it
        if current is not None and not adopted and current.version != st.session_state.get(VERSION_KEY, current.version):
            st.session_state[ADOPT_KEY] = True  # another tab of this teacher moved the class: follow it, then lead
            st.rerun()
        # a run that put the page on the class has nothing to move
        state = current if adopted and current is not None else store().move(code, secret, step, model, text)
        if revealed and not state.revealed:
            state = store().reveal(code, secret)
    except StoreUnavailable:
        _paused()
        return None
    except ClassError:
        st.session_state.pop(TEACHER_KEY, None)
        teacher_cookie.forget()
        st.warning(t("classroom.ended", code=code), icon=":material/group_off:")
        return None
    st.session_state[VERSION_KEY] = state.version
    return InClass(state, teacher=True, resumed=resumed)


@st.fragment(run_every=POLL_S)
def _live_counts(code: str, secret: str, asks: bool) -> None:
    """The teacher's counts, once a second; the page reruns when the class moved elsewhere (another tab of this
    teacher), the file lost the class (the page puts it back) or the store failed (the page says so)."""
    try:
        state = store().state(code)
        if state is None or state.version != st.session_state.get(VERSION_KEY):
            st.rerun(scope="app")
        tally = store().tally(code, secret)
    except StoreUnavailable:
        st.rerun(scope="app")
    except ClassError:
        st.caption(t("classroom.ended", code=code))
        return
    line = ":material/group: " + t("classroom.joined", n=tally.joined)
    if tally.joined >= tally.cap:
        line += " · " + t("classroom.full_now", cap=tally.cap)
    if asks:
        line += " · :material/how_to_vote: " + t("classroom.answered", n=tally.answered, of=tally.joined)
    st.markdown(line)


def class_bar(cls: InClass | None, asks: bool) -> None:
    """Under the title: the class, its counts and the teacher's or student's buttons; while the store is
    unavailable, one line that says so (the teacher's and the students' alike) and the check that ends it."""
    if cls is None:
        in_class = TEACHER_KEY in st.session_state or STUDENT_KEY in st.session_state or CLASS_PARAM in st.query_params
        if st.session_state.get(PAUSED_KEY) and in_class:  # (a join link opened during the fault joins once it ends)
            with st.container(key="class_paused"):
                st.warning(t("classroom.unavailable"), icon=":material/cloud_off:")
                _await_store(st.session_state.get(STUDENT_KEY))
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
    except ClassError as err:  # StoreUnavailable too: "refused_unavailable"
        _notice(f"refused_{err.reason}")


@st.fragment
def _student_answer(code: str, question: ClassQuestion, qid: str, revealed: bool) -> None:
    """Answer (a fragment: choosing reruns only this), changeable until Reveal; then right or wrong."""
    try:
        mine = store().my_answer(code, student_id(), qid)
    except StoreUnavailable:
        st.warning(t("classroom.unavailable"), icon=":material/cloud_off:")
        return
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
    with contextlib.suppress(StoreUnavailable):
        if store().my_answer(code, student_id(), qid) is not None:
            st.caption(t("classroom.answer_in"))


def distribution_line(question: ClassQuestion, tally: Tally) -> str:
    """The class's answers next to the truth in one line (markdown): "✓ 3 – 10: 2 (67%) · ≥ 30: 1 (33%)". One line,
    not a bar per choice: above the step's figure on a 1280 × 720 projector, eight bars pushed the figure below the
    fold. Every choice someone gave is listed, most given first after the truth; typed numbers: the five most given."""
    if question.is_number:
        codes = list(dict.fromkeys([question.truth, *list(tally.counts)[:5]]))
        other = tally.answered - sum(tally.counts.get(c, 0) for c in codes)
    else:
        given = [c.code for c in question.choices if tally.counts.get(c.code)]
        codes = list(dict.fromkeys([question.truth, *sorted(given, key=lambda c: -tally.counts[c])]))
        other = 0
    items = []
    for code in codes:
        n = tally.counts.get(code, 0)
        share = f"{n / tally.answered:.0%}" if tally.answered else "–"
        label = _label(question, code)
        items.append(f"**✓ {label}**: {n} ({share})" if code == question.truth else f"{label}: {n} ({share})")
    if other:
        items.append(f"{t('classroom.other')}: {other}")
    head = t("classroom.distribution_one" if tally.answered == 1 else "classroom.distribution", n=tally.answered)
    return f"{head} " + " · ".join(items)


def question_panel(cls: InClass | None, ls: Lesson, n: int, beside) -> None:
    """Under the step's question: the student's answer; for the teacher a line on what happens now, and
    after Reveal the class's answers in `beside` (the figure's column: the two side by side)."""
    if cls is None:
        return
    state = cls.state
    if question_id(n, ls.model_key, ls.text) == state.question:  # issue 38: the class's own sentences for this step
        from ui.pages.lesson.class_sentences import class_sentences_panel  # the lesson's alone, not every page's banner

        secret = st.session_state[TEACHER_KEY][1] if cls.teacher else None
        class_sentences_panel(store(), state, secret, student_id())
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
        try:
            tally = store().tally(state.code, st.session_state[TEACHER_KEY][1])
        except ClassError:
            return  # the store failed (or the class ended) since this run began: the bar says so on the next run
        with beside, st.container(key="class_question", border=True):
            st.markdown(distribution_line(question, tally))
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
    browser_id.write_pending()
    if cls is not None or st.session_state.get(PAUSED_KEY):
        return
    with st.expander(t("classroom.title"), icon=":material/groups:"):
        st.number_input(
            t("classroom.cap_label"), 1, MAX_CAP, DEFAULT_CAP, 1, key=CAP_KEY, help=t("classroom.cap_help"), width=200
        )
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
