"""The class's own sentences: plain, cut, limited per student, only for the current step, read by the teacher without
identity, and deleted with the class (ended or expired)."""

from __future__ import annotations

import pytest

from runs.class_sentences import MAX_PER_STUDENT, MAX_SENTENCE_CHARS, MAX_SHOWN, ClassSentences, clean_sentence
from runs.classroom_store import ClassError, ClassStore, question_id


@pytest.fixture
def room(tmp_path):
    now = [1000.0]
    store = ClassStore(tmp_path, idle_s=60, clock=lambda: now[0])
    code, secret = store.create(3, "en-zh", "I like tea.")
    return store, ClassSentences(store), code, secret, question_id(3, "en-zh", "I like tea."), now


def test_sentences_are_kept_in_order_without_who_sent_them(room):
    _store, sentences, code, secret, q, _ = room
    sentences.submit(code, "alice", q, "The cat sleeps.")
    sentences.submit(code, "bob", q, "我喜欢茶。")
    assert sentences.sentences(code, secret, q) == ["The cat sleeps.", "我喜欢茶。"]
    with pytest.raises(ClassError):
        sentences.sentences(code, "not the secret", q)


def test_hostile_and_huge_sentences_are_cut_to_plain_text(room):
    _, sentences, code, secret, q, _ = room
    hostile = "<script>alert(1)</script> **bold** [x](javascript:alert(1))\x00\x1b[31m\u202e\n\tnext" + "字" * 10_000
    sent = sentences.submit(code, "eve", q, hostile)
    assert sent.cut and len(sent.text) == MAX_SENTENCE_CHARS
    assert "\x00" not in sent.text and "\x1b" not in sent.text and "\u202e" not in sent.text and "\n" not in sent.text
    assert sentences.sentences(code, secret, q) == [sent.text]  # stored as the plain text it is (shown inert by md_literal)
    assert clean_sentence("  a \n b  ") == ("a b", False)
    with pytest.raises(ClassError, match="bad_answer"):
        sentences.submit(code, "eve", q, " \x00\n ")
    with pytest.raises(ClassError, match="bad_input"):
        sentences.submit(code, "eve", q, 42)


def test_a_student_may_send_a_few_and_the_step_holds_a_bounded_number(room):
    _, sentences, code, secret, q, _ = room
    for i in range(MAX_PER_STUDENT):
        sentences.submit(code, "alice", q, f"sentence {i}")
    with pytest.raises(ClassError, match="limit"):
        sentences.submit(code, "alice", q, "one more")
    assert sentences.mine(code, "alice", q) == MAX_PER_STUDENT
    for i in range(MAX_SHOWN):
        try:
            sentences.submit(code, f"student {i}", q, f"s {i}")
        except ClassError:
            break
    assert len(sentences.sentences(code, secret, q)) == MAX_SHOWN


def test_only_the_current_step_of_a_live_class_takes_sentences(room):
    _store, sentences, code, _secret, q, _ = room
    with pytest.raises(ClassError, match="not_current"):
        sentences.submit(code, "alice", question_id(4, "en-zh", "I like tea."), "late")
    with pytest.raises(ClassError, match="no_class"):
        sentences.submit("ZZZZZ", "alice", q, "nowhere")


def test_sentences_go_with_the_class_ended_or_expired(room, tmp_path):
    store, sentences, code, secret, q, now = room
    sentences.submit(code, "alice", q, "gone soon")
    store.end(code, secret)
    assert sentences.count_all(code) == 0
    code2, _ = store.create(1, "en-zh", "x")
    q2 = question_id(1, "en-zh", "x")
    sentences.submit(code2, "bob", q2, "expires")
    now[0] += 3600
    store.purge_expired()
    assert sentences.count_all(code2) == 0
    # a store opened afresh on the same file finds the table (created if missing, kept if there)
    assert ClassSentences(ClassStore(tmp_path)).count_all(code2) == 0
