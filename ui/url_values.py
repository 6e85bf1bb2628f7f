"""Values that arrive in a URL, checked before any widget or model sees them (pure: no Streamlit).

A link is typed by anyone: `?dk_seed=` with ten thousand digits made the step-by-step page's
fragment raise OverflowError, and a 100,000-character `?text=` made reopening the link hang for
minutes. Every URL-bound number goes through `bounded_int` and the text through `capped_text`; the
page shows a one-line notice when a value was dropped or cut.
"""

from __future__ import annotations

from collections.abc import Mapping

# What a link may carry and the text box accepts: the longest input any model reads is max_len − 1 =
# 511 tokens, about 3,000 characters of words, so 4,000 keeps every useful text and reopens in seconds.
MAX_URL_TEXT_CHARS = 4_000
_MAX_DIGITS = 30  # far beyond any bound a widget uses; int() of 10,000 digits costs time and then overflows


def capped_text(raw: str | None, limit: int = MAX_URL_TEXT_CHARS) -> tuple[str | None, int]:
    """(`raw` cut to `limit` characters, its original length): the page says "kept limit of n" when n > limit."""
    if raw is None:
        return None, 0
    return raw[:limit], len(raw)


def bounded_int(raw: str | None, low: int, high: int) -> int | None:
    """`raw` as an int in [low, high], or None when it is absent, not an integer, too long or out of range.

    Never raises: the caller drops the value (and the widget falls back to its default).
    """
    if raw is None:
        return None
    text = raw.strip()
    digits = text.lstrip("+-")
    if not digits.isdecimal() or not digits.isascii() or len(digits) > _MAX_DIGITS:
        return None
    value = int(text)
    return value if low <= value <= high else None


def trained_length(card: Mapping) -> int | None:
    """The longest input the model saw in training, in symbols, when its card records it (char tasks)."""
    data = card.get("data")
    length = data.get("max_len") if isinstance(data, Mapping) else None
    return length if isinstance(length, int) and not isinstance(length, bool) and length > 0 else None


def beyond_training(card: Mapping, n_symbols: int) -> int | None:
    """The trained length when `n_symbols` exceeds it (the page warns: e.g. `reverse` was trained on
    ≤ 32 characters and garbles longer text), else None."""
    length = trained_length(card)
    return length if length is not None and n_symbols > length else None
