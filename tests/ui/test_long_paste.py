"""A paste longer than the box keeps (MAX_URL_TEXT_CHARS) is cut, not dropped: the page runs on its first
characters and says so, with the tokenizer's own "only the first N tokens" line where the model reads fewer."""

from __future__ import annotations

from tests.ui.conftest import assert_no_exception, open_page
from ui.i18n import catalog
from ui.inputs import TEXT_KEY
from ui.url_values import MAX_URL_TEXT_CHARS

EN = catalog("en")


def test_a_long_paste_is_cut_and_said():
    at = open_page("heads")
    pasted = "the cat sat on the mat . " * 1_000  # 25,000 characters
    at.text_input(key=TEXT_KEY).input(pasted).run()
    assert_no_exception(at)
    kept = at.text_input(key=TEXT_KEY).value
    assert kept == pasted[:MAX_URL_TEXT_CHARS], "the box holds the first characters of the paste, not the old sentence"
    infos = "\n".join(i.value for i in at.info)
    assert EN["input.cut"].format(n=len(pasted), max=MAX_URL_TEXT_CHARS) in infos, infos
    warnings = "\n".join(w.value for w in at.warning)
    assert "only the first" in warnings, warnings  # the model reads fewer tokens than 4,000 characters hold
    at.run()
    assert EN["input.cut"].split("{")[0] not in "\n".join(i.value for i in at.info), "said once, for that paste"
