"""What a teacher may type: a task's grammar as patterns and lexicon, what a model reads, random sentences.

Pure data for the pages' "what can I type?" panel, input help and "random sentence" button; every name a
page shows comes with its English and Chinese form (`CATEGORY_NAMES`), and every list is in lexicon
order, so the panel reads the same every time.

    describe_grammar(get_task("translate-zh-en"))   # patterns + lexicon by category, in Chinese
    input_description(get_task("reverse"), card)    # "characters of this set, up to 48 long"
    model_input_description(bundle)                 # the same for a loaded model, random ones included
    random_sentence(get_task("translate-en-zh"), seed=3)  # a held-out example: the verdict is honest
    length_warning(card, task, text)                # longer than the model was trained on?
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from transformer.tasks.base import Example, Split, Task
from transformer.tasks.corpus import is_placeholder
from transformer.tasks.reading import CATEGORY_NAMES, source_lexicon
from transformer.tasks.registry import get_task
from transformer.tasks.words import WordTask
from transformer.text.reading import reader as text_reader
from transformer.text.rows import text_limit
from transformer.text.tokenizer import SENTENCE_PUNCTUATION, SPECIALS, Tokenizer

Slot = tuple[str, bool]  # (a category name from CATEGORY_NAMES, or a literal word in quotes; optional?)

ENGLISH_PATTERNS: dict[str, tuple[Slot, ...]] = {
    "sentence": (("subject", False), ("verb", False), ("object", False), ("place", True), ("time", True)),
    "object": (("determiner", False), ("adjective", True), ("noun", False)),
    "drink": (("determiner", False), ("container", False), ('"of"', False), ("mass", False)),
}
CHINESE_PATTERNS: dict[str, tuple[Slot, ...]] = {
    "sentence": (("subject", False), ("time", True), ('"在"', True), ("place", True), ("verb", False), ("object", False)),
    "object": (("determiner", False), ("measure", False), ("adjective", True), ('"的"', True), ("noun", False)),
    "drink": (("determiner", False), ("container", False), ("mass", False)),
}


@dataclass(frozen=True)
class GrammarDescription:
    """A translation grammar as a teacher can read it.

    Attributes:
        language: the source language, "en" or "zh".
        patterns: name → slots: "sentence" (the whole sentence), "object" (a countable object) and "drink"
            (a drink or dish in a container). A slot is a category (a key of `category_names`) or a literal
            word in double quotes ('"在"'), and whether it is optional. In Chinese, 在 comes with the place,
            的 with the adjective.
        lexicon: category → the source phrases of that category, in lexicon order (inflected forms included:
            "read", "reads").
        category_names: category → (English name, Chinese name).
        goes_with: "verb" → {verb: objects it takes}, "noun" → {noun: adjectives that fit}, "mass" → {drink: containers},
            in source-language words, for a panel that explains why "red apples" is not a sentence.
        example: a sentence of the grammar (held out of training).
    """

    language: Literal["en", "zh"]
    patterns: Mapping[str, tuple[Slot, ...]]
    lexicon: Mapping[str, tuple[str, ...]]
    category_names: Mapping[str, tuple[str, str]]
    goes_with: Mapping[str, Mapping[str, tuple[str, ...]]]
    example: str


def describe_grammar(task: WordTask) -> GrammarDescription:
    """The patterns and the lexicon by category of a translation task's source language."""
    chinese = bool(getattr(task, "segmented_source", False))
    lexicon = source_lexicon(task)
    by_category = {role: tuple(" ".join(phrase) for phrase in table) for role, table in lexicon.entries.items()}
    grammar = task.grammar()
    word_for = _source_words(lexicon)  # (role, dictionary form) → its first source phrase
    if chinese:
        from transformer.tasks import lexicon_zh

        by_category["measure"] = tuple(dict.fromkeys(n.measure for n in lexicon_zh.NOUNS))
    goes_with = {
        "verb": {
            word_for["verb", v]: tuple(word_for.get(("noun", o)) or word_for["mass", o] for o in grammar.objects[v])
            for v in grammar.verbs
        },
        "noun": {
            word_for["noun", n]: tuple(word_for["adjective", a] for a in adjs)
            for n, adjs in grammar.adjectives.items()
            if adjs and ("noun", n) in word_for
        },
        "mass": {word_for["mass", m]: tuple(word_for["container", c] for c in cs) for m, cs in grammar.containers.items()},
    }
    ordered = {name: by_category[name] for name in CATEGORY_NAMES if name in by_category}
    return GrammarDescription(
        language="zh" if chinese else "en",
        patterns=CHINESE_PATTERNS if chinese else ENGLISH_PATTERNS,
        lexicon=ordered,
        category_names={name: CATEGORY_NAMES[name] for name in (*ordered, "object")},
        goes_with=goes_with,
        example=random_sentence(task, seed=0).source,
    )


def _source_words(lexicon: Any) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for role, table in lexicon.entries.items():
        for phrase, values in table.items():
            for value, plural in values:
                if plural is not True:  # the singular or uninflected form names the entry
                    found.setdefault((role, value), " ".join(phrase))
    return found


