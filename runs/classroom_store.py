"""Class mode's shared state: one SQLite file that every server process on the machine reads and writes.

A class is a short code (what students type or scan), the teacher's step, model and sentence, and
the students' answers. Why SQLite (Python's own `sqlite3`) and not session state: a school server may
run several `streamlit run` processes (one per core), and a restart must lose no class; a file in WAL
mode lets every process read while one writes, and each write is one short transaction.

What is kept about a student: an anonymous id the student's browser session made up, and that
session's answers in this class. A class ends when the teacher ends it or after `IDLE_S` without a
move or an answer; its rows are deleted then (`purge_expired` runs on every create and join).

Who may do what: `create` returns the class's secret once; only its SHA-256 is stored. Moving the
class (step, model, sentence), revealing and ending all need the secret, compared in constant time,
so a student can neither drive the class by URL nor by replaying what their own browser sent (it
never held the secret). A student may answer only the current question, and only until it is
revealed: an answer replayed later, or for another step, is refused.

No Streamlit here: `ui/pages/lesson/class_mode.py` draws the panels, `benchmarks/class_mode.py` and the tests call
this directly.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

CLASS_PARAM = "class"  # the join link's query parameter: /?class=CODE
DIR_ENV = "ATLAS_CLASS_DIR"  # the folder of the class file; default: the user's data folder
FILE_NAME = "classes.sqlite3"
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a projector, typed on a phone
CODE_LENGTH = 5  # 31⁵ ≈ 29 million codes
MAX_ANSWER_CHARS = 64  # a choice's code or a typed number; anything longer is not an answer
MAX_KEY_CHARS = 4_000  # a model key or a sentence (the URL's own cap on text)
POLL_S = 1.0  # how often a student's page asks whether the teacher moved, and the teacher's counts refresh
IDLE_S = 4 * 3600  # a class nobody moved or answered in for this long is over
BUSY_TIMEOUT_S = 10.0  # how long a write waits for another process's write before giving up
_CODE_RE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")

SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY,
    secret_sha TEXT NOT NULL,
    step INTEGER NOT NULL,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    question TEXT NOT NULL,
    version INTEGER NOT NULL,
    touched REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS students (
    code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
    student TEXT NOT NULL,
    PRIMARY KEY (code, student)
);
CREATE TABLE IF NOT EXISTS answers (
    code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
    question TEXT NOT NULL,
    student TEXT NOT NULL,
    answer TEXT NOT NULL,
    PRIMARY KEY (code, question, student)
);
CREATE TABLE IF NOT EXISTS reveals (
    code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
    question TEXT NOT NULL,
    PRIMARY KEY (code, question)
);
"""


class ClassError(Exception):
    """A refused request, with a code the page turns into a sentence in the user's language:
    "no_class" (unknown, ended or expired), "not_teacher" (wrong secret), "not_current" (an answer to a
    question the class is not on), "revealed" (answers are closed), "bad_answer" (empty or too long), "bad_input" (not a text)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ClassState:
    """What a student's page follows. `version` grows with every move or reveal, so a poll compares one
    integer; `question` names the current (step, model, sentence), so answers never mix two sentences."""

    code: str
    step: int
    model: str
    text: str
    question: str
    revealed: bool
    version: int


@dataclass(frozen=True)
class Tally:
    """What the teacher's screen shows for the current question: who joined, who answered, and how."""

    joined: int
    answered: int
    counts: dict[str, int]  # answer → number of students


def default_dir() -> Path:
    """`$ATLAS_CLASS_DIR`, else the user's data folder (kept across restarts, unlike a temp folder's
    cleaning): `%LOCALAPPDATA%`, `~/Library/Application Support`, or `$XDG_DATA_HOME` (`~/.local/share`)."""
    if os.environ.get(DIR_ENV):
        return Path(os.environ[DIR_ENV])
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "attention-atlas"


def normalize_code(raw: object) -> str | None:
    """A class code as typed or linked ("ab-cd3", " abcd3 ") in canonical form, or None if it cannot be one."""
    if not isinstance(raw, str) or len(raw) > 32:
        return None
    code = raw.strip().upper().replace("-", "").replace(" ", "")
    return code if _CODE_RE.fullmatch(code) else None


