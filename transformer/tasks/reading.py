"""What each word of a typed sentence could be in a translation grammar: its role and its lexicon entry.

The diagnosis of a sentence outside the grammar (`diagnosis.py`) and the "what can I type?" panel
(`describe.py`) both need the grammar's lexicon by category in the *source* language: English for
`translate-en-zh` and `translate-en-fr`, Chinese for `translate-zh-en`. A `Lexicon` maps each source
phrase of a category to the `Sentence` field value it stands for ("apples" → noun "apple", plural;
"reads" → verb "read"; 两 → determiner "two", plural), and `read` finds them in a word list, longest
phrase first, keeping every role a phrase can play ("clean" is a verb and an adjective).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from transformer.tasks import lexicon_zh
from transformer.tasks.english import EnglishLexicon, english_noun, english_third_person
from transformer.tasks.words import WordTask

ROLES = ("subject", "verb", "determiner", "adjective", "noun", "container", "mass", "place", "time")
"""The lexicon categories, in the order a sentence uses them (a `Sentence` field each, "mass" is its noun)."""

CATEGORY_NAMES: dict[str, tuple[str, str]] = {  # role → (English, Chinese) name, for the "what can I type?" panel
    "subject": ("subject", "主语"),
    "verb": ("verb", "动词"),
    "determiner": ("determiner or number", "限定词或数词"),
    "measure": ("measure word", "量词"),
    "adjective": ("adjective", "形容词"),
    "noun": ("noun", "名词"),
    "container": ("container", "容器"),
    "mass": ("drink or dish", "饮料或食物"),
    "place": ("place", "地点"),
    "time": ("time", "时间"),
    "object": ("object", "宾语"),
}

Value = tuple[str, bool | None]  # (the Sentence field's value, plural? or None when the phrase does not say)


@dataclass(frozen=True)
class Lexicon:
    """Source phrases by role: `entries[role][phrase words]` → the values the phrase can stand for, in lexicon order."""

    entries: Mapping[str, Mapping[tuple[str, ...], tuple[Value, ...]]]
    function_words: frozenset[str]  # words with no role of their own: "the", "of", "in", 在, 的, measure words

    @property
    def longest(self) -> int:
        return max(len(phrase) for table in self.entries.values() for phrase in table)


@dataclass(frozen=True)
class Reading:
    """One phrase of the input: where it is, as typed, and every (role, value) it can have."""

    start: int
    end: int
    text: str
    options: tuple[tuple[str, Value], ...]


def read(words: Sequence[str], lexicon: Lexicon) -> list[Reading]:
    """The lexicon phrases found in `words`, left to right, longest match first; function and unknown words skipped."""
    found, i = [], 0
    while i < len(words):
        for n in range(min(lexicon.longest, len(words) - i), 0, -1):
            phrase = tuple(words[i : i + n])
            options = tuple((role, value) for role in ROLES for value in lexicon.entries[role].get(phrase, ()))
            if options:
                found.append(Reading(i, i + n, " ".join(phrase), options))
                i += n
                break
        else:
            i += 1
    return found


def _add(table: dict[tuple[str, ...], list[Value]], phrase: str, value: Value) -> None:
    values = table.setdefault(tuple(phrase.split()), [])
    if value not in values:
        values.append(value)


def english_lexicon(lexicon: EnglishLexicon) -> Lexicon:
    """English phrases by role, with every inflected form a sentence can use ("reads", "apples", "an")."""
    tables: dict[str, dict[tuple[str, ...], list[Value]]] = {role: {} for role in ROLES}
    for subject in lexicon.subjects:
        _add(tables["subject"], subject, (subject, None))
    for verb in lexicon.verbs:
        _add(tables["verb"], verb, (verb, None))
        _add(tables["verb"], english_third_person(verb), (verb, None))
    for word, numbers in lexicon.determiners.items():
        for plural in numbers:
            _add(tables["determiner"], word, (word, plural))
            if word == "a":
                _add(tables["determiner"], "an", ("a", plural))
    for adjective in lexicon.adjectives:
        _add(tables["adjective"], adjective, (adjective, None))
    for role, words in (("noun", lexicon.nouns), ("container", lexicon.containers)):
        for word in words:
            for plural in (False, True):
                _add(tables[role], english_noun(word, plural), (word, plural))
    for role, phrases in (("mass", lexicon.masses), ("place", lexicon.places), ("time", lexicon.times)):
        for phrase in phrases:
            _add(tables[role], phrase, (phrase, None))
    entries = {role: {k: tuple(v) for k, v in table.items()} for role, table in tables.items()}
    return Lexicon(entries, frozenset({"the", "of", "in", "at", "on"}))


def chinese_lexicon() -> Lexicon:
    """The Chinese phrases of the `translate-en-zh` grammar by role (what `translate-zh-en` reads)."""
    lex = lexicon_zh
    tables: dict[str, dict[tuple[str, ...], list[Value]]] = {role: {} for role in ROLES}
    for s in lex.SUBJECTS:
        _add(tables["subject"], s.zh, (s.en, None))
    for v in lex.VERBS:
        _add(tables["verb"], v.zh, (v.en, None))
    for plural, determiners in ((False, lex.SINGULAR_DETERMINERS), (True, lex.PLURAL_DETERMINERS)):
        for en, zh in determiners.items():
            _add(tables["determiner"], zh, (en, plural))
    for a in lex.ADJECTIVES:
        _add(tables["adjective"], a.zh, (a.en, None))
    for n in lex.NOUNS:
        _add(tables["noun"], n.zh, (n.en, None))
    for en, zh in lex.CONTAINERS.items():
        _add(tables["container"], zh, (en, None))
    for m in lex.MASSES:
        _add(tables["mass"], m.zh, (m.en, None))
    for preposition, noun_phrase, zh in lex.PLACES:
        _add(tables["place"], zh, (f"{preposition} {noun_phrase}", None))
    for en, zh, _ in lex.TIMES:
        _add(tables["time"], zh, (en, None))
    entries = {role: {k: tuple(v) for k, v in table.items()} for role, table in tables.items()}
    measures = {n.measure for n in lex.NOUNS}
    return Lexicon(entries, frozenset({"在", "的", *measures}))


@lru_cache(maxsize=8)
def source_lexicon(task: WordTask) -> Lexicon:
    """The lexicon a translation task reads its source with (Chinese for a task with a segmented source)."""
    return chinese_lexicon() if getattr(task, "segmented_source", False) else english_lexicon(task.english_lexicon())
