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


# Where the step title, the main figure, its tick labels and axis titles and the revealed answer sit, in px from the
# top of the window, the main area scrolled to the top (a tick label with no text has no box and is left out).
LAYOUT = """() => {
    const main = document.querySelector('[data-testid=stMain]');
    main.scrollTo(0, 0);
    const box = e => e.getBoundingClientRect().toJSON();
    const plot = [...main.querySelectorAll('.js-plotly-plot')].find(e => e.offsetParent !== null);
    const boxes = sel => plot ? [...plot.querySelectorAll(sel)].map(box).filter(b => b.width > 0 && b.height > 0) : [];
    const answer = main.querySelector('[data-testid=stAlertContentSuccess]');
    return {
        scroll: main.scrollTop,
        title: box(main.querySelector('h1')),
        figure: plot ? box(plot) : null,
        x_ticks: boxes('.xtick text'),
        y_ticks: boxes('.ytick text'),
        x_title: boxes('.g-xtitle text'),
        y_title: boxes('.g-ytitle text'),
        answer: answer ? box(answer) : null,
    };
}"""


def layout_faults(layout: dict) -> list[str]:
    """What of `LAYOUT`'s measures leaves the first 1280 × 720 screen or overlaps: the title, the figure, its tick
    labels and axis titles, the answer; an axis title that runs into its tick labels."""
    width, height = PROJECTOR["width"], PROJECTOR["height"]
    faults = [] if layout["scroll"] == 0 else [f"scrolled {layout['scroll']} px"]

    def off(name: str, b: dict | None) -> None:
        if b is not None and (b["top"] < 0 or b["bottom"] > height + 1 or b["left"] < 0 or b["right"] > width + 1):
            faults.append(f"{name} leaves the screen: {b}")

    off("step title", layout["title"])
    off("figure", layout["figure"])
    off("answer", layout["answer"])
    for name in ("x_ticks", "y_ticks", "x_title", "y_title"):
        for b in layout[name]:
            off(name, b)
    for axis in ("x", "y"):
        for title in layout[f"{axis}_title"]:
            hit = [b for b in layout[f"{axis}_ticks"] if overlap(title, b)]
            if hit:
                faults.append(f"{axis}-axis title {title} overlaps its tick labels {hit[:2]}")
    return faults


def overlap(a: dict, b: dict, px: float = 1.0) -> bool:
    """Whether two boxes share more than `px` in both directions."""
    wide = min(a["right"], b["right"]) - max(a["left"], b["left"])
    tall = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return wide > px and tall > px
