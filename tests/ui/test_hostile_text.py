"""Text a user typed or a link carried is shown inert on every page, in both languages: no live link, image
or formatting in anything Streamlit renders as markdown, no HTML link in any figure, none in the handout.

The sentence is the issue's hostile one (tags, a markdown link and image, bare `http://`, `www.`, e-mail and
`mailto:` addresses, bold, a colour directive, maths, control characters) followed by its own reverse: the
shipped `reverse` model reads every ASCII character and writes the text backwards, so its output (shown in
the lesson's answer, the output page's captions) carries every hostile piece forwards too.

What counts as live is what GitHub-flavoured markdown makes of the source text (checked in Chromium by
`tests/e2e/test_hostile_text_browser.py`): a bare address whose scheme, `www.` or `@` is intact, an
unescaped tag, link or image, bold or directive. `ui.safe.md_literal` leaves each of them broken by a
backslash or a word joiner, so none of these patterns can match its output.
"""

from __future__ import annotations

import json
import re

import pytest

from app import PAGES
from tests.ui.conftest import app_test, assert_no_exception, open_page
from ui.i18n import LANGUAGES

HOSTILE = (
    '<b>x</b><a href="http://e.x/">y</a> [z](http://e.x/md) ![i](http://e.x/i.png) '
    "www.e.x/w a@e.x mailto:m@e.x **b0ld** _1t_ :red[r3d] $x^2$ \x07\x1b"
)
TEXT = f"{HOSTILE} {HOSTILE[::-1]}"
LIVE = re.compile(
    r"(?i)(https?|mailto):(//)?(e\.x|m@)"  # a bare address (GFM autolink literal)
    r"|www\.e|[a-z]@e"  # www. and e-mail autolinks
    r"|(?<!\\)<(b|a|img)[\s>]"  # a tag
    r"|(?<!\\)!?\[[zi]\](?=\()"  # a markdown link or image
    r"|(?<!\\)\*\*b0ld|(?<![\\_])_1t_|(?<!\\):red\[|(?<!\\)\$x\^"  # bold, italics, a colour, maths
)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")  # shown literally by markdown: `md_literal(..., code=True)`
OWN_LINK = re.compile(r"(?<!\\)\]\(/[^)\s]*\)")  # a link to one of the app's pages: the text is url-encoded in it
MARKDOWN_FIELDS = ("body", "label", "help", "caption")  # what Streamlit renders as markdown in an element
PLAIN_ELEMENTS = {"Text", "Code"}  # st.text / st.code: their body is shown as is
TIMEOUT = 600  # a 230-character sentence through every figure of a page, on a shared machine


def live_markup(markdown: str) -> list[str]:
    """The pieces of `markdown` that would render as a link, image, tag or formatting of the hostile text."""
    return [m.group(0) for m in LIVE.finditer(OWN_LINK.sub("]", CODE_SPAN.sub("", markdown)))]


def rendered_markdown(at) -> list[tuple[str, str]]:
    """(element type, text) for every markdown-rendered field of every element and block on the page."""
    found = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and type(proto).__name__ not in PLAIN_ELEMENTS:
            found.extend(_fields(proto))
        for child in (getattr(node, "children", None) or {}).values():
            walk(child)

    walk(at._tree)
    return found


def _fields(proto) -> list[tuple[str, str]]:
    out = []
    for field, value in proto.ListFields():
        if hasattr(value, "ListFields"):
            out.extend(_fields(value))  # e.g. a block's `expandable.label`
        elif field.name in MARKDOWN_FIELDS and isinstance(value, str):
            out.append((type(proto).__name__, value))
    return out


def figure_links(at) -> list[str]:
    """HTML links, images or the user's own tags in any plotly figure's text (plotly renders <a href>)."""
    bad = []
    for chart in at.get("plotly_chart"):
        spec = chart.proto.spec
        bad += re.findall(r"<a\b|<img\b|href|<b>x", spec)
        bad += re.findall(r"<a\b|<img\b|href|<b>x", json.dumps(json.loads(spec), ensure_ascii=False))
    return bad


def test_the_patterns_see_what_they_are_about():
    """The checker itself: the raw text is full of live markup, and `md_literal` of it has none."""
    from ui.safe import md_literal

    raw = live_markup(TEXT)
    assert len(raw) >= 10, raw
    assert live_markup(md_literal(TEXT)) == []
    assert live_markup(md_literal(TEXT, code=True)) == []
    assert live_markup(f"**{md_literal(TEXT)}**: `{TEXT}`") == []


PAGE_NAMES = [name for name, _ in PAGES]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGE_NAMES)
def test_hostile_text_is_inert_on_every_page(page):
    """Both languages in one session (the second run reuses the first one's cached model runs)."""
    params = {"model": "reverse", "text": TEXT, "more": f"{TEXT}\nhello world", "mode": "sample", "steps": "3"}
    if page == "architecture":  # its page links need the app's navigation
        at = app_test(page, params=params, timeout=TIMEOUT)
        at.run()
        assert_no_exception(at)
    else:  # the page alone: the whole app draws the same sidebar, at twice the cost
        at = open_page(page, params=params, timeout=TIMEOUT)
    for lang in LANGUAGES:
        at.session_state["lang"] = lang
        at.run()
        assert_no_exception(at)
        if page == "lesson":  # the revealed answer carries the model's output: the hostile text, forwards
            if not at.success:  # (still shown after the language switch: Reveal is per sentence)
                at.button(key="lesson_reveal_task").click().run()
                assert_no_exception(at)
            assert at.success, "the lesson's answer is shown"
        shown = rendered_markdown(at)
        assert shown, "the page rendered something"
        live = [(lang, kind, text[:120], live_markup(text)) for kind, text in shown if live_markup(text)]
        assert not live, live
        assert not figure_links(at)


def test_the_sentence_is_shown_where_the_issue_found_it():
    """The lesson's sentence label shows the text (readably: every character, escaped) and nothing live."""
    at = open_page("lesson", params={"model": "reverse", "text": TEXT})
    labels = [text for kind, text in rendered_markdown(at) if kind == "Expandable" and "e\u2060\\.x" in text]
    assert labels, "the expander label shows the sentence"
    assert all(not live_markup(label) for label in labels)


@pytest.mark.slow
def test_the_handout_shows_the_sentence_as_text():
    """The offline handout (HTML): the sentence and the answers that carry it are escaped text, no tag or link."""
    from ui.pages.lesson.handout import handout_html
    from ui.pages.lesson.steps import lesson_for

    tag = '<b>x</b><a href="http://e.x/">y</a> ![i](http://e.x/i.png) www.e.x a@e.x'
    page = handout_html(lesson_for("reverse", f"{tag} {tag[::-1]}"))  # short: every step is computed
    body = page.split("</script>", 1)[1]  # after plotly.js, which is code, not the lesson's text
    assert "&lt;b&gt;x&lt;/b&gt;&lt;a href=&quot;http://e.x/&quot;&gt;y&lt;/a&gt;" in body
    assert "\u2060" not in body and "\\" not in body.split("<script", 1)[0]  # escapes and joiners undone
    assert not re.search(r"<a\b|<img\b|<b>x|href=\"http|src=\"http", body)
