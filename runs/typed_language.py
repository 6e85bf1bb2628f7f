"""Which language a typed text is in, as far as choosing a translator goes: Chinese, English, or neither.

A class that types Chinese into the English→Chinese model gets `<unk>`s or noise; the page offers the model
that reads Chinese instead (`ui.reader_switch`). Counting scripts is enough for that choice: Han characters
against Latin letters, the larger share wins, and a text with neither (digits, emoji) is no language.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

Language = Literal["en", "zh"]


def is_han(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith(("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH"))


def typed_language(text: str) -> Language | None:
    """ "zh" if Han characters outnumber Latin letters, "en" if Latin letters outnumber them, else None.

    One Han character weighs as much as a short English word (three letters), so "I like 茶" stays English
    and "我喜欢 tea" Chinese.
    """
    han = sum(is_han(ch) for ch in text)
    latin = sum(ch.isascii() and ch.isalpha() for ch in text)
    if 3 * han > latin:
        return "zh"
    if latin > 3 * han:
        return "en"
    return None
