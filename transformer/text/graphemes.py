"""User-perceived characters: extended grapheme clusters (Unicode UAX #29), from `unicodedata` alone.

"Reverse the text" means reversing what a reader sees as characters: 👍🏽 (thumb + skin tone), 👩‍👩‍👧 (a
family joined by ZWJ), 🇨🇳 (two regional indicators) or e + a combining acute accent are one character
each, though they are several code points. Reversing code points would tear them apart (the skin tone
lands before the thumb, the flag turns into another flag). Python's `unicodedata` has no
Grapheme_Cluster_Break property, so the classes below are derived from general categories and a few
code point ranges; this covers the rules that matter for typed text (GB3-GB13 except the Indic
conjunct rule GB9c): CR LF, controls, combining marks, spacing marks, Hangul syllables, emoji
modifiers, ZWJ emoji sequences, flags and tags. Tested against the `regex` module's `\\X`.
"""

from __future__ import annotations

import functools
import unicodedata

CR, LF, CONTROL, EXTEND, ZWJ, REGIONAL, PREPEND, SPACING, L, V, T, LV, LVT, PICTO, OTHER = range(15)

ZERO_WIDTH_JOINER = "\u200d"
# Extended_Pictographic, approximately: the emoji blocks and the older symbols that became emoji.
_PICTOGRAPHIC = (
    (0x00A9, 0x00A9),
    (0x00AE, 0x00AE),
    (0x203C, 0x203C),
    (0x2049, 0x2049),
    (0x2122, 0x2122),
    (0x2139, 0x2139),
    (0x2194, 0x2199),
    (0x21A9, 0x21AA),
    (0x231A, 0x231B),
    (0x2328, 0x2328),
    (0x2388, 0x2388),
    (0x23CF, 0x23CF),
    (0x23E9, 0x23F3),
    (0x23F8, 0x23FA),
    (0x24C2, 0x24C2),
    (0x25AA, 0x25AB),
    (0x25B6, 0x25B6),
    (0x25C0, 0x25C0),
    (0x25FB, 0x25FE),
    (0x2600, 0x2605),
    (0x2607, 0x2612),
    (0x2614, 0x2685),
    (0x2690, 0x2705),
    (0x2708, 0x2712),
    (0x2714, 0x2714),
    (0x2716, 0x2716),
    (0x271D, 0x271D),
    (0x2721, 0x2721),
    (0x2728, 0x2728),
    (0x2733, 0x2734),
    (0x2744, 0x2744),
    (0x2747, 0x2747),
    (0x274C, 0x274C),
    (0x274E, 0x274E),
    (0x2753, 0x2755),
    (0x2757, 0x2757),
    (0x2763, 0x2767),
    (0x2795, 0x2797),
    (0x27A1, 0x27A1),
    (0x27B0, 0x27B0),
    (0x27BF, 0x27BF),
    (0x2934, 0x2935),
    (0x2B05, 0x2B07),
    (0x2B1B, 0x2B1C),
    (0x2B50, 0x2B50),
    (0x2B55, 0x2B55),
    (0x3030, 0x3030),
    (0x303D, 0x303D),
    (0x3297, 0x3297),
    (0x3299, 0x3299),
    (0x1F000, 0x1F0FF),
    (0x1F10D, 0x1F10F),
    (0x1F12F, 0x1F12F),
    (0x1F16C, 0x1F171),
    (0x1F17E, 0x1F17F),
    (0x1F18E, 0x1F18E),
    (0x1F191, 0x1F19A),
    (0x1F1AD, 0x1F1E5),
    (0x1F201, 0x1F20F),
    (0x1F21A, 0x1F21A),
    (0x1F22F, 0x1F22F),
    (0x1F232, 0x1F23A),
    (0x1F23C, 0x1F23F),
    (0x1F249, 0x1F3FA),
    (0x1F400, 0x1F53D),
    (0x1F546, 0x1F64F),
    (0x1F680, 0x1F6FF),
    (0x1F774, 0x1F77F),
    (0x1F7D5, 0x1F7FF),
    (0x1F80C, 0x1F80F),
    (0x1F848, 0x1F84F),
    (0x1F85A, 0x1F85F),
    (0x1F888, 0x1F88F),
    (0x1F8AE, 0x1F8FF),
    (0x1F90C, 0x1F93A),
    (0x1F93C, 0x1F945),
    (0x1F947, 0x1FAFF),
    (0x1FC00, 0x1FFFD),
)
# Prepend: the few characters that attach to what follows (Arabic number signs and the like).
_PREPEND = (
    (0x0600, 0x0605),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x0D4E, 0x0D4E),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x111C2, 0x111C3),
    (0x1193F, 0x1193F),
    (0x11941, 0x11941),
    (0x11A3A, 0x11A3A),
    (0x11A84, 0x11A89),
    (0x11D46, 0x11D46),
)
# Spacing marks (Mc) that are Grapheme_Extend all the same, and non-mark Extend characters.
_EXTEND_EXTRA = (
    (0x0200C, 0x0200C),
    (0x09BE, 0x09BE),
    (0x09D7, 0x09D7),
    (0x0B3E, 0x0B3E),
    (0x0B57, 0x0B57),
    (0x0BBE, 0x0BBE),
    (0x0BD7, 0x0BD7),
    (0x0CC2, 0x0CC2),
    (0x0CD5, 0x0CD6),
    (0x0D3E, 0x0D3E),
    (0x0D57, 0x0D57),
    (0x0DCF, 0x0DCF),
    (0x0DDF, 0x0DDF),
    (0x1B35, 0x1B35),
    (0x302E, 0x302F),
    (0xFF9E, 0xFF9F),
    (0x1D165, 0x1D165),
    (0x1D16E, 0x1D172),
    (0x1F3FB, 0x1F3FF),
    (0xE0020, 0xE007F),
)
# Spacing marks (Mc) that never extend a cluster (Unicode lists them as exceptions).
_NOT_SPACING = frozenset(
    (
        0x102B,
        0x102C,
        0x1038,
        0x1062,
        0x1063,
        0x1067,
        0x1068,
        0x1069,
        0x106A,
        0x106B,
        0x106C,
        0x106D,
        0x1083,
        0x1087,
        0x1088,
        0x1089,
        0x108A,
        0x108B,
        0x108C,
        0x108F,
        0x109A,
        0x109B,
        0x109C,
        0x1A61,
        0x1A63,
        0x1A64,
        0xAA7B,
        0xAA7D,
        0x11720,
        0x11721,
    )
)


