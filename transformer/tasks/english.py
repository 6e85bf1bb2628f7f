"""The English side shared by both translation tasks: inflection, the `Sentence` a grammar chooses, and
a parser from English text back to a `Sentence`.

Both tasks make the same English sentences (SUBJECT VERB OBJECT [PLACE] [TIME]) from their own word
lists, so the English rules live here once. A `Sentence` records the grammar's choices by their
English dictionary forms; each task renders it into an aligned English/target `Phrase`. The parser
runs that backwards for text a person typed, so the app can show the reference translation.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

IRREGULAR_PLURALS = {
    "child": "children",
    "man": "men",
    "woman": "women",
    "mouse": "mice",
    "fish": "fish",
    "sheep": "sheep",
    "knife": "knives",
    "tomato": "tomatoes",
    "potato": "potatoes",
}
IRREGULAR_THIRD_PERSON = {"have": "has", "do": "does", "go": "goes"}
VOWEL_LETTERS = "aeiou"


def _sibilant_or_y(word: str, suffix: str) -> str:
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in VOWEL_LETTERS:
        return word[:-1] + "ies"
    return word + suffix


def english_plural(noun: str) -> str:
    """The plural of a noun: "book" → "books", "box" → "boxes", "story" → "stories", "child" → "children"."""
    *head, last = noun.split()
    return " ".join([*head, IRREGULAR_PLURALS.get(last) or _sibilant_or_y(last, "s")])


def english_third_person(verb: str) -> str:
    """The he/she/it form: "read" → "reads", "watch" → "watches", "have" → "has"; "look for" → "looks for"."""
    first, *rest = verb.split()
    return " ".join([IRREGULAR_THIRD_PERSON.get(first) or _sibilant_or_y(first, "s"), *rest])


def indefinite_article(next_word: str) -> str:
    """Pick "a" or "an" by the next word's first letter.

    The lexicons avoid words where sound and spelling disagree ("hour", "university"), so the letter
    rule is exact for every sentence the tasks make.
    """
    return "an" if next_word[:1] in VOWEL_LETTERS else "a"


def english_verb(verb: str, person: str) -> str:
    """The present-tense form for a subject's person ("1s", "2s", "3s", "1p", "3p")."""
    return english_third_person(verb) if person == "3s" else verb


def english_noun(noun: str, plural: bool) -> str:
    return english_plural(noun) if plural else noun


@dataclass(frozen=True)
class Sentence:
    """The choices behind one sentence, named by English dictionary forms.

    Attributes:
        subject: a subject phrase as written, e.g. "my mother".
        verb: the base form, e.g. "read" or "look for".
        determiner: as written, except that "a" stands for both "a" and "an": "a", "the", "these", "two".
        noun: the singular noun ("book"), or the drink or dish ("tea") when `container` is set.
        plural: whether the noun (or the container) is plural.
        adjective: an optional adjective before the noun.
        container: for "two cups of tea", the container ("cup").
        place: an optional place phrase as written ("in the library").
        time: an optional time phrase as written ("every day").
    """

    subject: str
    verb: str
    determiner: str
    noun: str
    plural: bool = False
    adjective: str | None = None
    container: str | None = None
    place: str | None = None
    time: str | None = None


@dataclass(frozen=True)
class Shares:
    """How often a sampled sentence has each optional part (each a probability)."""

    plural: float
    adjective: float  # when the noun has an adjective it goes with
    place: float
    time: float


