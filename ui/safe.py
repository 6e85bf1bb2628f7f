"""Showing user text inside markdown without it turning into markup, a link or an image: `md_literal`.

Streamlit renders labels (widget and expander labels), captions, alerts, `st.markdown` and `st.table` cells as
GitHub-flavoured markdown, and GFM turns bare addresses into live links on its own ("autolink literals":
`http://…`, `https://…`, `www.…`, `a@b.c`, `mailto:`/`xmpp:`) even when every markdown character is
backslash-escaped (verified in Chromium: a lesson sentence typed with `http://e.x/` showed a clickable link).
So a text a user typed or a link carried goes through `md_literal` wherever markdown shows it:

- every markdown-special character is backslash-escaped (tags, `[z](…)`, `![i](…)`, `**`, `:red[…]`,
  `:smile:`, `$…$` stay as typed);
- an invisible WORD JOINER (U+2060) goes before every `.`, `:` and `@`, which breaks each pattern an
  autolink literal needs (`www.`, `<scheme>:`, `@` + a dotted domain) without changing what is read;
- control characters (newlines too: in a label they would start new blocks) become spaces, and bidirectional
  overrides are dropped (they can make a text display as another), as are word joiners (invisible anyway).

`code=True` gives an inline code span instead (for a model's output, shown as a literal), with a fence longer
than any run of backticks inside. Plotly figures are HTML, not markdown: `viz/` escapes their text with
`html.escape` (`viz.tokens.escape_token`); `markdown_plain` turns this module's output back into plain text
(the lesson handout).
"""

from __future__ import annotations

import re
import unicodedata

_MARKDOWN_SPECIALS = frozenset("\\`*_{}[]()#+-.!|<>~$:&=")
_LINK_BREAKERS = frozenset(".:@")  # every autolink literal needs one of them right after its prefix or name
WORD_JOINER = "\u2060"  # zero width and no line break: the text reads and wraps as before
# dropped: bidirectional overrides, and the word joiner itself (this module's marker, which `markdown_plain` removes)
_DROPPED = dict.fromkeys(map(ord, "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069" + WORD_JOINER))
_MARKDOWN_ESCAPE = re.compile(r"\\(.)|(`+) ?(.*?) ?\2(?!`)|`+|\*\*")  # an escape | a code span | a stray fence | bold


def _one_line(text: str) -> str:
    """`text` with control and line-separator characters as spaces, bidirectional overrides and word joiners dropped."""
    text = text.translate(_DROPPED)
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)


def md_literal(text: object, *, code: bool = False) -> str:
    """`text` as markdown that shows exactly its characters: no markup, no live link or image, one line.

    Use it for everything a user typed or a URL carried (and for tokens and model names) before it goes into
    `st.markdown`, `st.caption`, `st.info`/`warning`/`error`/`success`, a widget's or expander's label, or a
    catalog string `t(...)` that one of those shows.
    """
    text = _one_line(str(text))
    if code:
        longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
        fence = "`" * (longest + 1)
        pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
        return f"{fence}{pad}{text}{pad}{fence}"
    out = []
    for ch in text:
        if ch in _LINK_BREAKERS:
            out.append(WORD_JOINER)
        out.append(f"\\{ch}" if ch in _MARKDOWN_SPECIALS else ch)
    return "".join(out)


def markdown_plain(markdown: str) -> str:
    """Light markdown (catalog strings and `md_literal`'s output) as the plain text a reader sees: backslash
    escapes undone, code ticks and bold marks dropped, word joiners removed. Not escaped for HTML."""
    plain = _MARKDOWN_ESCAPE.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(3) or "", markdown)
    return plain.replace(WORD_JOINER, "")
