"""The class's own sentences in class mode (AppTest, both languages): a class with none says so; students send
sentences (a hostile, huge one cut and shown inert), and the teacher sees the chosen head on every one of them
(a small multiple and the map of queries and keys), with no student identity."""

from __future__ import annotations

import pytest

from runs.class_sentences import MAX_SENTENCE_CHARS, clean_sentence
from runs.classroom_store import DIR_ENV
from tests.ui.conftest import assert_no_exception, figures, open_page
from ui.i18n import catalog
from ui.pages.lesson.class_mode import STUDENT_ID_KEY, TEACHER_KEY
from ui.pages.lesson.class_sentences import INPUT_KEY
from ui.safe import md_literal

HOSTILE = "<img src=x onerror=alert(1)> **loud** [link](javascript:alert(1)) " + "字" * 250


@pytest.fixture(autouse=True)
def class_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(DIR_ENV, str(tmp_path))
    return tmp_path


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for kind in ("success", "error", "info", "warning") for e in at.get(kind)]
    return "\n".join(str(p) for p in parts)


def _send(student, text: str, lang: str) -> None:
    student.text_input(key=INPUT_KEY).input(text)
    labels = [b.label for b in student.button]
    student.button[labels.index(catalog(lang)["atlas.class_send"])].click().run()
    assert_no_exception(student)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_teacher_sees_a_message_then_every_sentence_on_the_chosen_head(lang):
    words = catalog(lang)
    teacher = open_page("lesson", params={"model": "translate-en-zh"}, lang=lang)
    teacher.button(key="class_start").click().run()
    code, _ = teacher.session_state[TEACHER_KEY]
    assert words["atlas.class_none"] in _texts(teacher)  # no submissions: a message, not an empty chart
    assert not [k for k in figures(teacher) if k.startswith("class_")]

    students = [open_page("lesson", params={"class": code}, lang=lang) for _ in range(2)]
    _send(students[0], "i read a book", lang)
    assert words["atlas.class_sent"] in _texts(students[0])
    _send(students[1], HOSTILE, lang)
    shown = _texts(students[1])
    assert words["atlas.class_cut"].format(limit=MAX_SENTENCE_CHARS) in shown

    teacher.run()
    assert_no_exception(teacher)
    charts = figures(teacher)
    grid, qk = charts["class_sentences_grid"], charts["class_qk_chart"]
    assert sum(1 for trace in grid["data"] if trace["type"] == "heatmap") == 2
    assert {trace["type"] for trace in qk["data"]} == {"scattergl"}
    texts = _texts(teacher)
    assert "i read a book" in texts
    kept, _ = clean_sentence(HOSTILE)
    assert f"2. {md_literal(kept)}" in texts  # inert: shown through md_literal, never a live tag or link
    assert "&lt;img" in str(grid["layout"]["annotations"])  # a figure title is escaped text, not markup
    for student in students:  # no student identity on the teacher's screen
        assert student.session_state[STUDENT_ID_KEY] not in texts
