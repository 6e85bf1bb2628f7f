"""Class mode on the lesson page (AppTest): a teacher starts a class, students join by link or by code,
follow the teacher's steps, answer, and see the truth after Reveal; nobody but the teacher drives."""

from __future__ import annotations

import json

import pytest

from runs.classroom_store import DIR_ENV, ClassError, ClassStore
from runs.lesson import STEPS
from tests.ui.conftest import assert_no_exception, open_page
from ui.i18n import catalog
from ui.page_style import EVERY_PAGE, OFF_SCREEN, WARMUP_KEY
from ui.pages.lesson import teacher_cookie
from ui.pages.lesson.class_mode import STUDENT_KEY, TEACHER_KEY


@pytest.fixture(autouse=True)
def class_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(DIR_ENV, str(tmp_path))
    monkeypatch.setenv("ATLAS_CLASS_JOIN_BURST", "1000")  # every page here is one client (tests/ui/test_class_faults.py limits)
    return tmp_path


def _title(at) -> str:
    return at.title[0].value


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for kind in ("success", "error", "info", "warning") for e in at.get(kind)]
    return "\n".join(str(p) for p in parts)


def _answer_widget(at, kind: str):
    found = [w for w in at.get(kind) if str(w.key or "").startswith("class_answer_")]
    assert found, f"no {kind} answer widget"
    return found[0]


def _start(params=None):
    # the grammar translator: its example's first and last words are a known 7 positions apart (step 2's truth)
    teacher = open_page("lesson", params={"model": "translate-en-zh", **(params or {})})
    teacher.button(key="class_start").click().run()
    assert_no_exception(teacher)
    code, secret = teacher.session_state[TEACHER_KEY]
    return teacher, code, secret


def test_teacher_starts_students_follow_answer_and_see_the_truth(class_dir):
    teacher, code, secret = _start()
    en = catalog("en")
    assert code in _texts(teacher) and teacher.get("image"), "the code and its QR code are on the screen"
    assert f"class={code}" in teacher.get("code")[0].value and secret not in teacher.get("code")[0].value
    assert teacher.query_params.get("class") is None, "the teacher's URL carries no class, let alone its secret"

    linked = open_page("lesson", params={"class": code})  # by the link (the QR code)
    typed = open_page("lesson")  # by typing the code, in lower case with a dash
    typed.text_input(key="class_join_code").input(f"{code[:2].lower()}-{code[2:]}")
    typed.button[[b.label for b in typed.button].index(en["classroom.join"])].click().run()
    assert_no_exception(typed)
    for student in (linked, typed):
        assert student.session_state[STUDENT_KEY] == code and TEACHER_KEY not in student.session_state
        assert _title(student) == _title(teacher)
        assert "lesson_next" not in [b.key for b in student.button], "a student's page follows: no Next of its own"
        assert not [b for b in student.button if str(b.key).startswith("lesson_reveal")], "only the teacher reveals"

    store = ClassStore(class_dir)
    assert store.tally(code, secret).joined == 2
    question = store.state(code).question
    _answer_widget(linked, "radio").set_value("yes").run()  # step 1: will the model translate it right?
    _answer_widget(typed, "radio").set_value("no").run()
    _answer_widget(typed, "radio").set_value("yes").run()  # changed before Reveal
    assert store.tally(code, secret).counts == {"yes": 2}
    assert store.my_answer(code, linked.session_state["class_student_id"], question) == "yes"

    teacher.button(key="lesson_next").click().run()  # step 2: a number to type
    assert store.state(code).step == 2
    for student in (linked, typed):
        student.run()
        assert_no_exception(student)
        assert _title(student) == _title(teacher) and _title(student).startswith("2/")
    _answer_widget(linked, "number_input").set_value(7)
    linked.button[[b.label for b in linked.button].index(en["classroom.send"])].click().run()
    _answer_widget(typed, "number_input").set_value(3)
    typed.button[[b.label for b in typed.button].index(en["classroom.send"])].click().run()
    tally = store.tally(code, secret)
    assert tally.answered == 2 and tally.counts == {"7": 1, "3": 1}
    assert "2 of 2 answered" in _texts(teacher.run())

    teacher.button(key="lesson_reveal_why_attention").click().run()
    assert store.state(code).revealed
    line = next(m.value for m in teacher.markdown if "How the class answered" in m.value)
    assert "(2 answers;" in line and "**✓ 7**: 1 (50%)" in line and "3: 1 (50%)" in line, line  # first/last words 7 apart
    assert not teacher.get("progress"), "one line, not a bar per choice: the figure stays on the projector's screen"
    for student, verdict in ((linked, "success"), (typed, "error")):
        student.run()
        assert_no_exception(student)
        assert student.get(verdict), (verdict, _texts(student))
        assert any(en["lesson.answer_counted"] in s.value for s in student.success), (
            "the student's page reveals with the teacher's"
        )
    with pytest.raises(ClassError, match="revealed"):  # answers are closed after Reveal
        store.answer(code, "latecomer", store.state(code).question, "7")


