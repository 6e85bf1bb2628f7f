"""User text shown inside markdown stays literal: no markup, no live link or image, one line (`ui.safe`)."""

import re

from hypothesis import example, given
from hypothesis import strategies as st

from ui.safe import WORD_JOINER, markdown_plain, md_literal

# what GitHub-flavoured markdown needs to make a link of bare text: a scheme and ":", "www." or "x@y"
AUTOLINK = re.compile(r"(?i)(https?|mailto|xmpp|ftp):|www\.|[\w.+-]@[\w-]")
ADDRESSES = st.sampled_from(["http://e.x/", "HTTPS://E.X", "www.e.x", "a@e.x", "mailto:b@e.x", "xmpp:c@e.x", "[z](http://e.x)"])
TEXTS = st.lists(st.one_of(st.text(max_size=12), ADDRESSES), max_size=6).map(" ".join)


def one_line(text: str) -> str:
    """What the reader sees of `text`: control characters as spaces, bidirectional overrides and word joiners dropped."""
    text = re.sub("[\u200e\u200f\u202a-\u202e\u2066-\u2069\u2060]", "", text)
    return re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", " ", text)


@given(TEXTS)
def test_md_literal_leaves_no_unescaped_markup(text):
    out = md_literal(text)
    i = 0
    while i < len(out):  # every markdown-special character is preceded by a backslash
        if out[i] == "\\":
            i += 2
            continue
        assert out[i] not in "`*_[]<>#|~$:&=\n\r", out
        i += 1


@given(TEXTS)
@example('<b>x</b><a href="http://e.x/">y</a> [z](http://e.x/md) ![i](http://e.x/i.png)')
def test_md_literal_leaves_no_autolink(text):
    assert not AUTOLINK.search(md_literal(text))
    assert AUTOLINK.search(text) is None or AUTOLINK.search(md_literal(text).replace(WORD_JOINER, "").replace("\\", ""))


@given(TEXTS)
def test_the_reader_sees_every_character_as_typed(text):
    """Undoing the escapes and joiners gives back the text itself (on one line): nothing is lost or added."""
    assert markdown_plain(md_literal(text)) == one_line(text)


@given(TEXTS)
def test_a_code_span_holds_any_text(text):
    out = md_literal(text or "∅", code=True)
    fence = re.match(r"`+", out).group(0)
    inner = out[len(fence) : -len(fence)]
    assert out.endswith(fence) and fence not in inner  # no backtick run inside closes the span early
    assert markdown_plain(out).strip(" ") == one_line(text or "∅").strip(" ")


def test_controls_and_bidirectional_overrides():
    assert md_literal("a\nb\tc\x00d") == "a b c d"
    assert md_literal("abc\u202edcba") == "abcdcba"  # a right-to-left override would show "abcabcd"
    assert md_literal("a\u200db") == "a\u200db"  # a zero-width joiner stays: emoji sequences need it
