"""The class's own sentences: in class mode a student may send a sentence of their own for the current step, and the
teacher's screen shows the chosen head across all of them (issue 38).

Kept in the class file (`runs.classroom_store`, the same SQLite file) in a table of their own, declared in the store's
one schema and read through the store's own connections (so a storage fault is the store's `StoreUnavailable`, and a
file made anew has the table too). Each row references its class with `ON DELETE CASCADE`, and every connection of the
class store turns foreign keys on, so ending a class (or its expiry) deletes its sentences with it.
What is kept is plain text: control characters dropped, whitespace collapsed, cut to `MAX_SENTENCE_CHARS`; at most
`MAX_PER_STUDENT` a student per step and `MAX_SHOWN` a step. The anonymous per-session student id is stored only to
count a student's sentences: the teacher's read returns the texts alone, in the order sent, never who sent them.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from runs.classroom_store import ClassError, ClassStore, normalize_code

MAX_SENTENCE_CHARS = 120  # about 25 words: what a shipped translator reads, and a readable small-multiple title
MAX_PER_STUDENT = 3  # sentences one student may send for one step
MAX_SHOWN = 24  # sentences a step keeps (the first sent): a small multiple the teacher's screen can hold


def clean_sentence(raw: object, limit: int = MAX_SENTENCE_CHARS) -> tuple[str, bool]:
    """(`raw` as plain one-line text: control and format characters dropped, whitespace collapsed, cut to `limit`;
    whether it was cut). Raises ClassError("bad_input") for a non-string."""
    if not isinstance(raw, str):
        raise ClassError("bad_input")
    kept = "".join(" " if ch.isspace() else ch for ch in raw[: limit * 4] if ch.isspace() or unicodedata.category(ch)[0] != "C")
    text = " ".join(kept.split())
    return text[:limit], len(text) > limit or len(raw) > limit * 4


@dataclass(frozen=True)
class Sent:
    """What a student's send did: the text kept and whether it was cut."""

    text: str
    cut: bool


class ClassSentences:
    """The class's sentences, in the class store's file."""

    def __init__(self, store: ClassStore) -> None:
        self.store = store

    def submit(self, code: str, student: str, question: str, raw: object) -> Sent:
        """Keep a student's sentence for the class's current question. Raises ClassError: "no_class", "not_current"
        (the class moved on), "bad_answer" (nothing left after cleaning), "limit" (this student sent
        `MAX_PER_STUDENT` already, or the step holds `MAX_SHOWN`)."""
        text, cut = clean_sentence(raw)
        if not text:
            raise ClassError("bad_answer")
        state = self.store.state(code)
        if state is None:
            raise ClassError("no_class")
        if state.question != question:
            raise ClassError("not_current")
        student = str(student)[:64]
        with self.store.connection(write=True) as db:  # the write lock first: the count and the insert cannot race
            mine, everyone = db.execute(
                "SELECT SUM(student = ?), COUNT(*) FROM class_sentences WHERE code = ? AND question = ?",
                (student, state.code, question),
            ).fetchone()
            if (mine or 0) >= MAX_PER_STUDENT or everyone >= MAX_SHOWN:
                raise ClassError("limit")
            db.execute("INSERT INTO class_sentences VALUES (?, ?, ?, ?)", (state.code, question, student, text))
        return Sent(text, cut)

    def mine(self, code: str, student: str, question: str) -> int:
        """How many sentences `student` sent for `question`."""
        with self.store.connection() as db:
            row = db.execute(
                "SELECT COUNT(*) FROM class_sentences WHERE code = ? AND question = ? AND student = ?",
                (normalize_code(code) or "", question, str(student)[:64]),
            ).fetchone()
        return int(row[0])

    def sentences(self, code: str, secret: str, question: str) -> list[str]:
        """The class's sentences for `question`, in the order sent, without who sent them (the teacher's read:
        needs the class's secret). Raises ClassError("no_class"/"not_teacher") as the store does."""
        if not self.store.leads(code, secret):
            raise ClassError("not_teacher")
        with self.store.connection() as db:
            rows = db.execute(
                "SELECT text FROM class_sentences WHERE code = ? AND question = ? ORDER BY rowid LIMIT ?",
                (normalize_code(code) or "", question, MAX_SHOWN),
            ).fetchall()
        return [text for (text,) in rows]

    def count_all(self, code: str) -> int:
        """Every sentence kept for class `code` (any step): what ending the class must bring to 0."""
        with self.store.connection() as db:
            return int(
                db.execute("SELECT COUNT(*) FROM class_sentences WHERE code = ?", (normalize_code(code) or "",)).fetchone()[0]
            )
