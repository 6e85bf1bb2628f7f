"""Class mode on the lesson page (AppTest) under storage faults, a teacher's second tab, and stuffing.

Faults: the class file deleted, overwritten with garbage, made immutable, its folder read-only. No page shows an
error: the lesson goes on, the class bar says "class mode is paused" in the page's language on the teacher's and
the students' screens, and once the file can be written the class comes back without a reload (a class the file
lost is put back by the teacher's page, and its students count again)."""

from __future__ import annotations

import contextlib

import pytest

from runs.classroom_store import DIR_ENV, FILE_NAME, ClassStore
from runs.lesson import STEPS
from tests.runs.test_classroom_faults import unwritable
from tests.ui.conftest import assert_no_exception, open_page
from ui.i18n import catalog
from ui.pages.lesson import class_mode, teacher_cookie
from ui.pages.lesson.class_mode import PAUSED_KEY, STUDENT_KEY, TEACHER_KEY

EN, ZH = catalog("en"), catalog("zh")
SENTENCE = "the cat sat on the mat today"


@pytest.fixture(autouse=True)
def class_dir(tmp_path, monkeypatch):
    folder = tmp_path / "classes"
    monkeypatch.setenv(DIR_ENV, str(folder))
    monkeypatch.setenv(class_mode.JOIN_BURST_ENV, "1000")  # every page here is one client: the limit has its own test
    return folder


def _title(at) -> str:
    return at.title[0].value


def _warnings(at) -> str:
    return "\n".join(w.value for w in at.warning)


def _start(step: int = 1):
    teacher = open_page("lesson", params={"model": "translate-en-zh", "step": str(step)})
    teacher.button(key="class_start").click().run()
    assert_no_exception(teacher)
    code, secret = teacher.session_state[TEACHER_KEY]
    return teacher, code, secret


def _paused(at, lang: dict = EN) -> bool:
    return lang["classroom.unavailable"] in _warnings(at)


@contextlib.contextmanager
def _deleted(folder):
    for path in folder.glob(f"{FILE_NAME}*"):
        path.unlink()
    yield


@contextlib.contextmanager
def _garbage(folder):
    (folder / FILE_NAME).write_bytes(b"\x00garbage, not a database" * 500)
    yield


@contextlib.contextmanager
def _read_only_folder(folder):
    for path in folder.glob(f"{FILE_NAME}-*"):
        path.unlink()
    with unwritable(folder):
        yield


@contextlib.contextmanager
def _immutable_file(folder):
    with unwritable(folder / FILE_NAME):
        yield


@pytest.mark.parametrize("fault", [_read_only_folder, _immutable_file])
def test_a_fault_pauses_class_mode_with_one_message_and_the_class_comes_back(class_dir, fault):
    teacher, code, secret = _start()
    lang = ZH if fault is _read_only_folder else EN  # (AppTest picks a radio's option by its English label)
    student = open_page("lesson", params={"class": code}, lang="zh" if lang is ZH else "en")
    question = ClassStore(class_dir).state(code).question
    with fault(class_dir):
        teacher.button(key="lesson_next").click().run()  # a move the file cannot take
        assert_no_exception(teacher)
        assert _title(teacher).startswith("2/"), "the lesson goes on on the teacher's screen"
        assert _paused(teacher) and _warnings(teacher).count(EN["classroom.unavailable"]) == 1, _warnings(teacher)
        assert teacher.session_state[TEACHER_KEY] == (code, secret), "the teacher still holds the class"
        student.run()
        assert_no_exception(student)
        if fault is _read_only_folder:  # nothing can be read: the student's page is theirs meanwhile, and says why
            assert _paused(student, lang) and student.session_state[STUDENT_KEY] == code
        else:  # an immutable file still reads: the student stays on the class's step, and an answer is refused
            student.radio(key=f"class_answer_{question}").set_value("yes").run()
            assert_no_exception(student)
            assert lang["classroom.refused_unavailable"] in _warnings(student)
        teacher.run()
        assert _paused(teacher)
    # writable again: no reload, no restart; the next run (the waiting fragment's) is back in the class
    teacher.run()
    assert_no_exception(teacher)
    assert not _paused(teacher) and teacher.session_state.get(PAUSED_KEY) is None
    assert ClassStore(class_dir).state(code).step == 2, "the teacher's page moved the class where it is"
    student.run()
    assert_no_exception(student)
    assert not _paused(student, lang) and _title(student).startswith("2/"), "the student follows again"


