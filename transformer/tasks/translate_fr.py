"""`translate-en-fr`: English → French on a small synthetic grammar.

    English:  SUBJECT VERB DET [ADJ] NOUN [PLACE] [TIME]    we see the white houses in the park
    French:   SUBJECT VERB DET NOUN [ADJ] [PLACE] [TIME]    nous voyons les maisons blanches dans le parc

What a model has to learn, and what its attention should show:
- Local reordering: the adjective moves after the noun ("the black cat" → "le chat noir").
- Agreement in gender and number: the article and the adjective follow the noun's gender, which the
  English does not show ("the white house" → "la maison blanche", "the white horse" → "le cheval
  blanc"), so writing "la" means looking ahead at the noun.
- Verb agreement with the subject: "i see" → "je vois", "we see" → "nous voyons".
- Possessives agree with the thing owned, not the owner: "his car" and "her car" are both "sa voiture".
- Drinks count by container: "two cups of tea" → "deux tasses de thé".

Alignment choices: word for word where the languages match; "au" (à + le) aligns to "at"; French
words with no English counterpart ("les" in "tous les jours", "la" in "à la maison") align to None;
"look for" → "cherche" aligns to "look". See `lexicon_fr` for how elision (l', j') is avoided.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from transformer.tasks import lexicon_fr as lex
from transformer.tasks.english import (
    EnglishLexicon,
    Sentence,
    Shares,
    choose_sentence,
    english_noun,
    english_verb,
    indefinite_article,
)
from transformer.tasks.phrase import Phrase, arrange, combine
from transformer.tasks.words import (
    Grammar,
    NotInGrammar,
    WordTask,
    check_object,
    fitting_adjective,
    grammar_of,
    lookup,
    words_of,
)

SHARES = Shares(plural=0.35, adjective=0.5, place=0.5, time=0.35)

ORDER = ("subject", "verb", "object", "place", "time")  # the same in both languages

Object = lex.Noun | lex.Mass


def french_plural(noun: str) -> str:
    """The plural of a French noun: "chat" → "chats", "gâteau" → "gâteaux", "cheval" → "chevaux", "souris" → "souris"."""
    if noun.endswith(("s", "x", "z")):
        return noun
    if noun.endswith(("au", "eu")):
        return noun + "x"
    if noun.endswith("al"):
        return noun[:-2] + "aux"
    return noun + "s"


_SUBJECTS = {s.en: s for s in lex.SUBJECTS}
_VERBS = {v.en: v for v in lex.VERBS}
_NOUNS = {n.en: n for n in lex.NOUNS}
_MASSES = {m.en: m for m in lex.MASSES}
_PLACES = {en: (fr, alignment) for en, fr, alignment in lex.PLACES}
_TIMES = {en: (fr, alignment) for en, fr, alignment in lex.TIMES}
_DETERMINERS: dict[bool, dict[str, lex.Determiner]] = {  # plural? → English word → determiner
    False: {d.en_singular: d for d in (*lex.SINGULAR_DETERMINERS, *lex.BOTH_DETERMINERS) if d.en_singular},
    True: {d.en_plural: d for d in (*lex.BOTH_DETERMINERS, *lex.PLURAL_DETERMINERS) if d.en_plural},
}
_DETERMINER_WORDS = {plural: tuple(table) for plural, table in _DETERMINERS.items()}
# What goes with what: a verb takes the nouns and masses sharing one of its tags, a noun the adjectives.
_OBJECTS: dict[str, list[Object]] = {v.en: [o for o in (*lex.NOUNS, *lex.MASSES) if o.tags & v.tags] for v in lex.VERBS}
_ADJECTIVES: dict[str, list[lex.Adjective]] = {n.en: [a for a in lex.ADJECTIVES if a.tags & n.tags] for n in lex.NOUNS}
_SUBJECT_WORDS = tuple(s.en for s in lex.SUBJECTS)
_VERB_WORDS = tuple(v.en for v in lex.VERBS)
_PLACE_WORDS = tuple(place for place, *_ in lex.PLACES)
_TIME_WORDS = tuple(time for time, *_ in lex.TIMES)


def _determiner(sentence: Sentence, gender: str, next_word: str) -> Phrase:
    """The English determiner and its French form, agreeing with the noun's gender and number."""
    d = lookup(
        _DETERMINERS[sentence.plural], sentence.determiner, "plural determiner" if sentence.plural else "singular determiner"
    )
    fr = d.plural if sentence.plural else (d.masculine if gender == "m" else d.feminine)
    if fr is None:
        raise NotInGrammar(
            f"determiner {sentence.determiner!r} has no French form for this noun", "determiner_noun", ("determiner", "noun")
        )
    return Phrase.of(indefinite_article(next_word) if sentence.determiner == "a" else sentence.determiner, fr)


def _adjective_form(adjective: lex.Adjective, gender: str, plural: bool) -> str:
    return adjective.forms[(gender == "f") + 2 * plural]


def _noun(noun: lex.Noun, plural: bool) -> Phrase:
    return Phrase.of(english_noun(noun.en, plural), french_plural(noun.fr) if plural else noun.fr)