def question_id(step: int, model: str, text: str) -> str:
    """One question: a step on one model and sentence (the same step on another sentence asks anew)."""
    digest = hashlib.sha256(f"{model}\0{text}".encode()).hexdigest()[:16]
    return f"{step}:{digest}"


def _sha(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class ClassStore:
    """The classes in one SQLite file. Each call opens its own short-lived connection: Streamlit runs
    every script run in a new thread, and a `sqlite3` connection belongs to the thread that made it."""

    def __init__(self, folder: Path | str | None = None, *, idle_s: float = IDLE_S, clock: Callable[[], float] = time.time):
        self.folder = Path(folder) if folder is not None else default_dir()
        self.path = self.folder / FILE_NAME
        self.idle_s = idle_s
        self.clock = clock
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")  # kept in the file: readers never wait for the writer
            db.executescript(SCHEMA)

    @contextlib.contextmanager
    def _connect(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection in autocommit mode; `write`: inside BEGIN IMMEDIATE … COMMIT (the write lock is
        taken first, so a check-then-write never races another process's write)."""
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL: a process crash loses nothing, a power cut the last commit
            if not write:
                yield db
                return
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            db.close()

    # ---- the teacher ---------------------------------------------------------------------------

    def create(self, step: int, model: str, text: str) -> tuple[str, str]:
        """A new class on `step` of `model` and `text`: (its code, its secret). The secret is not stored."""
        model, text = _bounded(model), _bounded(text)
        secret = secrets.token_urlsafe(24)
        self.purge_expired()
        with self._connect(write=True) as db:
            while True:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if db.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone() is None:
                    break
            db.execute(
                "INSERT INTO classes VALUES (?, ?, ?, ?, ?, ?, 1, ?)",
                (code, _sha(secret), int(step), model, text, question_id(step, model, text), self.clock()),
            )
        return code, secret

    def move(self, code: str, secret: str, step: int, model: str, text: str) -> ClassState:
        """Put the class on `step` of `model` and `text` (no change, no new version)."""
        model, text = _bounded(model), _bounded(text)
        question = question_id(step, model, text)
        with self._connect(write=True) as db:
            row = self._teacher_row(db, code, secret)
            if row[1] != question:
                db.execute(
                    "UPDATE classes SET step = ?, model = ?, text = ?, question = ?, version = version + 1, touched = ? "
                    "WHERE code = ?",
                    (int(step), model, text, question, self.clock(), code),
                )
        return self._require(code)

    def reveal(self, code: str, secret: str) -> ClassState:
        """Close the current question's answers and show everyone the truth (once; it stays revealed)."""
        with self._connect(write=True) as db:
            _, question = self._teacher_row(db, code, secret)
            added = db.execute("INSERT OR IGNORE INTO reveals VALUES (?, ?)", (code, question)).rowcount
            if added:
                db.execute("UPDATE classes SET version = version + 1, touched = ? WHERE code = ?", (self.clock(), code))
        return self._require(code)

    def end(self, code: str, secret: str) -> None:
        """End the class: its answers, students and reveals go with it."""
        with self._connect(write=True) as db:
            self._teacher_row(db, code, secret)
            db.execute("DELETE FROM classes WHERE code = ?", (code,))

    def tally(self, code: str, secret: str) -> Tally:
        """Joined, answered and the answers to the current question (the teacher's view; needs the secret:
        a student learns the class's answers only as the teacher shows them)."""
        with self._connect() as db:
            _, question = self._teacher_row(db, code, secret)
            joined = db.execute("SELECT COUNT(*) FROM students WHERE code = ?", (code,)).fetchone()[0]
            rows = db.execute(
                "SELECT answer, COUNT(*) FROM answers WHERE code = ? AND question = ? GROUP BY answer", (code, question)
            ).fetchall()
        counts = dict(Counter({answer: n for answer, n in rows}).most_common())
        return Tally(joined, sum(counts.values()), counts)

    def leads(self, code: str, secret: str) -> bool:
        """Whether `secret` is the secret of the live class `code` (a teacher's page coming back after a reload)."""
        with self._connect() as db:
            try:
                self._teacher_row(db, code, secret)
            except ClassError:
                return False
        return True

    def _teacher_row(self, db: sqlite3.Connection, code: str, secret: str) -> tuple[str, str]:
        """(secret's SHA-256, current question) of a live class whose secret is `secret`; else ClassError."""
        row = db.execute(
            "SELECT secret_sha, question, touched FROM classes WHERE code = ?", (normalize_code(code) or "",)
        ).fetchone()
        if row is None or self._expired(row[2]):
            raise ClassError("no_class")
        if not isinstance(secret, str) or not hmac.compare_digest(row[0], _sha(secret)):
            raise ClassError("not_teacher")
        return row[0], row[1]

    # ---- the students --------------------------------------------------------------------------

    def state(self, code: str) -> ClassState | None:
        """The class as a student's page follows it, or None when there is no such live class (one
        primary-key read: what every student's poll costs)."""
        code = normalize_code(code) or ""
        with self._connect() as db:
            row = db.execute(
                "SELECT step, model, text, question, version, touched, "
                "EXISTS (SELECT 1 FROM reveals r WHERE r.code = c.code AND r.question = c.question) "
                "FROM classes c WHERE code = ?",
                (code,),
            ).fetchone()
        if row is None or self._expired(row[5]):
            return None
        step, model, text, question, version, _, revealed = row
        return ClassState(code, step, model, text, question, bool(revealed), version)

    def join(self, code: str, student: str) -> ClassState:
        """Count `student` (an anonymous per-session id) in the class; joining twice counts once."""
        self.purge_expired()
        state = self._require(code)
        with self._connect(write=True) as db:
            db.execute("INSERT OR IGNORE INTO students VALUES (?, ?)", (state.code, _bounded(student, 64)))
        return state

    def answer(self, code: str, student: str, question: str, answer: str) -> None:
        """Record (or change) `student`'s answer to `question`: only the class's current question, only before
        Reveal. Also touches the class, so a class that is answering does not expire."""
        if not isinstance(answer, str) or not answer.strip() or len(answer) > MAX_ANSWER_CHARS:
            raise ClassError("bad_answer")
        code = normalize_code(code) or ""
        with self._connect(write=True) as db:
            row = db.execute("SELECT question, touched FROM classes WHERE code = ?", (code,)).fetchone()
            if row is None or self._expired(row[1]):
                raise ClassError("no_class")
            if row[0] != question:
                raise ClassError("not_current")
            if db.execute("SELECT 1 FROM reveals WHERE code = ? AND question = ?", (code, question)).fetchone():
                raise ClassError("revealed")
            student = _bounded(student, 64)
            db.execute("INSERT OR IGNORE INTO students VALUES (?, ?)", (code, student))
            db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)", (code, question, student, answer.strip()))
            db.execute("UPDATE classes SET touched = ? WHERE code = ?", (self.clock(), code))

    def my_answer(self, code: str, student: str, question: str) -> str | None:
        """`student`'s own answer to `question`, or None."""
        with self._connect() as db:
            row = db.execute(
                "SELECT answer FROM answers WHERE code = ? AND question = ? AND student = ?",
                (normalize_code(code) or "", question, student),
            ).fetchone()
        return None if row is None else row[0]

    # ---- expiry --------------------------------------------------------------------------------

    def _expired(self, touched: float) -> bool:
        return self.clock() - touched > self.idle_s

    def _require(self, code: str) -> ClassState:
        state = self.state(code)
        if state is None:
            raise ClassError("no_class")
        return state

    def purge_expired(self) -> int:
        """Delete every class idle for longer than `idle_s`, with its students and answers; how many went."""
        with self._connect(write=True) as db:
            return db.execute("DELETE FROM classes WHERE touched < ?", (self.clock() - self.idle_s,)).rowcount


def _bounded(value: object, limit: int = MAX_KEY_CHARS) -> str:
    """A text the store keeps, cut to `limit` characters (never a non-string)."""
    if not isinstance(value, str):
        raise ClassError("bad_input")
    return value[:limit]
