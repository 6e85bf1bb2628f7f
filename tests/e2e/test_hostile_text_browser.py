"""The issue's hostile sentence typed into the lesson's sentence box, in a real Chromium: what the browser
draws has no link to its address, no image from it and none of its tags, in both languages.

Streamlit's markdown turns bare addresses into links even when every markdown character is escaped (the
lesson's label "The class's sentence: …" showed three live links); `ui.safe.md_literal` breaks them.
Screenshots: tests/e2e/screenshots/hostile-*.png.
"""

from __future__ import annotations

import pytest

from ui.i18n import catalog

pytestmark = pytest.mark.e2e
HOSTILE = '<b>x</b><a href="http://e.x/">y</a> [z](http://e.x/md) ![i](http://e.x/i.png) www.e.x/w a@e.x'
SHOWN = f"{HOSTILE} {HOSTILE[::-1]}"  # the reverse model writes it backwards: its answer carries every piece too
LIVE = """() => {
    const outside = (url) => {
        const u = new URL(url, location.href);
        return u.protocol === 'mailto:' || /e\\.x$/i.test(u.hostname);
    };
    return {
        links: [...document.querySelectorAll('a[href]')].map(a => a.href).filter(outside),
        images: [...document.querySelectorAll('img[src]')].map(i => i.src).filter(outside),
        tags: [...document.querySelectorAll('[data-testid=stMain] b, [data-testid=stMain] strong')]
            .filter(b => b.textContent === 'x').length,
    };
}"""  # a link of the app's own (the lab page, the sentence url-encoded in its query) is not one to e.x


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_hostile_sentence_typed_into_the_lesson_draws_no_link(app_page, app_url, browser_tools, lang):
    page, tools, strings = app_page, browser_tools, catalog(lang)
    page.goto(f"{app_url}/?model=reverse&lang={lang}")
    tools.wait_idle(page)
    box = page.locator(".st-key-text input")
    box.fill(SHOWN)
    box.press("Enter")
    tools.wait_idle(page)
    label = strings["lesson.sentence"].split("{", 1)[0]
    expander = page.locator("[data-testid=stExpander] summary", has_text=label)
    expander.wait_for()
    drawn = expander.inner_text().replace("\u2060", "")
    assert HOSTILE in drawn, drawn  # every character shown as typed
    assert page.evaluate(LIVE) == {"links": [], "images": [], "tags": 0}

    page.locator(".st-key-lesson_reveal_task button").click()  # the answer: the model's output, the sentence forwards
    tools.wait_idle(page)
    page.locator("[data-testid=stAlertContentSuccess]").wait_for()
    assert page.evaluate(LIVE) == {"links": [], "images": [], "tags": 0}
    tools.screenshot(page, f"hostile-lesson-{lang}")