def test_a_student_cannot_drive_the_class(class_dir):
    _, code, secret = _start()
    student = open_page("lesson", params={"class": code, "step": "9"})  # a hand-made link to another step
    assert _title(student).startswith("1/") and ClassStore(class_dir).state(code).step == 1
    student.query_params["step"] = "5"
    student.run()
    assert _title(student).startswith("1/") and ClassStore(class_dir).state(code).step == 1
    assert secret not in str(student.session_state) and TEACHER_KEY not in student.session_state


@pytest.mark.parametrize("bad", ["NOPE0", "'; DROP TABLE classes; --", "x" * 5000, "🙂"])
def test_a_bad_code_gets_a_clear_message(bad):
    at = open_page("lesson", params={"class": bad})
    assert STUDENT_KEY not in at.session_state
    assert any("No class has the code" in w.value for w in at.warning), _texts(at)
    assert at.query_params.get("class") is None and _title(at).startswith("1/")


def test_the_teacher_ends_the_class_and_students_are_told(class_dir):
    teacher, code, _ = _start()
    student = open_page("lesson", params={"class": code}, lang="zh")  # the page alone: the language through its state
    teacher.button(key="class_end").click().run()
    assert ClassStore(class_dir).state(code) is None
    student.run()
    assert_no_exception(student)
    assert STUDENT_KEY not in student.session_state
    assert any(code in w.value and "已结束" in w.value for w in student.warning)


def test_students_follow_the_teachers_model_and_sentence(class_dir):
    teacher, code, _ = _start()
    student = open_page("lesson", params={"class": code})
    assert not [b for b in student.get("download_button") if b.key == "lesson_handout"], "no handout of answers"
    assert not [e for e in student.expander if e.label == catalog("en")["lesson.notes"]], "no teacher's notes"
    teacher.selectbox(key="model").set_value("reverse").run()
    teacher.text_input(key="text").input("hello class").run()
    assert_no_exception(teacher)
    state = ClassStore(class_dir).state(code)
    assert (state.model, state.text) == ("reverse", "hello class")
    student.run()
    assert_no_exception(student)
    assert student.selectbox(key="model").value == "reverse" and student.text_input(key="text").value == "hello class"
    assert _title(student) == _title(teacher)


def _cookie_scripts(at) -> list[str]:
    """The scripts the page sent to set or drop the teacher's cookie (`teacher_cookie.write_pending`)."""
    return [h.proto.body for h in at.get("html") if teacher_cookie.COOKIE in h.proto.body]