def choose_sentence(
    rng: random.Random,
    *,
    subjects: Sequence[str],
    verbs: Sequence[str],
    objects: Mapping[str, Sequence[Any]],
    adjectives: Mapping[str, Sequence[Any]],
    determiners: Mapping[bool, Sequence[str]],
    places: Sequence[str],
    times: Sequence[str],
    shares: Shares,
) -> Sentence:
    """Draw the choices of one sentence, the same way for every target language.

    `objects[verb]` are the nouns and masses the verb takes (a mass has `containers`);
    `adjectives[noun]` the adjectives that go with a countable noun (absent for masses);
    `determiners[plural]` the determiners by number. Objects and adjectives only need an `.en`.
    The draws happen in a fixed order, so a seed gives the same sentences in every version.
    """
    verb = rng.choice(verbs)
    thing = rng.choice(objects[verb])
    plural = rng.random() < shares.plural
    fitting = adjectives.get(thing.en, []) if not hasattr(thing, "containers") else []
    return Sentence(
        subject=rng.choice(subjects),
        verb=verb,
        determiner=rng.choice(determiners[plural]),
        noun=thing.en,
        plural=plural,
        adjective=rng.choice(fitting).en if fitting and rng.random() < shares.adjective else None,
        container=rng.choice(thing.containers) if hasattr(thing, "containers") else None,
        place=rng.choice(places) if rng.random() < shares.place else None,
        time=rng.choice(times) if rng.random() < shares.time else None,
    )


@dataclass(frozen=True)
class EnglishLexicon:
    """The English words of a task, as the parser needs them (what may combine is the task's business)."""

    subjects: Mapping[str, str]  # phrase → person
    verbs: Collection[str]
    determiners: Mapping[str, Collection[bool]]  # word → the numbers it goes with (False: singular)
    nouns: Collection[str]
    adjectives: Collection[str]
    containers: Collection[str]
    masses: Collection[str]
    places: Collection[str]
    times: Collection[str]


def parse_candidates(words: Sequence[str], lexicon: EnglishLexicon) -> Iterator[Sentence]:
    """Every `Sentence` whose words could be `words`, ignoring agreement between the choices.

    The caller renders each candidate and keeps one whose English matches `words` exactly; rendering
    rejects what the grammar forbids (a verb with the wrong kind of object, "a" before a vowel, ...).
    """
    words = tuple(words)
    for subject, person in lexicon.subjects.items():
        if (after_subject := _match(words, 0, subject)) is None:
            continue
        for verb in lexicon.verbs:
            after_verb = _match(words, after_subject, english_verb(verb, person))
            if after_verb is None or after_verb >= len(words):
                continue
            determiner = "a" if words[after_verb] == "an" else words[after_verb]
            for plural in lexicon.determiners.get(determiner, ()):
                for noun, adjective, container, end in _objects(words, after_verb + 1, plural, lexicon):
                    for place, time in _adjuncts(words[end:], lexicon):
                        yield Sentence(subject, verb, determiner, noun, plural, adjective, container, place, time)


def _match(words: tuple[str, ...], at: int, phrase: str) -> int | None:
    """Where `phrase` ends if `words` continue with it at `at`, else None."""
    parts = tuple(phrase.split())
    return at + len(parts) if words[at : at + len(parts)] == parts else None


def _objects(
    words: tuple[str, ...], at: int, plural: bool, lexicon: EnglishLexicon
) -> Iterator[tuple[str, str | None, str | None, int]]:
    """(noun, adjective, container, end) for each way words[at:] can start with an object."""
    for container in lexicon.containers:
        end = _match(words, at, english_noun(container, plural))
        if end is not None and words[end : end + 1] == ("of",):
            for mass in lexicon.masses:
                if (after := _match(words, end + 1, mass)) is not None:
                    yield mass, None, container, after
    for adjective in (None, *lexicon.adjectives):
        start = at if adjective is None else _match(words, at, adjective)
        if start is None:
            continue
        for noun in lexicon.nouns:
            if (end := _match(words, start, english_noun(noun, plural))) is not None:
                yield noun, adjective, None, end


def _adjuncts(rest: Sequence[str], lexicon: EnglishLexicon) -> Iterator[tuple[str | None, str | None]]:
    """(place, time) for each way `rest` splits into an optional place then an optional time."""
    for cut in range(len(rest) + 1):
        place, time = " ".join(rest[:cut]) or None, " ".join(rest[cut:]) or None
        if (place is None or place in lexicon.places) and (time is None or time in lexicon.times):
            yield place, time