@pytest.mark.parametrize("fault", [_deleted, _garbage])
def test_a_lost_file_is_renewed_and_the_teachers_page_puts_the_class_back(class_dir, fault):
    teacher, code, secret = _start()
    student = open_page("lesson", params={"class": code})
    teacher.button(key="lesson_next").click().run()
    with fault(class_dir):
        student.run()  # before the teacher's page noticed: the class is gone from the file, the student waits
        assert_no_exception(student)
        assert student.session_state[STUDENT_KEY] == code and _paused(student), _warnings(student)
        teacher.run()
        assert_no_exception(teacher)
    assert not _paused(teacher) and teacher.session_state[TEACHER_KEY] == (code, secret)
    state = ClassStore(class_dir).state(code)
    assert state is not None and state.step == 2, "the class is back under its code, where the teacher is"
    student.run()
    assert_no_exception(student)
    assert not _paused(student) and _title(student).startswith("2/")
    assert ClassStore(class_dir).tally(code, secret).joined == 1, "the student counts again"
    teacher.button(key="lesson_next").click().run()
    student.run()
    assert _title(student).startswith("3/"), "and follows the teacher's next move"


def test_a_teachers_second_tab_joins_the_class_as_it_is(class_dir, monkeypatch):
    """The teacher's browser opens a new tab at `/` (its cookie makes it the teacher's): the tab shows the class's
    step, model and sentence, and the class stays where it was; → in either tab moves it one step from there."""
    teacher, code, secret = _start()
    teacher.text_input(key="text").input(SENTENCE).run()
    for _ in range(3):
        teacher.button(key="lesson_next").click().run()
    student = open_page("lesson", params={"class": code})
    before = ClassStore(class_dir).state(code)
    assert before.step == 4 and before.text == SENTENCE

    monkeypatch.setattr(teacher_cookie, "recalled", lambda: (code, secret))
    second = open_page("lesson")  # no step, the default model and sentence
    assert_no_exception(second)
    after = ClassStore(class_dir).state(code)
    assert (after.step, after.model, after.text, after.version) == (before.step, before.model, before.text, before.version)
    assert _title(second).startswith("4/") and second.text_input(key="text").value == SENTENCE
    assert second.selectbox(key="model").value == "translate-en-zh"
    assert "class_end" in [b.key for b in second.button], "the tab leads"

    second.button(key="lesson_next").click().run()
    assert ClassStore(class_dir).state(code).step == 5
    teacher.run()  # the first tab (its fragment's rerun): it follows the class before it leads again
    assert_no_exception(teacher)
    assert _title(teacher).startswith("5/") and ClassStore(class_dir).state(code).step == 5
    teacher.button(key="lesson_next").click().run()
    assert ClassStore(class_dir).state(code).step == 6, "→ in the first tab moves on from where the class is"
    student.run()
    assert _title(student).startswith("6/")

    monkeypatch.setattr(teacher_cookie, "recalled", lambda: (code, secret))
    linked = open_page("lesson", params={"class": code})  # the join link, in the teacher's browser
    assert_no_exception(linked)
    assert STUDENT_KEY not in linked.session_state and _title(linked).startswith("6/")
    assert ClassStore(class_dir).state(code).step == 6