def _object(sentence: Sentence, verb: lex.Verb) -> Phrase:
    """DET [ADJ] NOUN → DET NOUN [ADJ], or DET CONTAINER of MASS → DET CONTAINER de MASS, all agreeing."""
    thing = lookup(_MASSES if sentence.container else _NOUNS, sentence.noun, "drink or dish" if sentence.container else "noun")
    check_object(verb.en, bool(thing.tags & verb.tags), sentence, thing.containers if isinstance(thing, lex.Mass) else None)
    if isinstance(thing, lex.Mass):
        container = _noun(_NOUNS[sentence.container], sentence.plural)
        determiner = _determiner(sentence, _NOUNS[sentence.container].gender, container.source[0])
        return combine([determiner, container, Phrase.of(*lex.OF), Phrase.of(thing.en, thing.fr)])
    noun = _noun(thing, sentence.plural)
    if sentence.adjective is None:
        return combine([_determiner(sentence, thing.gender, noun.source[0]), noun])
    adjective = fitting_adjective(_ADJECTIVES, thing.en, sentence.adjective)
    modifier = Phrase.of(adjective.en, _adjective_form(adjective, thing.gender, sentence.plural))
    return combine([_determiner(sentence, thing.gender, adjective.en), modifier, noun], target_order=[0, 2, 1])


@dataclass(frozen=True, kw_only=True)
class EnglishToFrench(WordTask):
    """English → French: adjectives after the noun, gender and number agreement, verb conjugation."""

    name: str = "translate-en-fr"
    description_en: str = (
        "English to French on a small made-up grammar. Adjectives move after the noun, and articles, adjectives "
        "and verbs agree in gender and number (la maison blanche, nous voyons), so attention must look ahead to "
        "the noun and back to the subject."
    )
    description_zh: str = (
        "在一个小型人造语法上把英语翻译成法语。形容词要放到名词后面，冠词、形容词和动词要在性和数上保持一致"
        "（la maison blanche、nous voyons），所以注意力必须向前看名词、向后看主语。"
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
        fr_verb = verb.forms[lex.PERSONS.index(subject.person)]
        parts = {
            "subject": Phrase.of(subject.en, subject.fr),
            "verb": Phrase.of(english_verb(verb.en, subject.person), fr_verb, (0,)),  # "look for" → "cherche": the verb
            "object": _object(sentence, verb),
        }
        if sentence.place is not None:
            parts["place"] = Phrase.of(sentence.place, *lookup(_PLACES, sentence.place, "place"))
        if sentence.time is not None:
            parts["time"] = Phrase.of(sentence.time, *lookup(_TIMES, sentence.time, "time"))
        return arrange(parts, ORDER, ORDER)

    def grammar(self) -> Grammar:
        return grammar_of(_SUBJECT_WORDS, _OBJECTS, _ADJECTIVES, _DETERMINER_WORDS, _PLACE_WORDS, _TIME_WORDS)

    def english_lexicon(self) -> EnglishLexicon:
        numbers: dict[str, tuple[bool, ...]] = {}
        for plural, table in _DETERMINERS.items():
            for word in table:
                numbers[word] = (*numbers.get(word, ()), plural)
        return EnglishLexicon(
            subjects={s.en: s.person for s in lex.SUBJECTS},
            verbs=list(_VERBS),
            determiners=numbers,
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
        determiners = (*lex.SINGULAR_DETERMINERS, *lex.BOTH_DETERMINERS, *lex.PLURAL_DETERMINERS)
        yield from [w for d in determiners for w in (d.en_singular, d.en_plural) if w] + ["an"]
        for noun in nouns:
            yield from words_of([noun.en, english_noun(noun.en, True), *(a.en for a in _ADJECTIVES[noun.en])])
        for mass in masses:
            yield from [mass.en, lex.OF[0], *mass.containers, *(english_noun(c, True) for c in mass.containers)]
        yield from words_of(en for en, _, _ in (*lex.PLACES, *lex.TIMES))

    def target_words(self) -> Iterable[str]:
        nouns, masses = _reachable()
        yield from words_of(s.fr for s in lex.SUBJECTS)
        yield from (form for v in lex.VERBS for form in v.forms)
        genders = {n.gender for n in nouns} | {_NOUNS[c].gender for m in masses for c in m.containers}
        for d in (*lex.SINGULAR_DETERMINERS, *lex.BOTH_DETERMINERS, *lex.PLURAL_DETERMINERS):
            yield from (
                w for w in (d.masculine if "m" in genders else None, d.feminine if "f" in genders else None, d.plural) if w
            )
        for noun in nouns:
            yield from _noun_forms(noun)
        for mass in masses:
            yield from [mass.fr, lex.OF[1], *(w for c in mass.containers for w in _noun_forms(_NOUNS[c], adjectives=False))]
        yield from words_of(fr for _, fr, _ in (*lex.PLACES, *lex.TIMES))


def _noun_forms(noun: lex.Noun, adjectives: bool = True) -> Iterator[str]:
    yield from (noun.fr, french_plural(noun.fr))
    for adjective in _ADJECTIVES[noun.en] if adjectives else ():
        yield from (_adjective_form(adjective, noun.gender, plural) for plural in (False, True))


def _reachable() -> tuple[list[lex.Noun], list[lex.Mass]]:
    """The nouns and masses some verb can take (only these can appear in a sentence)."""
    taken = {o.en for objects in _OBJECTS.values() for o in objects}
    return [n for n in lex.NOUNS if n.en in taken], [m for m in lex.MASSES if m.en in taken]