RANDOM_DRAW = 8  # examples drawn to find a presentable one (80 of 60,359 corpus pairs are not)


def presentable(example: Example) -> bool:
    """Whether a page may offer `example` to a class: not a corpus pair with a stand-in side (`is_placeholder`)."""
    return not (is_placeholder(example.source) or is_placeholder(example.target or ""))


def random_sentence(task: Task, seed: int, split: Split = "heldout") -> Example:
    """One example drawn by the task's own sampler: the same for the same seed (the first presentable one).

    The held-out split is the default: the model never saw these sources, so a right answer on one is
    generalisation, and the verdict shown next to it is honest.
    """
    drawn = task.examples(RANDOM_DRAW, split, seed)  # a seeded order: its first is `examples(1, split, seed)[0]`
    return next((e for e in drawn if presentable(e)), drawn[0])


@dataclass(frozen=True)
class InputDescription:
    """What a model reads, for the input help.

    Attributes:
        unit: "word" (lowercase words of a listed lexicon), "chinese_word" (Chinese words of a listed lexicon,
            segmented by longest match, spaces optional), "character" (user-perceived characters of a listed set),
            "english_text" (any English, in word pieces) or "chinese_text" (any Chinese, in characters).
        symbols: the readable symbols (words or characters), sorted as in the model's vocabulary.
        max_symbols: the longest input the model was trained on, in symbols (words or characters); None if unknown.
        ignored: punctuation marks the model ignores (". , ? ! ;" and full-width), as one string.
        lowercase: whether case is ignored.
        language: "en", "zh" or None (any script in `symbols`).
    """

    unit: Literal["word", "chinese_word", "character", "english_text", "chinese_text"]
    symbols: tuple[str, ...]
    max_symbols: int | None
    ignored: str
    lowercase: bool
    language: Literal["en", "zh"] | None


def input_description(task: Task, card: Mapping[str, Any] | None = None, reader: Tokenizer | None = None) -> InputDescription:
    """What `task`'s model reads; `card` (the model's card.json) gives the trained length where the task has none.

    `reader`: the loaded model's own source tokenizer, whose symbols a corpus translator reads (the ones training
    built from the corpus and saved); without it they are built again from the corpus (about a second).
    """
    card = card or {}
    if hasattr(task, "references"):  # a corpus translator reads any text: English pieces or Chinese characters
        chinese = task.direction == "zh-en"
        symbols = tuple((reader or task.tokenizers()[0]).vocab[len(SPECIALS) :])
        unit: Literal["chinese_text", "english_text"] = "chinese_text" if chinese else "english_text"
        return InputDescription(unit, symbols, task.max_len, "", False, "zh" if chinese else "en")
    if task.level == "char":
        length = trained_max_len(card) or getattr(task, "max_len", None)
        return InputDescription("character", task.source_vocabulary(), length, "", False, None)
    chinese = bool(getattr(task, "segmented_source", False))
    return InputDescription(
        unit="chinese_word" if chinese else "word",
        symbols=task.source_vocabulary(),
        max_symbols=_longest_sentence(task),
        ignored=SENTENCE_PUNCTUATION,
        lowercase=not chinese,
        language="zh" if chinese else "en",
    )


def model_input_description(bundle: Any) -> InputDescription:
    """What a loaded model reads: its task's description, or for a model without a task (random weights) its
    tokenizer's: the vocabulary's symbols, up to the model's maximum length."""
    try:
        return input_description(get_task(str(bundle.card.get("task", ""))), bundle.card, bundle.source_tokenizer)
    except ValueError:
        reader = text_reader(bundle)
        unit: Literal["word", "character"] = "word" if reader.level == "word" else "character"
        symbols = tuple(reader.vocab[len(SPECIALS) :])  # after <pad> <bos> <eos> <unk>
        return InputDescription(
            unit,
            symbols,
            text_limit(bundle.config.max_len),
            getattr(reader, "ignored", ""),
            bool(getattr(reader, "lowercase", False)),
            None,
        )


def trained_max_len(card: Mapping[str, Any]) -> int | None:
    """The longest input (in symbols) a model was trained on, from its card ("trained_max_len", else data.max_len)."""
    value = card.get("trained_max_len", (card.get("data") or {}).get("max_len"))
    return value if isinstance(value, int) and value > 0 else None


@lru_cache(maxsize=16)
def _longest_sentence(task: Task) -> int:
    """The most words in 2,000 sampled sentences: about the longest sentence the grammar makes."""
    return max(len(task.split_source(e.source)) for e in task.examples(2000, "train", seed=0))


@dataclass(frozen=True)
class LengthWarning:
    """The input is longer than anything the model was trained on: its output there is not a fair test."""

    length: int  # the input's length in the model's symbols (characters for reverse)
    trained_max_len: int


def length_warning(card: Mapping[str, Any], task: Task, text: str) -> LengthWarning | None:
    """A warning when `text` has more symbols than the model's trained length (card "trained_max_len"); else None."""
    limit = trained_max_len(card)
    length = len(task.split_source(text))
    return LengthWarning(length, limit) if limit is not None and length > limit else None
