"""User text shown inside markdown stays literal."""

from hypothesis import given
from hypothesis import strategies as st

from ui.safe import md_literal


@given(st.text(max_size=40))
def test_md_literal_leaves_no_unescaped_markup(text):
    out = md_literal(text)
    i = 0
    while i < len(out):  # every markdown-special character is preceded by a backslash
        if out[i] == "\\":
            i += 2
            continue
        assert out[i] not in "`*_[]<>#|~$:&", out
        i += 1
