"""Class mode in Chromium: a teacher on a 1280 × 720 projector and three students (a 390 px phone, a laptop
in Chinese, a laptop that types the code) join, follow the teacher through two steps, answer, and see the
class's answers after Reveal; a student who wanders to a lab page comes back with "Follow the teacher"; the teacher
reloads and still leads."""

from __future__ import annotations

import re
from contextlib import ExitStack

import pytest
from first_screen import PROJECTOR  # tests/e2e/first_screen.py

from runs.classroom_store import ClassStore
from runs.lesson import STEPS
from ui.i18n import catalog
from ui.pages.lesson import teacher_cookie

pytestmark = pytest.mark.e2e
FOLLOW_MS = 15_000  # the student's poll is once a second; a busy 2-core machine gets its margin
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
EN, ZH = catalog("en"), catalog("zh")
ANSWERED_STEP = STEPS.index("embeddings") + 1  # step 3: ranges around the model's own vector length


def _tab(stack: ExitStack, chromium, viewport: dict, locale: str = "en-US"):
    context = stack.enter_context(chromium.new_context(viewport=viewport, locale=locale))
    tab = context.new_page()
    tab.set_default_timeout(120_000)
    return tab


def _title(tab) -> str:
    return tab.locator("[data-testid=stMain] h1").first.inner_text()


def _on_step(tab, n: int) -> None:
    tab.wait_for_function(
        f"() => (document.querySelector('[data-testid=stMain] h1') || {{}}).innerText?.startsWith('{n}/')",
        timeout=FOLLOW_MS,
    )


