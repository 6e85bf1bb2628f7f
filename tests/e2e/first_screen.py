"""What the new pages' browser tests share: the screenshots a teacher sees on a 1280×720 projector."""

from collections.abc import Iterator
from contextlib import contextmanager

PROJECTOR = {"width": 1280, "height": 720}


@contextmanager
def projector_tab(chromium, **context_options: object) -> Iterator[object]:
    """A fresh tab (its own context: no other test's session) in a 1280×720 window, English browser locale."""
    context = chromium.new_context(viewport=PROJECTOR, locale="en-US", **context_options)
    tab = context.new_page()
    tab.set_default_timeout(120_000)
    try:
        yield tab
    finally:
        context.close()


def first_screen(page, tools, name: str) -> None:
    """Save `<name>-full.png` (the whole page, 1280 wide) and `<name>.png` (the first 1280×720 screen)."""
    page.set_viewport_size(PROJECTOR)
    tools.wait_idle(page)
    tools.wait_settled(page)  # plotly re-lays out to the new size
    path = tools.screenshot(page, f"{name}-full")
    assert path.stat().st_size > 0
    page.locator("[data-testid=stMain]").evaluate("e => e.scrollTo(0, 0)")
    page.screenshot(path=str(path.with_name(f"{name}.png")))
