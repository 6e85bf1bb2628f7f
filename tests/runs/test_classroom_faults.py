"""The class store under storage faults: its file deleted, overwritten with garbage, made immutable, its folder
read-only. No `sqlite3` error ever leaves the store (only `StoreUnavailable`, a `ClassError`), the store heals
itself once the file can be written again (a deleted file is created anew, garbage is moved aside), and the log
says each fault once, however many polls meet it."""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from runs.classroom_store import BROKEN_SUFFIX, FILE_NAME, ClassError, ClassStore, StoreUnavailable

MODEL, TEXT = "translate-en-zh", "i read a book"
POLLS = 30  # a class's polls during a fault: 30 students for one second


@contextlib.contextmanager
def unwritable(path: Path) -> Iterator[None]:
    """`path` (a file or a folder) cannot be changed while inside: `chattr +i` as root (who ignores modes), else
    the write bits off. Skips where neither holds (a file system without attributes)."""
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("chattr +i is not supported here")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        mode = path.stat().st_mode
        path.chmod(mode & ~0o222)
        try:
            yield
        finally:
            path.chmod(mode)


def _faults_logged(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "atlas.classroom" and "unavailable" in r.getMessage()]


def _every_call(store: ClassStore, code: str, secret: str, question: str) -> None:
    """What the pages call, each either working or refused with StoreUnavailable (never an sqlite3 error)."""
    calls = (
        lambda: store.state(code),
        lambda: store.join(code, "s9"),
        lambda: store.answer(code, "s9", question, "yes"),
        lambda: store.my_answer(code, "s9", question),
        lambda: store.tally(code, secret),
        lambda: store.move(code, secret, 2, MODEL, TEXT),
        lambda: store.reveal(code, secret),
        lambda: store.leads(code, secret),
        lambda: store.create(1, MODEL, TEXT),
        lambda: store.is_member(code, "s9"),
    )
    for call in calls:
        try:
            call()
        except StoreUnavailable:
            pass
        except ClassError as err:  # a refusal about the class itself (e.g. "revealed") is not a storage fault
            assert err.reason != "unavailable"


def test_a_deleted_file_is_created_again_and_the_teacher_puts_the_class_back(tmp_path, caplog):
    store = ClassStore(tmp_path)
    code, secret = store.create(4, MODEL, TEXT)
    store.join(code, "s1")
    for path in tmp_path.glob(f"{FILE_NAME}*"):
        path.unlink()
    assert store.state(code) is None, "the class went with the file; the store itself works"
    assert (tmp_path / FILE_NAME).exists() and store.renewed_at is not None
    with pytest.raises(ClassError) as refused:
        store.move(code, secret, 5, MODEL, TEXT)
    assert refused.value.reason == "no_class"
    back = store.restore(code, secret, 4, MODEL, TEXT)
    assert (back.code, back.step, back.text) == (code, 4, TEXT)
    assert store.move(code, secret, 5, MODEL, TEXT).step == 5, "the teacher's secret leads the class put back"
    assert store.join(code, "s1").code == code and store.tally(code, secret).joined == 1
    with pytest.raises(ClassError):
        store.restore(code, "not-the-secret-at-all", 4, MODEL, TEXT)  # a code that is live answers to its own secret only


def test_a_deleted_folder_is_created_again(tmp_path):
    folder = tmp_path / "classes"
    store = ClassStore(folder)
    code, _ = store.create(1, MODEL, TEXT)
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    assert store.state(code) is None and folder.is_dir()
    assert store.create(1, MODEL, TEXT)[0]


def test_garbage_bytes_are_moved_aside_and_a_fresh_file_starts(tmp_path, caplog):
    store = ClassStore(tmp_path)
    code, secret = store.create(1, MODEL, TEXT)
    (tmp_path / FILE_NAME).write_bytes(b"this is not a database " * 300)
    with caplog.at_level(logging.WARNING, logger="atlas.classroom"):
        for _ in range(POLLS):
            assert store.state(code) is None
    assert list(tmp_path.glob(f"{FILE_NAME}{BROKEN_SUFFIX}*")), "the garbage is kept aside, not deleted"
    assert store.renewed_at is not None
    assert store.restore(code, secret, 1, MODEL, TEXT).code == code
    assert sum("not a database" in r.getMessage() for r in caplog.records) == 1, "said once"


def test_an_immutable_file_refuses_writes_then_recovers(tmp_path, caplog):
    store = ClassStore(tmp_path)
    code, secret = store.create(1, MODEL, TEXT)
    question = store.state(code).question
    store.join(code, "s1")
    with caplog.at_level(logging.WARNING, logger="atlas.classroom"), unwritable(tmp_path / FILE_NAME):
        with pytest.raises(StoreUnavailable):
            store.answer(code, "s1", question, "yes")
        for _ in range(POLLS):
            _every_call(store, code, secret, question)
    assert len(_faults_logged(caplog)) == 1, _faults_logged(caplog)
    store.answer(code, "s1", question, "yes")  # writable again: no restart, no reload
    assert store.tally(code, secret).counts == {"yes": 1} and store.fault is None
    assert any("available again" in r.getMessage() for r in caplog.records)


def test_a_read_only_folder_refuses_then_recovers(tmp_path, caplog):
    folder = tmp_path / "classes"
    store = ClassStore(folder)
    code, secret = store.create(1, MODEL, TEXT)
    question = store.state(code).question
    for path in folder.glob(f"{FILE_NAME}-*"):  # what a server between requests leaves: the WAL files may be gone
        path.unlink()
    with caplog.at_level(logging.WARNING, logger="atlas.classroom"), unwritable(folder):
        with pytest.raises(StoreUnavailable):
            store.answer(code, "s1", question, "yes")
        for _ in range(POLLS):
            _every_call(store, code, secret, question)
        assert len(_faults_logged(caplog)) == 1, _faults_logged(caplog)
        assert ClassStore(folder).fault is not None, "a server that starts now starts, with class mode unavailable"
    store.answer(code, "s1", question, "yes")
    assert store.tally(code, secret).answered == 1


def test_a_full_class_admits_nobody_new(tmp_path):
    store = ClassStore(tmp_path)
    code, secret = store.create(1, MODEL, TEXT, cap=2)
    question = store.state(code).question
    store.join(code, "a")
    store.join(code, "b")
    store.join(code, "a")  # a second tab of a browser already in: not a new student
    with pytest.raises(ClassError) as full:
        store.join(code, "c")
    assert full.value.reason == "full"
    with pytest.raises(ClassError):
        store.answer(code, "c", question, "yes")  # answering is no way in either
    assert store.tally(code, secret) == store.tally(code, secret) and store.tally(code, secret).joined == 2
    for bad in (0, -1, 10**6, "60", True, 2.5):
        with pytest.raises(ClassError):
            store.create(1, MODEL, TEXT, cap=bad)


def test_an_old_file_without_the_cap_column_is_migrated(tmp_path):
    import sqlite3

    with sqlite3.connect(tmp_path / FILE_NAME) as db:  # the schema before caps existed
        db.execute(
            "CREATE TABLE classes (code TEXT PRIMARY KEY, secret_sha TEXT NOT NULL, step INTEGER NOT NULL, "
            "model TEXT NOT NULL, text TEXT NOT NULL, question TEXT NOT NULL, version INTEGER NOT NULL, touched REAL NOT NULL)"
        )
    store = ClassStore(tmp_path)
    code, secret = store.create(1, MODEL, TEXT)
    assert store.tally(code, secret).cap == 60