def test_one_browser_is_one_student_and_a_class_has_a_cap(class_dir, monkeypatch):
    teacher = open_page("lesson", params={"model": "translate-en-zh"})
    teacher.number_input(key="class_cap").set_value(2).run()
    teacher.button(key="class_start").click().run()
    code, secret = teacher.session_state[TEACHER_KEY]
    first = open_page("lesson", params={"class": code})
    browser = first.session_state[class_mode.STUDENT_ID_KEY]
    scripts = [h.proto.body for h in first.get("html") if "atlas_student=" in h.proto.body]
    assert len(scripts) == 1 and browser in scripts[0] and "SameSite=Strict" in scripts[0], "the browser keeps its id"
    monkeypatch.setattr(class_mode.browser_id, "sent", lambda: browser)  # what the browser's cookie sends
    for _ in range(3):  # new tabs of the same browser: the same student
        tab = open_page("lesson", params={"class": code})
        assert tab.session_state[STUDENT_KEY] == code and tab.session_state[class_mode.STUDENT_ID_KEY] == browser
    assert ClassStore(class_dir).tally(code, secret).joined == 1
    monkeypatch.setattr(class_mode.browser_id, "sent", lambda: "")  # other browsers
    second = open_page("lesson", params={"class": code})
    assert second.session_state[STUDENT_KEY] == code
    third = open_page("lesson", params={"class": code})  # a third browser: the cap is 2
    assert_no_exception(third)
    assert STUDENT_KEY not in third.session_state
    assert EN["classroom.full"].format(code=code) in _warnings(third)
    assert ClassStore(class_dir).tally(code, secret).joined == 2
    assert "full (2)" in "\n".join(m.value for m in teacher.run().markdown)


def test_joins_and_code_guesses_are_rate_limited_per_client(class_dir, monkeypatch):
    monkeypatch.setenv(class_mode.JOIN_BURST_ENV, "3")
    monkeypatch.setenv(class_mode.JOIN_EVERY_ENV, "600")
    _, code, secret = _start()
    for guess in ("AAAAA", "BBBBB"):  # two wrong guesses
        at = open_page("lesson", params={"class": guess})
        assert "No class has the code" in _warnings(at)
    assert open_page("lesson", params={"class": code}).session_state[STUDENT_KEY] == code
    refused = open_page("lesson", params={"class": code})  # the fourth try from this client
    assert_no_exception(refused)
    assert STUDENT_KEY not in refused.session_state
    assert "Too many tries to join from this device" in _warnings(refused)
    assert ClassStore(class_dir).tally(code, secret).joined == 1
    assert STEPS  # the lesson itself goes on for the refused page
    assert _title(refused).startswith("1/")


def test_the_class_distribution_is_one_line_with_proper_plurals():
    from runs.class_questions import ClassQuestion, named
    from runs.classroom_store import Tally
    from ui.pages.lesson.class_mode import distribution_line

    question = ClassQuestion("heads", "choose", "changes", named("changes", "same"))
    one = distribution_line(question, Tally(joined=3, answered=1, counts={"same": 1}))
    assert "(1 answer;" in one and "answers" not in one, one
    assert one.count("\n") == 0 and "**✓ The output changes**: 0 (0%)" in one and "The output stays the same: 1 (100%)" in one
    many = distribution_line(question, Tally(joined=3, answered=3, counts={"changes": 2, "same": 1}))
    assert "(3 answers;" in many and "**✓ The output changes**: 2 (67%)" in many
    none = distribution_line(question, Tally(joined=3, answered=0, counts={}))
    assert "(0 answers;" in none and "0 (–)" in none


def test_a_join_link_opened_during_a_fault_says_so_and_joins_once_it_ends(class_dir):
    _, code, secret = _start()
    for path in class_dir.glob(f"{FILE_NAME}-*"):
        path.unlink()
    with unwritable(class_dir):
        student = open_page("lesson", params={"class": code})
        assert_no_exception(student)
        assert _paused(student) and STUDENT_KEY not in student.session_state
        assert student.query_params.get("class") == code, "the link is kept, to join once the file works"
    student.run()
    assert_no_exception(student)
    assert student.session_state[STUDENT_KEY] == code and not _paused(student)
    assert ClassStore(class_dir).tally(code, secret).joined == 1
