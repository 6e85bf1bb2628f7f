"""`translate-en-zh`: English → Chinese on a small synthetic grammar.

    English:  SUBJECT VERB OBJECT [PLACE] [TIME]      i read a book in the library today
    Chinese:  SUBJECT [TIME] [在 PLACE] VERB OBJECT    我 今天 在 图书馆 读 一 本 书

What a model has to learn, and what its attention should show:
- Reordering: time and place phrases move from the end of the sentence to before the verb.
- Measure words: a number needs the noun's own measure word (一 本 书, 两 辆 车, 三 只 猫), so the
  decoder must look ahead to the noun before writing it. "two" is 两 before a measure word.
- Agreement that Chinese does not mark: "he reads" and "i read" both become 读, "books" becomes 书.
- Adjectives take 的: "a red car" → 一 辆 红色 的 车. Drinks count by container: "two cups of tea" → 两 杯 茶.

Alignment choices (`Example.alignment[j]`, the source word a target word translates):
- 在 aligns to the English preposition ("in", "at"); the place noun to its noun ("library").
- A measure word and the particle 的 align to None: English has no word for them. (A container
  measure like 杯 aligns to "cup", which it translates.) Unaligned English words ("the", "of", "on")
  simply have no target word pointing at them.
- A multi-word phrase translated as a whole aligns every target word to the head, its last word
  ("every day" → 每天 → "day", "living room" → 客厅 → "room"), unless the lexicon says otherwise
  ("this morning" → 今天 早上 word for word).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from transformer.tasks import lexicon_zh as lex
from transformer.tasks.english import (
    EnglishLexicon,
    Sentence,
    Shares,
    choose_sentence,
    english_noun,
    english_plural,
    english_verb,
    indefinite_article,
)
from transformer.tasks.phrase import Phrase, arrange, combine
from transformer.tasks.words import Grammar, WordTask, check_object, fitting_adjective, grammar_of, lookup, words_of

# plural: objects counted with two..nine rather than a/one/this/that;
# adjective: objects with an adjective, when the noun has a compatible one
SHARES = Shares(plural=0.4, adjective=0.4, place=0.5, time=0.5)

ENGLISH_ORDER = ("subject", "verb", "object", "place", "time")
CHINESE_ORDER = ("subject", "time", "place", "verb", "object")
PLACE_WORD = "在"
ADJECTIVE_PARTICLE = "的"
OF = "of"

Object = lex.Noun | lex.Mass

_SUBJECTS = {s.en: s for s in lex.SUBJECTS}
_VERBS = {v.en: v for v in lex.VERBS}
_NOUNS = {n.en: n for n in lex.NOUNS}
_MASSES = {m.en: m for m in lex.MASSES}
_PLACES = {f"{preposition} {noun_phrase}": (preposition, noun_phrase, zh) for preposition, noun_phrase, zh in lex.PLACES}
_TIMES = {en: (zh, alignment) for en, zh, alignment in lex.TIMES}
_PLACE_NAMES = tuple(_PLACES)
_DETERMINER_WORDS = {False: tuple(lex.SINGULAR_DETERMINERS), True: tuple(lex.PLURAL_DETERMINERS)}
# What goes with what: a verb takes the nouns and masses sharing one of its tags, a noun the adjectives.
_OBJECTS: dict[str, list[Object]] = {v.en: [o for o in (*lex.NOUNS, *lex.MASSES) if o.tags & v.tags] for v in lex.VERBS}
_ADJECTIVES: dict[str, list[lex.Word]] = {n.en: [a for a in lex.ADJECTIVES if a.tags & n.tags] for n in lex.NOUNS}
_SUBJECT_WORDS = tuple(s.en for s in lex.SUBJECTS)
_VERB_WORDS = tuple(v.en for v in lex.VERBS)
_PLACE_WORDS = _PLACE_NAMES
_TIME_WORDS = tuple(time for time, *_ in lex.TIMES)


def _determiner(sentence: Sentence, next_word: str) -> Phrase:
    """a/one/this/that (singular) or two..nine (plural) → 一/一/这/那 or 两..九; "a" becomes "an" before a vowel."""
    table = lex.PLURAL_DETERMINERS if sentence.plural else lex.SINGULAR_DETERMINERS
    zh = lookup(table, sentence.determiner, "plural determiner" if sentence.plural else "singular determiner")
    return Phrase.of(indefinite_article(next_word) if sentence.determiner == "a" else sentence.determiner, zh)


def _object(sentence: Sentence, verb: lex.Word) -> Phrase:
    """NUM [ADJ] NOUN → NUM MEASURE [ADJ 的] NOUN, or NUM CONTAINER of MASS → NUM CONTAINER-MEASURE MASS."""
    table = _MASSES if sentence.container else _NOUNS
    thing = lookup(table, sentence.noun, "drink or dish" if sentence.container else "noun")
    check_object(verb.en, bool(thing.tags & verb.tags), sentence, thing.containers if isinstance(thing, lex.Mass) else None)
    if isinstance(thing, lex.Mass):
        en_container = english_noun(sentence.container, sentence.plural)
        return combine(
            [
                _determiner(sentence, en_container),
                Phrase.of(en_container, lex.CONTAINERS[sentence.container]),  # the container is the measure word
                Phrase.of(OF, ""),
                Phrase.of(thing.en, thing.zh),
            ]
        )
    en_noun = english_noun(thing.en, sentence.plural)
    parts = [_determiner(sentence, sentence.adjective or en_noun), Phrase.unaligned(thing.measure)]
    if sentence.adjective is not None:
        adjective = fitting_adjective(_ADJECTIVES, thing.en, sentence.adjective)
        parts.append(Phrase((adjective.en,), (adjective.zh, ADJECTIVE_PARTICLE), (0, None)))
    return combine([*parts, Phrase.of(en_noun, thing.zh)])


@dataclass(frozen=True, kw_only=True)
class EnglishToChinese(WordTask):
    """English → Chinese: reordering of time and place, measure words chosen by the noun."""

    name: str = "translate-en-zh"
    description_en: str = (
        "English to Chinese on a small made-up grammar. Time and place move before the verb and every noun "
        "brings its own measure word (一 本 书, 一 辆 车), so attention must reorder the sentence and look ahead "
        "to the noun before writing its measure word."
    )
    description_zh: str = (
        "在一个小型人造语法上把英语翻译成中文。时间和地点要移到动词前面，每个名词都有自己的量词（一 本 书、一 辆 车），"
        "所以注意力必须调整词序，并在写量词之前先看向后面的名词。"
    )

    def choose(self, rng: random.Random) -> Sentence:
        return choose_sentence(
            rng,
            subjects=_SUBJECT_WORDS,
            verbs=_VERB_WORDS,
            objects=_OBJECTS,
            adjectives=_ADJECTIVES,
            determiners=_DETERMINER_WORDS,
            places=_PLACE_WORDS,
            times=_TIME_WORDS,
            shares=SHARES,
        )

    def render(self, sentence: Sentence) -> Phrase:
        subject = lookup(_SUBJECTS, sentence.subject, "subject")
        verb = lookup(_VERBS, sentence.verb, "verb")
        parts = {
            "subject": Phrase.of(subject.en, subject.zh, subject.alignment),
            "verb": Phrase.of(english_verb(verb.en, subject.person), verb.zh),
            "object": _object(sentence, verb),
        }
        if sentence.place is not None:
            preposition, noun_phrase, zh = lookup(_PLACES, sentence.place, "place")
            parts["place"] = combine([Phrase.of(preposition, PLACE_WORD), Phrase.of(noun_phrase, zh)])
        if sentence.time is not None:
            parts["time"] = Phrase.of(sentence.time, *lookup(_TIMES, sentence.time, "time"))
        return arrange(parts, ENGLISH_ORDER, CHINESE_ORDER)

    def grammar(self) -> Grammar:
        return grammar_of(_SUBJECT_WORDS, _OBJECTS, _ADJECTIVES, _DETERMINER_WORDS, _PLACE_WORDS, _TIME_WORDS)

    def english_lexicon(self) -> EnglishLexicon:
        return EnglishLexicon(
            subjects={s.en: s.person for s in lex.SUBJECTS},
            verbs=list(_VERBS),
            determiners={**{d: (False,) for d in lex.SINGULAR_DETERMINERS}, **{d: (True,) for d in lex.PLURAL_DETERMINERS}},
            nouns=list(_NOUNS),
            adjectives=[a.en for a in lex.ADJECTIVES],
            containers=list(lex.CONTAINERS),
            masses=list(_MASSES),
            places=list(_PLACES),
            times=list(_TIMES),
        )

    def source_words(self) -> Iterable[str]:
        nouns, masses = _reachable()
        yield from words_of(s.en for s in lex.SUBJECTS)
        yield from words_of(v.en for v in lex.VERBS)
        yield from words_of(english_verb(v.en, "3s") for v in lex.VERBS)
        yield from [*lex.SINGULAR_DETERMINERS, "an", *lex.PLURAL_DETERMINERS]
        for noun in nouns:
            yield from [noun.en, english_plural(noun.en), *(a.en for a in _ADJECTIVES[noun.en])]
        for mass in masses:
            yield from [mass.en, OF, *mass.containers, *map(english_plural, mass.containers)]
        yield from words_of(f"{p} {np}" for p, np, _ in lex.PLACES)
        yield from words_of(en for en, _, _ in lex.TIMES)

    def target_words(self) -> Iterable[str]:
        nouns, masses = _reachable()
        yield from words_of(s.zh for s in lex.SUBJECTS)
        yield from (v.zh for v in lex.VERBS)
        yield from [*lex.SINGULAR_DETERMINERS.values(), *lex.PLURAL_DETERMINERS.values()]
        for noun in nouns:
            yield from [noun.zh, noun.measure, *(a.zh for a in _ADJECTIVES[noun.en])]
            if _ADJECTIVES[noun.en]:
                yield ADJECTIVE_PARTICLE
        for mass in masses:
            yield from [mass.zh, *(lex.CONTAINERS[c] for c in mass.containers)]
        yield from [PLACE_WORD, *(zh for _, _, zh in lex.PLACES)]
        yield from words_of(zh for _, zh, _ in lex.TIMES)


def _reachable() -> tuple[list[lex.Noun], list[lex.Mass]]:
    """The nouns and masses some verb can take (only these can appear in a sentence)."""
    taken = {o.en for objects in _OBJECTS.values() for o in objects}
    return [n for n in lex.NOUNS if n.en in taken], [m for m in lex.MASSES if m.en in taken]
