"""Showing user text inside markdown without it turning into markup."""

from __future__ import annotations

_MARKDOWN_SPECIALS = set("\\`*_{}[]()#+-.!|<>~$:&")


def md_literal(text: str) -> str:
    """Backslash-escape every markdown-special character, so `<b>x</b>` or `**x**` shows as typed."""
    return "".join(f"\\{ch}" if ch in _MARKDOWN_SPECIALS else ch for ch in text)
