"""Every page renders without an exception, in both languages, for trained and random models."""

import pytest
from streamlit.testing.v1 import AppTest

from app import PAGES, ROOT

PAGE_FILES = [f"views/{name}.py" for name, _ in PAGES]


def _run(page: str, lang: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["lang"] = lang  # what the sidebar's language switch sets (AppTest ignores URL binding)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page != PAGE_FILES[0]:
        at.switch_page(page).run()
    return at


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