def test_the_teachers_browser_keeps_the_secret_and_a_reload_leads_again(class_dir, monkeypatch):
    """Start writes the code and secret into a cookie (never the URL); a new session whose browser sends that
    cookie leads the class again, sees the answer it revealed, and moves the students; End drops the cookie."""
    teacher, code, secret = _start()
    scripts = _cookie_scripts(teacher)
    assert len(scripts) == 1 and f'"{teacher_cookie.COOKIE}={code}:{secret}; Max-Age=43200;' in scripts[0], scripts
    teacher.run()
    assert _cookie_scripts(teacher) == [], "written once, after Start"
    student = open_page("lesson", params={"class": code})
    teacher.button(key=f"lesson_reveal_{STEPS[0]}").click().run()
    assert ClassStore(class_dir).state(code).revealed

    monkeypatch.setattr(teacher_cookie, "recalled", lambda: (code, secret))  # what the teacher's browser sends
    reloaded = open_page("lesson", params={"model": "translate-en-zh"})  # a new session on the same step
    assert_no_exception(reloaded)
    assert reloaded.session_state[TEACHER_KEY] == (code, secret) and STUDENT_KEY not in reloaded.session_state
    assert "class_end" in [b.key for b in reloaded.button], "the class bar is the teacher's again"
    assert not [b for b in reloaded.button if str(b.key).startswith("lesson_reveal")], "revealed before the reload"
    reloaded.button(key=f"lesson_hide_{STEPS[0]}").click().run()  # and the teacher may still hide it again
    assert f"lesson_reveal_{STEPS[0]}" in [b.key for b in reloaded.button]
    reloaded.button(key="lesson_next").click().run()
    assert ClassStore(class_dir).state(code).step == 2
    student.run()
    assert _title(student).startswith("2/"), "the students follow the reloaded teacher"

    reloaded.button(key="class_end").click().run()
    scripts = _cookie_scripts(reloaded)
    assert len(scripts) == 1 and "Max-Age=0" in scripts[0], "End drops the cookie"


def test_a_cookie_the_store_does_not_know_leads_nothing(class_dir, monkeypatch):
    """A forged or stale cookie (wrong secret, ended class) makes nobody a teacher, and is dropped."""
    _, code, secret = _start()
    for kept in ((code, "x" * 32), ("NOPE0", secret)):
        monkeypatch.setattr(teacher_cookie, "recalled", lambda kept=kept: kept)
        at = open_page("lesson")
        assert_no_exception(at)
        assert TEACHER_KEY not in at.session_state and "class_end" not in [b.key for b in at.button]
        assert ["Max-Age=0" in body for body in _cookie_scripts(at)] == [True]
        at.run()
        assert _cookie_scripts(at) == [], "read and dropped once a session"
    assert ClassStore(class_dir).state(code).step == 1


def _warmup_figures(at) -> list:
    return [c for c in at.get("plotly_chart") if c.proto.id.endswith(f"{WARMUP_KEY}_figure")]


def test_a_class_page_loads_the_chart_library_before_the_first_reveal(class_dir):
    """A class's first figure comes with its first Reveal, on every student's screen at once: each class page draws
    one tiny figure (off the screen) from the start, so the browser has plotly.js by then (ui/chart_warmup.py). A
    page outside a class draws none."""
    solo = open_page("lesson", params={"model": "translate-en-zh"})
    assert not _warmup_figures(solo)
    teacher, code, _ = _start()
    student = open_page("lesson", params={"class": code})
    for page in (teacher, student):
        assert_no_exception(page)
        (figure,) = _warmup_figures(page)
        spec = json.loads(figure.proto.spec)
        assert spec["layout"]["xaxis"]["visible"] is False and len(spec["data"]) == 1
    assert not [c for c in student.get("plotly_chart") if c not in _warmup_figures(student)], (
        "step 1's own figure waits for Reveal: the tiny one is the student's first"
    )
    assert f".st-key-{WARMUP_KEY}" in OFF_SCREEN and "position: absolute" in OFF_SCREEN and OFF_SCREEN in EVERY_PAGE