def _all_on_step(tabs: dict, n: int) -> None:
    """`_on_step` for every tab; a timeout names the tabs that are elsewhere and the step each shows."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    behind = {}
    for name, tab in tabs.items():
        try:
            _on_step(tab, n)
        except PlaywrightTimeout:
            behind[name] = tab.locator("[data-testid=stMain] h1").first.inner_text(timeout=5_000)
    assert not behind, f"not on step {n} after {FOLLOW_MS} ms: {behind}"


def _bar_says(tab, text: str) -> None:
    """Wait until the class bar (its counts refresh once a second) shows `text`."""
    tab.wait_for_function(
        "t => (document.querySelector('.st-key-class_bar') || {}).innerText?.includes(t)", arg=text, timeout=FOLLOW_MS
    )


def _choose(tab, label: str, wait_idle) -> None:
    tab.locator(".st-key-class_question [data-testid=stRadio] label").filter(has_text=label).first.click()
    wait_idle(tab)


def test_a_class_follows_answers_and_sees_the_distribution(chromium, app_url, class_dir, browser_tools):
    wait_idle, wait_settled, shot = browser_tools.wait_idle, browser_tools.wait_settled, browser_tools.screenshot
    with ExitStack() as stack:
        teacher = _tab(stack, chromium, PROJECTOR)
        teacher.goto(f"{app_url}/?projector=1&model=translate-en-zh")  # its d_model (64) fixes step 3's truth below
        wait_idle(teacher)
        teacher.locator("[data-testid=stExpander] summary").filter(has_text=EN["classroom.title"]).click()
        teacher.get_by_role("button", name=EN["classroom.start"]).click()
        wait_idle(teacher)
        link = teacher.locator(".st-key-class_join_card [data-testid=stCode] code").inner_text().strip()
        code = re.search(r"class=([A-Z0-9]{5})$", link).group(1)
        assert link == f"{app_url}/?class={code}", link
        qr = teacher.locator(".st-key-class_join_card img")
        qr.first.wait_for(timeout=30_000)  # the image element arrives a moment after the card's text on a busy machine
        assert qr.count() == 1, "the QR code is drawn"
        assert "class=" not in teacher.url, "the teacher's own URL carries no class (and never the secret)"
        wait_settled(teacher)
        teacher.screenshot(path=str(shot(teacher, "class-teacher-join").with_name("class-teacher-join.png")))

        phone = _tab(stack, chromium, PHONE)
        phone.goto(link)  # the QR code's link
        chinese = _tab(stack, chromium, LAPTOP, "zh-CN")
        chinese.goto(f"{link}&lang=zh")
        typed = _tab(stack, chromium, LAPTOP)
        typed.goto(app_url)
        for tab in (phone, chinese, typed):
            wait_idle(tab)
        typed.locator("[data-testid=stExpander] summary").filter(has_text=EN["classroom.title"]).click()
        typed.locator(".st-key-class_join_code input").fill(code.lower())
        typed.get_by_role("button", name=EN["classroom.join"]).click()
        wait_idle(typed)
        students = (phone, chinese, typed)
        for tab in students:
            _on_step(tab, 1)
            assert tab.locator(".st-key-class_bar").inner_text().count(code) == 1
            assert tab.locator(".st-key-lesson_next").count() == 0, "a student's page follows: no Next of its own"
            assert tab.locator("[class*=st-key-lesson_reveal]").count() == 0, "only the teacher reveals"
        assert ZH["classroom.following"] in chinese.locator(".st-key-class_bar").inner_text()
        _bar_says(teacher, EN["classroom.joined"].format(n=3))

        teacher.locator(".st-key-class_show_join label").click()  # the join card off: the step back on screen
        for n in (2, ANSWERED_STEP):  # follow two steps
            teacher.evaluate("() => document.activeElement && document.activeElement.blur()")
            teacher.keyboard.press("ArrowRight")
            wait_idle(teacher)
            _on_step(teacher, n)
            for tab in students:
                _on_step(tab, n)
                wait_idle(tab)

        store = ClassStore(class_dir)
        truth_range = "3 – 10"  # the grammar translator's d_model = 64: a token vector of length ~5 after × 8
        _choose(phone, truth_range, wait_idle)
        _choose(chinese, "≥ 30", wait_idle)
        _choose(typed, "< 1", wait_idle)
        _choose(typed, truth_range, wait_idle)  # changed before Reveal
        state = store.state(code)
        assert state.step == ANSWERED_STEP and not state.revealed
        _bar_says(teacher, EN["classroom.answered"].format(n=3, of=3))
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"], "no sideways scrolling at 390 px"
        shot(phone, "class-student-phone-answered")

        teacher.locator(f".st-key-lesson_reveal_{STEPS[ANSWERED_STEP - 1]} button").click()
        wait_idle(teacher)
        line = teacher.locator(".st-key-class_question").inner_text()
        assert f"✓ {truth_range}: 2 (67%)" in line and "≥ 30: 1 (33%)" in line, line
        figure = teacher.locator("[data-testid=stMain] .js-plotly-plot").first.bounding_box()
        assert figure is not None and figure["y"] < PROJECTOR["height"] - 100, "the step's figure starts above the fold"
        teacher.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
        teacher.screenshot(path=str(shot(teacher, "class-teacher-reveal-full").with_name("class-teacher-reveal.png")))

        for tab, verdict in (
            (phone, "stAlertContentSuccess"),
            (typed, "stAlertContentSuccess"),
            (chinese, "stAlertContentError"),
        ):
            tab.wait_for_selector(f".st-key-class_question [data-testid={verdict}]", timeout=FOLLOW_MS)
        assert "你的答案是" in chinese.locator(".st-key-class_question").inner_text()
        shot(phone, "class-student-phone-revealed")
        shot(chinese, "class-student-zh-revealed")

        # "Open in the lab" opens a new tab (the lesson tab keeps following); a student who wanders in the same tab
        # goes through the sidebar's navigation, and the lab page's banner leads back.
        typed.locator("[data-testid=stSidebarNav] a[href*='/heads']").first.click()
        wait_idle(typed)
        assert typed.locator(".st-key-class_banner").count() == 1
        typed.locator(".st-key-class_banner a").click()  # "Follow the teacher"
        wait_idle(typed)
        _on_step(typed, ANSWERED_STEP)
        assert typed.locator(".st-key-class_question [data-testid=stAlertContentSuccess]").count() == 1

        # The teacher reloads (a new session): their browser's cookie leads the class again, never the URL.
        assert any(c["name"] == teacher_cookie.COOKIE for c in teacher.context.cookies())
        assert not any(c["name"] == teacher_cookie.COOKIE for tab in students for c in tab.context.cookies())
        teacher.reload()
        _on_step(teacher, ANSWERED_STEP)
        teacher.locator(".st-key-lesson_next button:not([disabled])").wait_for()
        wait_idle(teacher, start_ms=0)  # the reloaded page's first run over, so → reaches the Next it drew
        wait_settled(teacher)
        assert teacher.locator(".st-key-class_end").count() == 1, "the class bar is the teacher's again"
        assert "class=" not in teacher.url
        teacher.evaluate("() => document.activeElement && document.activeElement.blur()")
        teacher.keyboard.press("ArrowRight")
        wait_idle(teacher)
        tabs = {"the teacher": teacher, "the phone": phone, "the Chinese laptop": chinese, "the typed code": typed}
        _all_on_step(tabs, ANSWERED_STEP + 1)
