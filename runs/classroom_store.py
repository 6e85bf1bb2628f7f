"""Class mode's shared state: one SQLite file that every server process on the machine reads and writes.

A class is a short code (what students type or scan), the teacher's step, model and sentence, and
the students' answers. Why SQLite (Python's own `sqlite3`) and not session state: a school server may
run several `streamlit run` processes (one per core), and a restart must lose no class; a file in WAL
mode lets every process read while one writes, and each write is one short transaction.

What is kept about a student: an anonymous id the student's browser keeps in a cookie, and that
browser's answers in this class. A class ends when the teacher ends it or after `IDLE_S` without a
move or an answer; its rows are deleted then (`purge_expired` runs on every create and join).

Who may do what: `create` returns the class's secret once; only its SHA-256 is stored. Moving the
class (step, model, sentence), revealing and ending all need the secret, compared in constant time,
so a student can neither drive the class by URL nor by replaying what their own browser sent (it
never held the secret). A student may answer only the current question, and only until it is
revealed: an answer replayed later, or for another step, is refused. A class admits at most its
`cap` students (the teacher sets it, `DEFAULT_CAP`): one script cannot stuff it with fake answers.

Storage faults (the file deleted, overwritten with garbage, made immutable, its folder read-only) never
reach a page as an `sqlite3` error: every call raises `StoreUnavailable` (a `ClassError`, reason
"unavailable") instead, and the page goes on without class mode. The store heals itself: each call opens
the file anew, so a deleted file is created again with its tables (`_open`), and a file that is not a
database is moved aside (`classes.sqlite3.broken-<time>`) and replaced. `renewed_at` says when this
process last found the file new, so a teacher's page can put its class back (`restore`). The log says
a fault once when it starts and once when a write succeeds again, never once per poll.

No Streamlit here: `ui/pages/lesson/class_mode.py` draws the panels, `benchmarks/class_mode.py` and the tests call
this directly.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import re
import secrets
import sqlite3
import sys
import threading
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
DEFAULT_CAP = 60  # students a class admits unless the teacher sets another number
MAX_CAP = 1_000  # the most a teacher may set (a school hall)
BROKEN_SUFFIX = ".broken-"  # a file that was not a database, moved aside: classes.sqlite3.broken-<unix time>
LOG = logging.getLogger("atlas.classroom")
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
    touched REAL NOT NULL,
    cap INTEGER NOT NULL DEFAULT 60
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value REAL NOT NULL
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
CREATE TABLE IF NOT EXISTS class_sentences (
    code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE,
    question TEXT NOT NULL,
    student TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS class_sentences_by_question ON class_sentences (code, question);
"""
# Columns added after a file may already exist on a school's server: (table, column, its declaration).
MIGRATIONS = (("classes", "cap", f"INTEGER NOT NULL DEFAULT {DEFAULT_CAP}"),)


