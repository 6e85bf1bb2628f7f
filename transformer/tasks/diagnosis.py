"""Why a typed sentence is outside a translator's grammar, and the nearest sentence the grammar makes.

A teacher types "i eat red apples" and the grammar has no right answer: `diagnose` says which word or
combination is the problem as data a page can translate (kind "adjective_noun", words ("red",
"apples"), params {"adjective": "red", "noun": "apples"}), not prose, and offers the nearest sentence
the grammar makes ("i eat apples"), found with the grammar's own structure: the words are read into
roles (subject, verb, noun, ...), candidate sentences are built from those roles with the fewest
repairs (another verb for the noun, another noun for the verb, no adjective, ...), rendered by the
task itself, and the one closest to the input by word edit distance wins.

Problem kinds (params in brackets, each the words as typed or as the grammar writes them):
- "unknown_word" [word]: not in the lexicon (`Task.suggest` gives close words).
- "verb_object" [verb, noun], "adjective_noun" [adjective, noun], "adjective_mass" [adjective, noun],
  "container_mass" [container, noun], "determiner_noun" [determiner, noun]: a combination the grammar forbids.
- "missing_role" [role]: no subject, verb or object (role names: `reading.CATEGORY_NAMES`).
- "word_form" [typed, expected]: a word in the wrong form or place ("he read" → "reads", "a apple" → "an").
- "extra_words" [words]: words the nearest sentence does not need.
- "missing_words" [words]: words the nearest sentence needs that are not there.
- "word_order" [expected]: the right words in the wrong order.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from transformer.tasks.english import Sentence
from transformer.tasks.reading import Reading, read, source_lexicon
from transformer.tasks.words import Grammar, NotInGrammar, WordTask

MAX_CANDIDATES = 20_000  # renders tried for the nearest sentence (about 0.3 s): a bound for pathological input


@dataclass(frozen=True)
class Problem:
    """One reason a sentence is outside the grammar: `kind` (see the module doc), the typed words it is about,
    and the parameters of its message."""

    kind: str
    words: tuple[str, ...] = ()
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Diagnosis:
    """What is wrong with a sentence and the grammar's nearest sentence.

    Attributes:
        problems: the reasons, most specific first (a forbidden combination before a word-level difference).
        nearest: the nearest source sentence the grammar makes (in the task's source format), or None.
        distance: word edit distance from the input to `nearest`.
    """

    problems: tuple[Problem, ...]
    nearest: str | None
    distance: int


@lru_cache(maxsize=8)
def _grammar(task: WordTask) -> Grammar:
    return task.grammar()


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance between two word sequences (insert, delete, substitute: cost 1 each)."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def diagnose(task: WordTask, text: str) -> Diagnosis | None:
    """Why `text` is outside `task`'s grammar and the nearest sentence it makes; None if `text` is in the grammar.

    Sentence punctuation is ignored, as the translators ignore it. Empty text gets a "missing_role" problem
    for the subject.
    """
    words = task.split_source(text)
    if words and task.reference(text) is not None:
        return None
    readings = read(words, source_lexicon(task))
    problems = [Problem("unknown_word", (w,), {"word": w}) for w in task.unknown_symbols(text)]
    literal, reordered = _literal_problem(task, readings)
    if literal is not None:
        problems.append(literal)
    if reordered is not None and sorted(reordered) == sorted(words):  # every word right, some in the wrong place
        problems.append(Problem("word_order", tuple(words), {"expected": " ".join(reordered)}))
        return Diagnosis(tuple(problems), " ".join(reordered), edit_distance(words, reordered))
    nearest, distance = _nearest(task, words, readings)
    roles = {role for r in readings for role, _ in r.options}
    for role, present in (("subject", "subject" in roles), ("verb", "verb" in roles), ("object", roles & {"noun", "mass"})):
        if not present:
            problems.append(Problem("missing_role", (), {"role": role}))
    if nearest is not None and not any(p.kind != "unknown_word" for p in problems):
        problems.extend(_differences(words, nearest))
    return Diagnosis(tuple(problems), None if nearest is None else " ".join(nearest), distance)


def _first(readings: Sequence[Reading], role: str) -> tuple[str, bool | None, str] | None:
    """The first reading that can play `role`: (value, plural, typed text)."""
    for r in readings:
        for option_role, (value, plural) in r.options:
            if option_role == role:
                return value, plural, r.text
    return None


def _literal_problem(task: WordTask, readings: Sequence[Reading]) -> tuple[Problem | None, tuple[str, ...] | None]:
    """Render the sentence the words literally name, with the typed words' roles in the grammar's order.

    Returns:
        (the forbidden combination, with the typed words, or None; the rendered source if it renders, else None).
    """
    subject, verb, determiner = _first(readings, "subject"), _first(readings, "verb"), _first(readings, "determiner")
    thing = _first(readings, "noun") or _first(readings, "mass")
    if subject is None or verb is None or thing is None:
        return None, None
    adjective, container = _first(readings, "adjective"), _first(readings, "container")
    plural = next((p for p in (thing[1], container and container[1], determiner and determiner[1]) if p is not None), False)
    is_mass = _first(readings, "noun") is None
    sentence = Sentence(
        subject=subject[0],
        verb=verb[0],
        determiner=determiner[0] if determiner else _grammar(task).determiners[plural][0],
        noun=thing[0],
        plural=plural,
        adjective=adjective[0] if adjective else None,
        container=(container[0] if container else _grammar(task).containers.get(thing[0], ("",))[0]) if is_mass else None,
        place=(_first(readings, "place") or (None,))[0],
        time=(_first(readings, "time") or (None,))[0],
    )
    try:
        return None, task.render(sentence).source
    except NotInGrammar as error:
        if error.kind == "not_in_lexicon":
            return None, None
        typed = {
            "subject": subject,
            "verb": verb,
            "determiner": determiner,
            "noun": thing,
            "adjective": adjective,
            "container": container,
        }
        params = {role: typed[role][2] for role in error.roles if typed.get(role)}
        return Problem(error.kind, tuple(params.values()), params), None


def _nearest(task: WordTask, words: Sequence[str], readings: Sequence[Reading]) -> tuple[tuple[str, ...] | None, int]:
    """The grammar's sentence closest to `words` among those built from the recognised roles, and its distance.

    First the core (subject, verb, object) with the place and time as read; then, keeping the verb and object,
    every subject, adjective (of that noun), place and time of the grammar, one slot at a time, so a mistyped
    place ("in the rabbits") finds its nearest.
    """
    grammar = _grammar(task)

    def scored(sentences: Iterator[Sentence]) -> tuple[Sentence | None, tuple[str, ...] | None, int]:
        best: tuple[Sentence | None, tuple[str, ...] | None, int] = (None, None, 1 << 30)
        for sentence in itertools.islice(sentences, MAX_CANDIDATES):
            try:
                source = task.render(sentence).source
            except NotInGrammar:
                continue
            distance = edit_distance(words, source)
            if distance < best[2]:
                best = (sentence, source, distance)
                if distance == 0:
                    break
        return best

    sentence, source, distance = scored(_candidates(grammar, readings))
    if sentence is None:
        return None, 0
    slots = (
        ("subject", grammar.subjects),
        ("adjective", grammar.adjectives.get(sentence.noun, ())),
        ("place", grammar.places),
        ("time", grammar.times),
    )
    for field_name, options in slots:
        alternatives = (dataclasses.replace(sentence, **{field_name: o}) for o in (getattr(sentence, field_name), None, *options))
        better, better_source, better_distance = scored(alternatives)
        if better is not None and better_distance < distance:
            sentence, source, distance = better, better_source, better_distance
    return source, distance


def _values(readings: Sequence[Reading], role: str) -> list[tuple[str, bool | None]]:
    return list(dict.fromkeys(value for r in readings for option_role, value in r.options if option_role == role))


def _candidates(grammar: Grammar, readings: Sequence[Reading]) -> Iterator[Sentence]:
    """Sentences built from the roles found in the input, repaired where the grammar forbids the combination."""
    subjects = [v for v, _ in _values(readings, "subject")] or list(grammar.subjects)
    verbs = [v for v, _ in _values(readings, "verb")]
    things = [v for v, _ in _values(readings, "noun") + _values(readings, "mass")]
    adjectives = [v for v, _ in _values(readings, "adjective")]
    numbers = {p for role in ("determiner", "noun", "container") for _, p in _values(readings, role) if p is not None}
    determiners = [v for v, _ in _values(readings, "determiner")]
    containers = [v for v, _ in _values(readings, "container")]
    places = [v for v, _ in _values(readings, "place")] or [None]
    times = [v for v, _ in _values(readings, "time")] or [None]
    takers = {thing: [v for v in grammar.verbs if thing in grammar.objects[v]] for thing in things}
    pairs = [(v, t) for v in verbs for t in things if t in grammar.objects[v]]
    if not pairs:  # repair: another object for the verb, or another verb for the object
        pairs = [(v, t) for v in verbs for t in grammar.objects[v]] + [(v, t) for t in things for v in takers[t]]
    if not pairs:  # neither verb nor object typed: each verb with its first object
        pairs = [(v, grammar.objects[v][0]) for v in grammar.verbs]
    for (verb, thing), subject, place, time in itertools.product(dict.fromkeys(pairs), subjects, places, times):
        is_mass = thing in grammar.containers
        fitting = grammar.adjectives.get(thing, ())
        own_containers = grammar.containers.get(thing, ())
        for adjective in [a for a in adjectives if a in fitting and not is_mass] + [None]:
            for plural in sorted(numbers) or [False, True]:
                allowed = grammar.determiners[plural]
                for determiner in [d for d in determiners if d in allowed] or [allowed[0]]:
                    typed_containers = [c for c in containers if c in own_containers] or list(own_containers[:1])
                    for container in typed_containers if is_mass else [None]:
                        yield Sentence(subject, verb, determiner, thing, plural, adjective, container, place, time)


def _differences(words: Sequence[str], nearest: Sequence[str]) -> list[Problem]:
    """Word-level differences between the input and the nearest sentence, as problems."""
    if sorted(words) == sorted(nearest) and list(words) != list(nearest):
        return [Problem("word_order", tuple(words), {"expected": " ".join(nearest)})]
    problems = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=list(words), b=list(nearest), autojunk=False).get_opcodes():
        typed, expected = " ".join(words[i1:i2]), " ".join(nearest[j1:j2])
        if op == "replace":
            problems.append(Problem("word_form", tuple(words[i1:i2]), {"typed": typed, "expected": expected}))
        elif op == "delete":
            problems.append(Problem("extra_words", tuple(words[i1:i2]), {"words": typed}))
        elif op == "insert":
            problems.append(Problem("missing_words", (), {"words": expected}))
    return problems
