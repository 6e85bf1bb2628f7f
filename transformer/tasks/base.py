"""The `Task` abstraction: a seeded generator of (source, target, alignment) examples.

Every toy task the app trains on is a `Task`. A task knows its symbols (so a tokenizer's vocabulary
can be built from it without sampling) and splits its sentence space into a training part and a
held-out part by a stable hash of the source string, so a model's held-out accuracy measures
generalisation to inputs it has never seen, not memorisation.
"""

from __future__ import annotations

import difflib
import random
import unicodedata
import zlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Literal

from transformer.text.graphemes import graphemes
from transformer.text.tokenizer import SENTENCE_PUNCTUATION

Level = Literal["char", "word"]
Split = Literal["train", "heldout"]

HELDOUT_MODULUS = 20
"""One source string in this many (by CRC-32) belongs to the held-out split: about 5 %."""

_MAX_MISSES = 100_000
"""Rejection sampling gives up after this many draws in a row that all fall in the other split."""


_PUNCTUATION_TO_SPACE = str.maketrans(dict.fromkeys(SENTENCE_PUNCTUATION, " "))


def without_punctuation(text: str) -> str:
    """NFC `text` with each ignorable sentence mark replaced by a space ("book." → "book ", "书。" → "书 ")."""
    return unicodedata.normalize("NFC", text).translate(_PUNCTUATION_TO_SPACE)


@dataclass(frozen=True)
class Example:
    """One input/output pair and which source symbol each target symbol comes from.

    Attributes:
        source: the input text. Char tasks: any string; word tasks: lowercase words joined by single spaces.
        target: the expected output, in the same format as `source`.
        alignment: `alignment[j]` is the index of the source symbol (char or word) that target symbol `j`
            translates or copies, or None when it has no source counterpart (e.g. a Chinese measure word).
            It is the "right answer" a cross-attention head can be compared against.
    """

    source: str
    target: str
    alignment: tuple[int | None, ...] | None


def is_heldout(source: str) -> bool:
    """Whether `source` belongs to the held-out split.

    A hash of the text (not the position in a random stream) decides membership, so the two splits are
    disjoint whatever the seeds, sizes or sampling order, and an input typed in the app can be told apart
    as seen-in-training or not.
    """
    return zlib.crc32(source.encode("utf-8")) % HELDOUT_MODULUS == 0


@dataclass(frozen=True, kw_only=True)
class Task(ABC):
    """A toy sequence-to-sequence task.

    Attributes:
        name: the registry key, e.g. "reverse" or "translate-en-zh".
        level: "char" if a symbol is one Unicode character, "word" if it is one space-separated word.
        description_en: one or two sentences for a teacher, in English.
        description_zh: the same in Simplified Chinese.
    """

    name: str
    level: Level
    description_en: str
    description_zh: str

    @abstractmethod
    def sample(self, rng: random.Random) -> Example:
        """Draw one example from the whole sentence space (both splits), using only `rng` for randomness."""

    @abstractmethod
    def source_vocabulary(self) -> tuple[str, ...]:
        """Every symbol a source can contain, sorted, so a tokenizer built from it is the same every run."""

    @abstractmethod
    def target_vocabulary(self) -> tuple[str, ...]:
        """Every symbol a target can contain, sorted."""

    @abstractmethod
    def reference(self, source: str) -> Example | None:
        """The correct output (and alignment) for any input, e.g. one typed in the app; None if there is none.

        Sampled examples always satisfy `task.reference(ex.source) == ex`.
        """

    def is_heldout(self, source: str) -> bool:
        """Whether `source` belongs to this task's held-out split (the generated tasks: `is_heldout`, a hash)."""
        return is_heldout(source)

    def split_source(self, text: str) -> list[str]:
        """The source symbols of `text`: its user-perceived characters, or its words.

        Char tasks: extended grapheme clusters after NFC (👍🏽 is one symbol). Word tasks: lowercase words,
        with the sentence punctuation a teacher types (`SENTENCE_PUNCTUATION`: ". , ? ! ;" and full-width
        "。，？！；") ignored, the same as the translators' tokenizers do, so model and reference agree.
        """
        if self.level == "char":
            return graphemes(text)
        return without_punctuation(text).lower().split()

    def split_target(self, text: str) -> list[str]:
        """The target symbols of `text`, split the same way as sources."""
        return self.split_source(text)

    def unknown_symbols(self, text: str) -> list[str]:
        """The distinct symbols of `text` outside the source vocabulary, in order of first appearance.

        Word tasks compare lowercased words, matching the lowercase lexicon.
        """
        known = set(self.source_vocabulary())
        return list(dict.fromkeys(s for s in self.split_source(text) if s not in known))

    def is_valid_source(self, text: str) -> bool:
        """Non-empty and made only of known symbols (for word tasks this does not check the grammar)."""
        return bool(self.split_source(text)) and not self.unknown_symbols(text)

    def suggest(self, word: str, k: int = 5) -> list[str]:
        """Up to `k` in-lexicon words close to `word`, for "did you mean" messages; [] for char tasks."""
        if self.level == "char" or k <= 0:
            return []
        return difflib.get_close_matches(word.lower(), self.source_vocabulary(), n=k, cutoff=0.6)

    def examples(self, n: int, split: Split, seed: int) -> list[Example]:
        """`n` examples from one split, the same list for the same (task, n, split, seed).

        Examples are drawn from the whole space and kept only if their source falls in `split`
        (rejection sampling), so each split keeps the task's own distribution of lengths and words.
        The same source may appear more than once in a list, as it would in any i.i.d. sample.

        Raises:
            ValueError: for an unknown split or a negative `n`.
            RuntimeError: if the split seems empty for this task's settings (e.g. a tiny alphabet and
                length range with no held-out string), instead of looping forever.
        """
        if split not in ("train", "heldout"):
            raise ValueError(f"split must be 'train' or 'heldout', got {split!r}")
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        want_heldout = split == "heldout"
        rng = random.Random(f"{self.name}/{split}/{seed}")  # str seeds hash with SHA-512: stable across runs
        chosen: list[Example] = []
        misses = 0
        while len(chosen) < n:
            example = self.sample(rng)
            if self.is_heldout(example.source) == want_heldout:
                chosen.append(example)
                misses = 0
                continue
            misses += 1
            if misses == _MAX_MISSES:
                raise RuntimeError(
                    f"task {self.name!r}: no {split} example in {_MAX_MISSES} draws (found {len(chosen)} of {n}); "
                    "the split may be empty for these settings, e.g. widen the length range"
                )
        return chosen
