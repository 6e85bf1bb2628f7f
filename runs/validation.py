"""Checking user text before it reaches a model (pure: no streamlit, so it is easy to test).

Control characters are removed (they are invisible and no model knows them), empty text is
refused, over-long text is cut to what the model accepts, and unknown symbols are listed so the
page can say exactly which characters or words the model does not know.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from transformer.text.reading import symbols as read
from transformer.text.tokenizer import Tokenizer

MAX_INPUT_CHARS = 20_000  # far beyond any model's max_len; stops a pasted book before tokenizing


@dataclass(frozen=True)
class TextCheck:
    """The text to run (or None if there is nothing to run) and what the user should be told."""

    text: str | None
    removed_controls: int = 0
    truncated_to: int | None = None  # number of tokens kept, when the input was too long
    original_tokens: int = 0
    unknown: tuple[str, ...] = ()
    suggestions: dict[str, list[str]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return self.text is None


def strip_controls(text: str) -> tuple[str, int]:
    """Remove control and format characters except tab/newline→space and the emoji joiner (ZWJ)."""
    kept, removed = [], 0
    for ch in text:
        category = unicodedata.category(ch)
        if ch in "\t\n\r":
            kept.append(" ")
        elif category in ("Cc", "Cs", "Co", "Cn") or (category == "Cf" and ch != "\u200d"):
            removed += 1
        else:
            kept.append(ch)
    return "".join(kept), removed


def check_text(text: str, tokenizer: Tokenizer, max_tokens: int, suggest=None) -> TextCheck:
    """Clean `text` and report problems.

    Args:
        tokenizer: the tokenizer that reads the input (source side for encoder-decoder models).
        max_tokens: the most input tokens the model accepts (`transformer.text.reading.symbols_that_fit`).
        suggest: optional function word → close in-vocabulary words, for word-level models.
    """
    full = text or ""
    text = full[:MAX_INPUT_CHARS]
    cleaned, removed = strip_controls(text)
    if not cleaned.strip():
        return TextCheck(None, removed_controls=removed)
    symbols = read(tokenizer, cleaned.strip())  # read once: the run and its labels read the same text again here
    if not symbols:
        return TextCheck(None, removed_controls=removed)
    truncated_to = None
    if len(symbols) > max_tokens:
        truncated_to = max_tokens
        symbols = symbols[:max_tokens]
    unknown = tuple(dict.fromkeys(s for s in symbols if s not in tokenizer.index))
    suggestions = {u: list(suggest(u)) for u in unknown} if suggest else {}
    return TextCheck(
        text=tokenizer.detokenize(symbols),
        removed_controls=removed,
        truncated_to=truncated_to,
        original_tokens=len(read(tokenizer, (cleaned if len(full) <= MAX_INPUT_CHARS else strip_controls(full)[0]).strip())),
        unknown=unknown,
        suggestions={k: v for k, v in suggestions.items() if v},
    )