def _in(code: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(low <= code <= high for low, high in ranges)


@functools.lru_cache(maxsize=4096)
def break_class(char: str) -> int:
    """The Grapheme_Cluster_Break class of one code point (approximated from its general category)."""
    code = ord(char)
    if char == "\r":
        return CR
    if char == "\n":
        return LF
    if char == ZERO_WIDTH_JOINER:
        return ZWJ
    if _in(code, _EXTEND_EXTRA):
        return EXTEND
    if 0x1F1E6 <= code <= 0x1F1FF:
        return REGIONAL
    if _in(code, _PREPEND):
        return PREPEND
    if 0x1100 <= code <= 0x115F or 0xA960 <= code <= 0xA97C:
        return L
    if 0x1160 <= code <= 0x11A7 or 0xD7B0 <= code <= 0xD7C6:
        return V
    if 0x11A8 <= code <= 0x11FF or 0xD7CB <= code <= 0xD7FB:
        return T
    if 0xAC00 <= code <= 0xD7A3:
        return LV if (code - 0xAC00) % 28 == 0 else LVT
    if _in(code, _PICTOGRAPHIC):
        return PICTO
    category = unicodedata.category(char)
    if category in ("Mn", "Me"):
        return EXTEND
    if category == "Mc":
        return OTHER if code in _NOT_SPACING else SPACING
    if category in ("Cc", "Zl", "Zp", "Cf", "Cs") or (category == "Cn" and 0xFFF0 <= code <= 0xFFF8):
        return CONTROL
    return OTHER


def _joins(before: int, after: int, picto_zwj: bool, odd_regional: bool) -> bool:
    """Whether no boundary falls between two code points of these classes (rules GB3-GB13)."""
    if before == CR and after == LF:  # GB3
        return True
    if before in (CR, LF, CONTROL) or after in (CR, LF, CONTROL):  # GB4, GB5
        return False
    if before == L and after in (L, V, LV, LVT):  # GB6
        return True
    if before in (LV, V) and after in (V, T):  # GB7
        return True
    if before in (LVT, T) and after == T:  # GB8
        return True
    if after in (EXTEND, ZWJ, SPACING) or before == PREPEND:  # GB9, GB9a, GB9b
        return True
    if before == ZWJ and after == PICTO and picto_zwj:  # GB11
        return True
    return before == REGIONAL and after == REGIONAL and odd_regional  # GB12, GB13


def graphemes(text: str) -> list[str]:
    """`text` split into user-perceived characters (extended grapheme clusters), after NFC normalisation.

    NFC first, so "e" + combining acute is the single code point "é" as typed on most keyboards.

    >>> graphemes("a👍🏽🇨🇳e\u0301")
    ['a', '👍🏽', '🇨🇳', 'é']
    """
    text = unicodedata.normalize("NFC", text)
    clusters: list[str] = []
    previous = -1
    picto_zwj = False  # GB11: inside ExtPict Extend* ZWJ
    in_picto = False  # seen ExtPict followed only by Extend so far
    regionals = 0  # regional indicators in a row just before this code point
    for char in text:
        kind = break_class(char)
        if clusters and _joins(previous, kind, picto_zwj, regionals % 2 == 1):
            clusters[-1] += char
        else:
            clusters.append(char)
        picto_zwj = in_picto and kind == ZWJ
        in_picto = kind == PICTO or (in_picto and kind == EXTEND)
        regionals = regionals + 1 if kind == REGIONAL else 0
        previous = kind
    return clusters