class ClassError(Exception):
    """A refused request, with a code the page turns into a sentence in the user's language:
    "no_class" (unknown, ended or expired), "not_teacher" (wrong secret), "not_current" (an answer to a
    question the class is not on), "revealed" (answers are closed), "bad_answer" (empty or too long), "bad_input" (not a text),
    "full" (the class admits no more students), "unavailable" (the class file cannot be read or written:
    `StoreUnavailable`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class StoreUnavailable(ClassError):
    """The class file cannot be used right now (deleted and not creatable, not a database, read-only, locked too
    long). Not the class's fault: the page keeps its role and retries, and the lesson goes on meanwhile."""

    def __init__(self, detail: str) -> None:
        super().__init__("unavailable")
        self.detail = detail


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
    cap: int = DEFAULT_CAP  # the most students the class admits


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
        self.renewed_at: float | None = None  # when this process last found the file new (deleted, or moved aside)
        self.fault: str | None = None  # the fault being waited out (logged once), None while the file works
        self._lock = threading.Lock()
        self._opened = False  # the first open finds a new file normally; any later one means the old file went
        with contextlib.suppress(StoreUnavailable), self._connect():  # a server starts even when the file cannot be used
            pass

    # ---- the file: one place opens it and makes its tables --------------------------------------

    def _open(self) -> sqlite3.Connection:
        """A connection to the file, its tables made first when the file is new (never created, or deleted since:
        SQLite creates an empty one on open). A file that is not a database is moved aside and replaced."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        for attempt in (1, 2):
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            try:
                db.execute("PRAGMA foreign_keys=ON")
                db.execute("PRAGMA synchronous=NORMAL")  # WAL: a process crash loses nothing, a power cut the last commit
                if db.execute("PRAGMA schema_version").fetchone()[0] == 0 or not self._opened:
                    self._make_tables(db)
                return db
            except sqlite3.DatabaseError as err:
                db.close()
                if attempt == 1 and _not_a_database(err):
                    self._move_aside()
                    continue
                raise
        raise AssertionError("unreachable")

    def _make_tables(self, db: sqlite3.Connection) -> None:
        """The schema (idempotent: every table `IF NOT EXISTS`, every later column added where missing). The one
        place a table or column is declared; a new table goes in `SCHEMA`, a new column in `MIGRATIONS`."""
        new = db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0
        db.execute("PRAGMA journal_mode=WAL")  # kept in the file: readers never wait for the writer
        db.executescript(SCHEMA)
        db.execute("INSERT OR IGNORE INTO meta VALUES ('created', ?)", (self.clock(),))  # `created_at`
        for table, column, declaration in MIGRATIONS:
            if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        if new and self._opened:
            self.renewed_at = self.clock()
            LOG.warning("class mode: %s was new again (deleted or replaced); classes held in it are gone", self.path)
        self._opened = True

    def _move_aside(self) -> None:
        """A file that is not a database (overwritten with garbage) goes to `<name>.broken-<time>`, with its WAL
        files, so the next open starts a fresh one. Nothing in it could be read anyway."""
        stamp = f"{BROKEN_SUFFIX}{int(self.clock())}"
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.replace(f"{self.path}{suffix}", f"{self.path}{stamp}{suffix}")
        LOG.warning("class mode: %s was not a database; moved aside to %s", self.path, self.path.name + stamp)
        self._opened = True  # the fresh file that replaces it counts as renewed

    def _failed(self, err: BaseException) -> StoreUnavailable:
        """The exception a page gets for a storage fault; the log hears of it once, when it starts."""
        detail = f"{type(err).__name__}: {err}"
        with self._lock:
            first, self.fault = self.fault is None, detail
        if first:
            LOG.warning("class mode unavailable (%s, %s); the lesson goes on without it until writes work", detail, self.path)
        return StoreUnavailable(detail)

    def _recovered(self) -> None:
        with self._lock:
            was, self.fault = self.fault, None
        if was is not None:
            LOG.warning("class mode available again (%s)", self.path)

    @contextlib.contextmanager
    def _connect(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection in autocommit mode; `write`: inside BEGIN IMMEDIATE … COMMIT (the write lock is
        taken first, so a check-then-write never races another process's write). Any `sqlite3` or file
        error becomes `StoreUnavailable`; a write that commits ends a fault (a read alone proves less: an
        immutable file still reads)."""
        try:
            db = self._open()
        except (sqlite3.Error, OSError) as err:
            raise self._failed(err) from err
        try:
            if not write:
                yield db
                return
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            if self.fault is not None:
                self._recovered()
        except (sqlite3.Error, OSError) as err:
            raise self._failed(err) from err
        finally:
            db.close()

    def connection(self, write: bool = False) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """The store's connection (`_connect`) for a table another module keeps in the class file
        (`runs.class_sentences`): the same schema, fault handling and write lock."""
        return self._connect(write)

    def created_at(self) -> float:
        """When the file's tables were made: a class that started before it and is gone was lost with an older
        file (deleted or replaced), not ended, so its teacher may `restore` it (any process can tell)."""
        with self._connect() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'created'").fetchone()
        return 0.0 if row is None else float(row[0])

    def writable(self) -> bool:
        """Whether a write goes through now (a change-nothing UPDATE: an immutable file refuses even that), so a
        page waiting out a fault knows when to come back. A success ends the fault (and says so in the log once)."""
        try:
            with self._connect(write=True) as db:
                db.execute("UPDATE classes SET touched = touched WHERE 0")
        except StoreUnavailable:
            return False
        return True

    # ---- the teacher ---------------------------------------------------------------------------

    def create(self, step: int, model: str, text: str, cap: int = DEFAULT_CAP) -> tuple[str, str]:
        """A new class on `step` of `model` and `text` admitting `cap` students: (its code, its secret). The secret
        is not stored."""
        model, text, cap = _bounded(model), _bounded(text), _cap(cap)
        secret = secrets.token_urlsafe(24)
        self.purge_expired()
        with self._connect(write=True) as db:
            while True:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if db.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone() is None:
                    break
            db.execute(
                "INSERT INTO classes VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)",
                (code, _sha(secret), int(step), model, text, question_id(step, model, text), self.clock(), cap),
            )
        return code, secret

    def restore(self, code: str, secret: str, step: int, model: str, text: str, cap: int = DEFAULT_CAP) -> ClassState:
        """Put back a class the file lost (it was deleted or replaced: `renewed_at`), under its old code and secret,
        so the teacher's page leads on and the students' pages find it again. A code taken meanwhile by another
        class is not overwritten (ClassError "no_class" then: the teacher starts anew)."""
        code = normalize_code(code)
        if code is None or not isinstance(secret, str):
            raise ClassError("no_class")
        model, text, cap = _bounded(model), _bounded(text), _cap(cap)
        with self._connect(write=True) as db:
            db.execute(
                "INSERT OR IGNORE INTO classes VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)",
                (code, _sha(secret), int(step), model, text, question_id(step, model, text), self.clock(), cap),
            )
            self._teacher_row(db, code, secret)
        return self._require(code)

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
            cap = db.execute("SELECT cap FROM classes WHERE code = ?", (normalize_code(code),)).fetchone()[0]
            rows = db.execute(
                "SELECT answer, COUNT(*) FROM answers WHERE code = ? AND question = ? GROUP BY answer", (code, question)
            ).fetchall()
        counts = dict(Counter({answer: n for answer, n in rows}).most_common())
        return Tally(joined, sum(counts.values()), counts, cap)

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
        """Count `student` (an anonymous per-browser id) in the class; joining twice counts once. A class that
        holds its `cap` students already admits nobody new (ClassError "full")."""
        self.purge_expired()
        state = self._require(code)
        with self._connect(write=True) as db:
            self._admit(db, state.code, _bounded(student, 64))
        return state

    def is_member(self, code: str, student: str) -> bool:
        """Whether `student` is counted in the class already (a second tab of the same browser)."""
        with self._connect() as db:
            row = db.execute(
                "SELECT 1 FROM students WHERE code = ? AND student = ?", (normalize_code(code) or "", student)
            ).fetchone()
        return row is not None

    def _admit(self, db: sqlite3.Connection, code: str, student: str) -> None:
        """Count `student` in class `code` unless they are already, or the class is full (inside a write)."""
        if db.execute("SELECT 1 FROM students WHERE code = ? AND student = ?", (code, student)).fetchone():
            return
        joined = db.execute("SELECT COUNT(*) FROM students WHERE code = ?", (code,)).fetchone()[0]
        if joined >= db.execute("SELECT cap FROM classes WHERE code = ?", (code,)).fetchone()[0]:
            raise ClassError("full")
        db.execute("INSERT INTO students VALUES (?, ?)", (code, student))

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
            self._admit(db, code, student)  # a student the file lost (it was renewed) counts again, within the cap
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


def _not_a_database(err: sqlite3.DatabaseError) -> bool:
    """SQLITE_NOTADB: the file's bytes are not an SQLite database (garbage written over it)."""
    return getattr(err, "sqlite_errorname", "") == "SQLITE_NOTADB" or "not a database" in str(err)


def _cap(value: object) -> int:
    """A class's cap on students: a whole number in 1 … MAX_CAP."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_CAP:
        raise ClassError("bad_input")
    return value


def _bounded(value: object, limit: int = MAX_KEY_CHARS) -> str:
    """A text the store keeps, cut to `limit` characters (never a non-string)."""
    if not isinstance(value, str):
        raise ClassError("bad_input")
    return value[:limit]
