"""`ui.prose.prose`: a lab page's long intro is folded into a collapsed expander in projector mode, and
written as-is without it, in both languages; short texts are never folded."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import open_page
from ui.i18n import catalog
from ui.prose import FOLD_WIDTH, display_width

PAGE = "feed_forward"  # a lab page whose intro is long in both languages, and one of the quicker to run


def _folded(at, text: str) -> list:
    return [e for e in at.expander if any(m.value == text for m in e.markdown)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_long_intro_folds_only_in_projector_mode(lang):
    intro = catalog(lang)[f"{PAGE}.intro"]
    assert display_width(intro) > FOLD_WIDTH, "the test needs an intro long enough to fold"
    label = catalog(lang)["prose.more"]

    at = open_page(PAGE, lang=lang, projector=True)
    folded = _folded(at, intro)
    assert len(folded) == 1 and folded[0].label == label, [e.label for e in at.expander]
    assert not folded[0].proto.expanded, "folded prose starts collapsed"

    at = open_page(PAGE, lang=lang, projector=False)
    assert not _folded(at, intro), "without projector mode the intro is not in an expander"
    assert intro in [m.value for m in at.markdown]


def _two_texts() -> None:
    from ui.prose import prose

    prose("A one-line caption.")
    prose("Long explanation. " * 20)


@pytest.mark.parametrize("projector", [True, False])
def test_only_long_text_folds(projector):
    at = AppTest.from_function(_two_texts)
    at.session_state["projector"] = projector
    at.run()
    assert not at.exception
    assert at.markdown[0].value == "A one-line caption."  # never folded
    assert len(at.expander) == (1 if projector else 0)


def test_width_counts_chinese_twice():
    assert display_width("ab") == 2 and display_width("注意力") == 6
