"""The class store: many students answering at once lose nothing, only the secret drives a class,
classes expire and take their data with them, and bad input is refused, never a crash."""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context

import pytest

from runs.classroom_store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    FILE_NAME,
    ClassError,
    ClassStore,
    normalize_code,
    question_id,
)

MODEL, TEXT = "translate-en-zh", "i read a book"


class Clock:
    """A clock the test moves by hand (expiry without sleeping)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(tmp_path) -> ClassStore:
    return ClassStore(tmp_path)


def test_a_class_starts_on_the_teachers_step_in_wal_mode(store, tmp_path):
    code, secret = store.create(3, MODEL, TEXT)
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
    state = store.state(code)
    assert (state.step, state.model, state.text, state.revealed) == (3, MODEL, TEXT, False)
    assert state.question == question_id(3, MODEL, TEXT)
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        stored = db.execute("SELECT * FROM classes").fetchone()
    assert secret not in map(str, stored), "the secret itself is never stored"


def test_a_class_survives_a_restart(tmp_path):
    code, secret = ClassStore(tmp_path).create(2, MODEL, TEXT)
    again = ClassStore(tmp_path)  # a new process (or a restarted server) opening the same folder
    assert again.state(code).step == 2
    assert again.move(code, secret, 4, MODEL, TEXT).step == 4


def test_only_the_secret_moves_reveals_and_ends(store):
    code, secret = store.create(1, MODEL, TEXT)
    other_code, other_secret = store.create(1, MODEL, TEXT)
    for wrong in ("", "guess", other_secret, secret + "x", secret.upper()):
        for call in (
            lambda s: store.move(code, s, 5, MODEL, TEXT),
            lambda s: store.reveal(code, s),
            lambda s: store.end(code, s),
            lambda s: store.tally(code, s),
        ):
            with pytest.raises(ClassError) as err:
                call(wrong)
            assert err.value.reason == "not_teacher"
    assert store.state(code).step == 1 and not store.state(code).revealed
    before = store.state(code).version
    assert store.move(code, secret, 5, MODEL, TEXT).version == before + 1
    assert store.move(code, secret, 5, MODEL, TEXT).version == before + 1, "no change, no new version"
    store.end(code, secret)
    assert store.state(code) is None
    assert store.state(other_code) is not None, "ending one class leaves the others"


def test_leads_knows_a_live_class_by_its_secret_only(tmp_path):
    clock = Clock()
    store = ClassStore(tmp_path, idle_s=3600, clock=clock)
    code, secret = store.create(1, MODEL, TEXT)
    other_code, other_secret = store.create(1, MODEL, TEXT)
    assert store.leads(code, secret) and store.leads(code.lower(), secret), "a code is read as typed codes are"
    for wrong in ("", "guess", other_secret, secret + "x", secret.upper(), None):
        assert not store.leads(code, wrong)
    assert not store.leads("NOPE0", secret) and not store.leads(other_code, secret)
    store.end(other_code, other_secret)
    assert not store.leads(other_code, other_secret), "an ended class has no teacher"
    clock.now += 3700
    assert not store.leads(code, secret), "nor has an expired one"


def test_answers_are_for_the_current_question_until_reveal(store):
    code, secret = store.create(5, MODEL, TEXT)
    q5 = store.state(code).question
    store.join(code, "s1")
    store.answer(code, "s1", q5, "k2")
    store.answer(code, "s1", q5, "k3")  # changed before Reveal: counted once, as the last
    assert store.tally(code, secret).counts == {"k3": 1}
    assert store.my_answer(code, "s1", q5) == "k3"
    with pytest.raises(ClassError) as err:
        store.answer(code, "s1", question_id(6, MODEL, TEXT), "yes")  # a step the class is not on
    assert err.value.reason == "not_current"
    store.reveal(code, secret)
    assert store.state(code).revealed
    with pytest.raises(ClassError) as err:
        store.answer(code, "s2", q5, "k1")  # after Reveal, even a fresh student (or a replayed message)
    assert err.value.reason == "revealed"
    assert store.tally(code, secret) == store.tally(code, secret) and store.tally(code, secret).answered == 1
    store.move(code, secret, 6, MODEL, TEXT)
    assert not store.state(code).revealed and store.tally(code, secret).answered == 0
    store.move(code, secret, 5, MODEL, TEXT)  # back to step 5: its answers and its reveal are still there
    assert store.state(code).revealed and store.tally(code, secret).counts == {"k3": 1}
    store.move(code, secret, 5, MODEL, "another sentence")  # same step, new sentence: a new question
    assert not store.state(code).revealed and store.tally(code, secret).answered == 0


def test_many_students_answering_at_once_lose_nothing(tmp_path):
    store = ClassStore(tmp_path)
    code, secret = store.create(1, MODEL, TEXT, cap=100)  # more than the default cap of 60
    question = store.state(code).question
    students = [f"student-{i}" for i in range(80)]
    barrier = threading.Barrier(16)

    def answer(i: int) -> None:
        mine = ClassStore(tmp_path)  # each thread as its own server process would: its own store object
        if i < 16:
            barrier.wait()  # the first 16 press at the same instant
        mine.join(code, students[i])
        mine.answer(code, students[i], question, "yes")
        mine.answer(code, students[i], question, "no" if i % 3 == 0 else "yes")  # some change their mind

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(answer, range(len(students))))
    tally = store.tally(code, secret)
    assert tally.joined == len(students) and tally.answered == len(students)
    assert tally.counts == {"yes": sum(i % 3 != 0 for i in range(80)), "no": sum(i % 3 == 0 for i in range(80))}


def answer_from_a_process(folder: str, code: str, question: str, names: list[str]) -> int:
    """A second server process: its own store on the same file, answering for `names`."""
    store = ClassStore(folder)
    for name in names:
        store.answer(code, name, question, name[-1])
    return len(names)


def test_two_processes_share_one_class(tmp_path):
    store = ClassStore(tmp_path)
    code, secret = store.create(1, MODEL, TEXT)
    question = store.state(code).question
    shares = [[f"p{p}-s{i}-{i % 2}" for i in range(30)] for p in range(2)]
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        sent = sum(pool.map(answer_from_a_process, [str(tmp_path)] * 2, [code] * 2, [question] * 2, shares))
    assert sent == 60 and store.tally(code, secret).counts == {"0": 30, "1": 30}


def test_idle_classes_expire_and_their_data_is_deleted(tmp_path):
    clock = Clock()
    store = ClassStore(tmp_path, idle_s=3600, clock=clock)
    old, old_secret = store.create(1, MODEL, TEXT)
    store.join(old, "s1")
    store.answer(old, "s1", store.state(old).question, "yes")
    clock.now += 1800
    busy, _ = store.create(1, MODEL, TEXT)
    clock.now += 1500
    store.answer(busy, "s2", store.state(busy).question, "no")  # an answer keeps a class alive
    clock.now += 400  # `old` idle 3,700 s, `busy` 400 s
    assert store.state(old) is None and store.state(busy) is not None
    with pytest.raises(ClassError) as err:
        store.move(old, old_secret, 2, MODEL, TEXT)
    assert err.value.reason == "no_class"
    assert store.purge_expired() == 1
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        for table in ("students", "answers"):
            assert db.execute(f"SELECT COUNT(*) FROM {table} WHERE code = ?", (old,)).fetchone()[0] == 0, table


@pytest.mark.parametrize(
    "raw",
    ["", "ABCD", "ABCDEF", "ABCD0", "ABCDI", "'; DROP TABLE classes; --", "🙂🙂🙂🙂🙂", "A" * 10_000, None, 12345, "ＡＢＣＤＥ"],
)
def test_a_bad_code_is_no_class(store, raw):
    store.create(1, MODEL, TEXT)
    assert normalize_code(raw) is None
    assert store.state(raw) is None
    with pytest.raises(ClassError) as err:
        store.join(raw, "s1")
    assert err.value.reason == "no_class"
    with pytest.raises(ClassError) as err:
        store.answer(raw, "s1", "1:x", "yes")
    assert err.value.reason == "no_class"


def test_typed_codes_are_forgiving(store):
    code, _ = store.create(1, MODEL, TEXT)
    typed = f"  {code[:2].lower()}-{code[2:]} "
    assert normalize_code(typed) == code and store.join(typed, "s1").code == code


@pytest.mark.parametrize("bad", ["", "   ", "x" * 65, None, 3])
def test_a_bad_answer_is_refused(store, bad):
    code, secret = store.create(1, MODEL, TEXT)
    with pytest.raises(ClassError) as err:
        store.answer(code, "s1", store.state(code).question, bad)
    assert err.value.reason == "bad_answer"
    assert store.tally(code, secret).answered == 0


def test_hostile_text_is_stored_as_text(store):
    text = "'); DELETE FROM answers; -- <script>" + "字" * 5000
    code, secret = store.create(1, MODEL, text)
    state = store.state(code)
    assert state.text == text[:4000]
    assert store.move(code, secret, 2, "random?d_model=64", state.text).model == "random?d_model=64"
