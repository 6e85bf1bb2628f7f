"""Every page renders without an exception, in both languages, for trained and random models."""

import pytest
from streamlit.testing.v1 import AppTest

from app import PAGES, SECTIONS
from tests.ui.conftest import app_test

PAGE_FILES = [f"views/{name}.py" for name, _ in PAGES]


def _run(page: str, lang: str, **params: str) -> AppTest:
    """The app opened on its home page, then `page` chosen in the navigation (`lang` as the language switch sets it)."""
    at = app_test(timeout=120, params=params, lang=lang)
    at.run()
    if page != PAGE_FILES[0]:
        at.switch_page(page).run()
    return at


def test_the_navigation_sections_list_every_page_once_in_teaching_order():
    assert [name for _, names in SECTIONS for name in names] == [name for name, _ in PAGES]
    assert [key for key, _ in SECTIONS] == ["lesson", "attention", "block", "training"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", PAGE_FILES)
def test_page_renders_without_exception(page, lang):
    at = _run(page, lang)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title, "every page has a title"
    if lang == "zh":
        assert any("\u4e00" <= ch <= "\u9fff" for ch in at.title[0].value), at.title[0].value


@pytest.mark.parametrize("page", PAGE_FILES)
def test_page_survives_hostile_text(page):
    at = _run(page, "en", model="random", text="<b>x</b> **y** \x00 🙂 你好")
    assert not at.exception, [e.value for e in at.exception]


@pytest.mark.parametrize("page", PAGE_FILES)
def test_page_survives_empty_text(page):
    at = _run(page, "zh", model="random")
    at.text_input(key="text").set_value("   ").run()
    assert not at.exception, [e.value for e in at.exception]
