"""Values that arrive in a URL, checked before any widget or model sees them (pure: no Streamlit).

A link is typed by anyone: `?dk_seed=` with ten thousand digits made the step-by-step page's
fragment raise OverflowError, and a 100,000-character `?text=` made reopening the link hang for
minutes. Every URL-bound number goes through `bounded_int` and the text through `capped_text`; the
page shows a one-line notice when a value was dropped or cut.

`sanitize_query_params` applies both to every parameter the pages bind, once per run, before any widget
reads the URL (`ui.url_guard.guard_query_params`, called by `ui.page.start_page`): the pages' own files need no guard.
"""

from __future__ import annotations

import math
from collections.abc import MutableMapping
from dataclasses import dataclass

# What a link may carry and the text box accepts: the longest input any model reads is max_len − 1 =
# 511 tokens, about 3,000 characters of words, so 4,000 keeps every useful text and reopens in seconds.
MAX_URL_TEXT_CHARS = 4_000
_MAX_DIGITS = 30  # far beyond any bound a widget uses; int() of 10,000 digits costs time and then overflows


ON_VALUES = ("1", "true", "on", "yes")  # what a link may say for a switch that is on (`?projector=1`, `?exact=1`)


def switched_on(raw: object) -> bool:
    """Whether a URL value turns a switch on (anything else, absent included, leaves it off)."""
    return str(raw if raw is not None else "").strip().lower() in ON_VALUES


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


def bounded_float(raw: str | None, low: float, high: float, step: float | None = None) -> float | None:
    """`raw` as a finite float in [low, high] on the grid low + n·step (a slider's values), or None (absent,
    not a short plain number, out of range, between two grid values).

    The grid matters: a slider takes any in-range float from the URL, and `?temp=1e-310` (a subnormal, "in
    range") reached the sampler as a temperature no slider can set. A float a few ulps off its grid point
    (0.35000000000000003, as a browser may write 7 × 0.05) is kept.
    """
    if raw is None or len(raw) > _MAX_DIGITS:
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    if not low <= value <= high:  # NaN and ±inf fail the comparison
        return None
    if step is None:
        return value
    grid = low + round((value - low) / step) * step
    return value if value == grid or (grid != low and math.isclose(value, grid, rel_tol=1e-9)) else None


# Every number a page binds to the URL, with bounds at least as wide as its widget's (the widget keeps its own
# exact range and options; this guard only stops values no widget could hold: 10 kB of digits, "1e999", -5).
URL_NUMBERS: dict[str, tuple[int, int]] = {
    "dk": (1, 4096),
    "dk_seed": (0, 1_000_000),  # step by step: √d_k experiment
    "r_layers": (1, 24),
    "r_dmodel": (1, 4096),
    "r_heads": (1, 64),
    "r_seed": (0, 10_000),  # random model
    "layer": (1, 64),  # layers and heads as pages show them: the first is 1 (hook_names.ordinal)
    "head": (1, 64),
    # (not "row" (masks) nor "query" (step by step): those selectboxes show labels such as "3: 我 → 今天", the URL holds
    # the label, and Streamlit itself drops a value that is not one of the options; guarded as numbers, every shared
    # link lost its sentence or query row)
    "ln_pair_layers": (1, 24),
    "pe_d": (2, 4096),
    "pe_pos": (1, 4096),
    "pe_k": (1, 4096),  # LayerNorm, positions
    "ffn_layer": (1, 64),  # feed-forward
    "seed": (0, 1_000_000),
    "topk": (1, 100),  # output distribution
    "steps": (0, 512),  # output distribution: tokens written so far (read by hand, not by a widget)
}
# (low, high, step) exactly as the slider's: a float in range but off the grid (1e-310) is dropped too
URL_FLOATS: dict[str, tuple[float, float, float]] = {"temp": (0.0, 2.0, 0.05)}  # output distribution: temperature
URL_TEXTS = ("text", "more")  # the shared text box and the "more sentences" area


@dataclass(frozen=True)
class UrlRepair:
    """What `sanitize_query_params` changed, for the page's notice."""

    dropped: tuple[str, ...] = ()  # number parameters removed (not an integer in range)
    cut: tuple[tuple[str, int], ...] = ()  # (text parameter, its original length) cut to MAX_URL_TEXT_CHARS

    def __bool__(self) -> bool:
        return bool(self.dropped or self.cut)


def sanitize_query_params(params: MutableMapping[str, str]) -> UrlRepair:
    """Range-check every URL number (`URL_NUMBERS`, `URL_FLOATS`) and cap every URL text (`URL_TEXTS`) in place.

    `params` is `st.query_params` (or any mapping of one value per key). A bad number is removed, so its
    widget falls back to its default; a long text is cut to MAX_URL_TEXT_CHARS. Never raises.
    """
    dropped = []
    for key, (low, high) in URL_NUMBERS.items():
        raw = params.get(key)
        if raw is not None and bounded_int(str(raw), low, high) is None:
            del params[key]
            dropped.append(key)
    for key, (low, high, step) in URL_FLOATS.items():
        raw = params.get(key)
        if raw is not None and bounded_float(str(raw), low, high, step) is None:
            del params[key]
            dropped.append(key)
    cut = []
    for key in URL_TEXTS:
        text, length = capped_text(params.get(key))
        if text is not None and length > len(text):
            params[key] = text
            cut.append((key, length))
    return UrlRepair(tuple(dropped), tuple(cut))
