"""Aligned phrases: the building blocks of the translation tasks' sentences.

A sentence is built from `Phrase`s (subject, verb, object, place, time), each carrying its own
word alignment; `combine` lays the parts out in English order on the source side and in the target
language's order on the target side, shifting the alignments as it goes. So the reordering that
makes translation interesting (Chinese time and place before the verb, French adjectives after the
noun) is written once per language, and the alignment stays right by construction.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

Alignment = tuple[int | None, ...]


@dataclass(frozen=True)
class Phrase:
    """Source words, target words, and for each target word the index of its source word (or None).

    Indices are local to the phrase; `combine` makes them sentence-wide. Build phrases with `Phrase.of`,
    which checks the alignment (once: it is cached, as the same lexicon phrases recur in every sentence).
    """

    source: tuple[str, ...]
    target: tuple[str, ...]
    alignment: Alignment

    @staticmethod
    @functools.lru_cache(maxsize=8192)
    def of(source: str, target: str, alignment: tuple[int | None, ...] | None = None) -> Phrase:
        """A phrase from space-separated strings.

        Without an explicit alignment: word-for-word if both sides have the same number of words, otherwise
        every target word aligns to the source phrase's head, taken to be its last word ("every day" → 每天
        aligns to "day", "living room" → 客厅 to "room"); a phrase with no source words aligns to None.
        """
        src, tgt = tuple(source.split()), tuple(target.split())
        if alignment is None:
            if not src:
                alignment = (None,) * len(tgt)
            elif len(src) == len(tgt):
                alignment = tuple(range(len(tgt)))
            else:
                alignment = (len(src) - 1,) * len(tgt)
        if len(alignment) != len(tgt) or any(i is not None and not 0 <= i < len(src) for i in alignment):
            raise ValueError(f"alignment {alignment} does not fit source {src} and target {tgt}")
        return Phrase(src, tgt, tuple(alignment))

    @staticmethod
    def unaligned(target: str) -> Phrase:
        """Target-only words with no source counterpart: a Chinese measure word, the particle 的."""
        return Phrase.of("", target)


def combine(parts: Sequence[Phrase], target_order: Sequence[int] | None = None) -> Phrase:
    """Concatenate `parts`: sources in the given order, targets in `target_order` (default: the same).

    Args:
        parts: the phrases in source (English) order.
        target_order: a permutation of range(len(parts)) giving the target-language order.
    """
    order = range(len(parts)) if target_order is None else target_order
    if target_order is not None and sorted(order) != list(range(len(parts))):
        raise ValueError(f"target_order {list(order)} is not a permutation of the {len(parts)} parts")
    offsets, source = [], ()
    for part in parts:
        offsets.append(len(source))
        source += part.source
    target: tuple[str, ...] = ()
    alignment: Alignment = ()
    for k in order:
        shift = offsets[k]
        target += parts[k].target
        alignment += tuple(None if i is None else shift + i for i in parts[k].alignment)
    return Phrase(source, target, alignment)


def arrange(parts: dict[str, Phrase], source_order: Sequence[str], target_order: Sequence[str]) -> Phrase:
    """`combine` by role name ("subject", "verb", ...); roles absent from `parts` are skipped.

    Example: English "subject verb object place time" becomes Chinese "subject time place verb object".
    """
    roles = [role for role in source_order if role in parts]
    if sorted(roles) != sorted(parts) or sorted(role for role in target_order if role in parts) != sorted(parts):
        raise ValueError(f"roles {sorted(parts)} are not all placed by {source_order} and {target_order}")
    return combine([parts[r] for r in roles], [roles.index(r) for r in target_order if r in parts])
