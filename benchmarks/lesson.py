"""Lesson speed: Next / Previous → the step's figure painted, and Reveal → answer and figure painted.

Run:  python -m benchmarks.lesson [--repeats N] [--projector]

Starts `streamlit run app.py` on a free 127.0.0.1 port and drives Debian's Chromium at 1280 × 720
on the default model and its example sentence. The page is loaded once on step 1 (model load and
first run not timed); then each round walks every step forward with → (timing each step until the
script finished and its charts show new data, painted), reveals it (same clock), and walks back with
←. Times are medians over rounds, from the page's own clock. The second table is the server's share
of a step's first visit: `runs.lesson.step_numbers` in-process (the step's record, its live answer and
its figure's arrays: the one call the page makes per step, cached per sentence afterwards by
`ui.caches.get_lesson_step`; model loaded and sentence run beforehand) and the bytes of that record.
Targets (issue 11): Next/Previous ≤ 1 s median, Reveal ≤ 0.5 s, on this 2-core machine.
"""

from __future__ import annotations

import statistics
import time

from benchmarks.browser import MARK_CHARTS, PAINTED, chromium_page, streamlit_server
from benchmarks.common import arguments, header, ms, print_table, size
from runs.lesson import STEPS

WIDTH, HEIGHT = 1280, 720
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
NO_FIGURE = {"feed_forward"}
ACTION_TIMEOUT_MS = 60_000  # the default model has every other step's figure


def charts(page) -> int:
    return int(page.evaluate("() => document.querySelectorAll('[data-testid=stPlotlyChart]').length"))


# Resolves with the page clock once the rerun finished (nothing stale, no status widget), two frames later.
FINISHED = """async (mark) => {
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const app = () => document.querySelector('[data-testid=stApp]');
  const shown = () => document.querySelector(mark) !== null;
  while (!shown() || app().getAttribute('data-test-script-state') !== 'notRunning'
         || document.querySelector('[data-testid=stStatusWidget], [data-stale=true]')) await frame();
  await frame(); await frame();
  return performance.now();
}"""


def timed_action(page, act, n_charts: int, mark: str) -> float:
    """ms from just before `act()` to the rerun finished with `n_charts` charts showing new data, painted
    (`n_charts` = 0: no new chart is expected, e.g. a Reveal beside a figure already shown); `mark` is a
    CSS selector that only the new state shows (the step's own buttons), so an early "finished" is not taken."""
    page.evaluate(MARK_CHARTS)
    start = float(page.evaluate("() => performance.now()"))
    act()
    page.wait_for_timeout(30)  # let the click or key reach the server before polling for "finished"
    if n_charts == 0:
        return float(page.evaluate(FINISHED, mark)) - start
    painted = float(page.evaluate(PAINTED, [n_charts, ACTION_TIMEOUT_MS]))
    if painted < 0:
        raise TimeoutError(f"no new chart painted within {ACTION_TIMEOUT_MS} ms after {mark}")
    return painted - start


def step_charts_after(page) -> int:
    """Charts the current step shows once its rerun is over (0 when its figure waits for Reveal)."""
    page.wait_for_selector(IDLE)
    return charts(page)


def browser_rounds(repeats: int, projector: bool) -> dict[str, dict[str, list[float]]]:
    times: dict[str, dict[str, list[float]]] = {step: {"next": [], "prev": [], "reveal": []} for step in STEPS}
    with streamlit_server() as server, chromium_page(WIDTH, HEIGHT) as page:
        page.goto(server.page_url(step="1", **({"projector": "1"} if projector else {})))
        page.wait_for_selector(IDLE)
        page.wait_for_timeout(1500)
        n_visible = {}
        for round_ in range(repeats + 1):  # round 0 warms every cache (first runs of the causal experiment etc.)
            for n, step in enumerate(STEPS, start=1):
                if n > 1:
                    page.evaluate("() => document.activeElement && document.activeElement.blur()")
                    expected = n_visible.get(step, 0)
                    took = timed_action(page, lambda: page.keyboard.press("ArrowRight"), expected, step_mark(step))
                    if round_:
                        times[step]["next"].append(took)
                n_visible[step] = step_charts_after(page)
                reveal = page.locator(f".st-key-lesson_reveal_{step} button")
                if reveal.count():  # a figure shown before Reveal stays as it was: only a hidden one is new
                    figure = 1 if n_visible[step] == 0 and step not in NO_FIGURE else 0
                    took = timed_action(page, reveal.first.click, figure, f".st-key-lesson_hide_{step}")
                    if round_:
                        times[step]["reveal"].append(took)
            for n in range(len(STEPS), 1, -1):
                step = STEPS[n - 2]
                page.evaluate("() => document.activeElement && document.activeElement.blur()")
                took = timed_action(page, lambda: page.keyboard.press("ArrowLeft"), charts_after_reveal(step), step_mark(step))
                if round_:
                    times[step]["prev"].append(took)
            # a new session (fresh reveals), so the next round asks first again; settled as the first was (a second
            # session also starts the server's model-run worker, whose start competes with this page's first rerun)
            page.goto(server.page_url(step="1", **({"projector": "1"} if projector else {})))
            page.wait_for_selector(IDLE)
            page.wait_for_timeout(1500)
    return times


def step_mark(step: str) -> str:
    """A selector only step `step` shows: its Reveal or Hide button."""
    return f".st-key-lesson_reveal_{step}, .st-key-lesson_hide_{step}"


def charts_after_reveal(step: str) -> int:
    """Revealed steps keep their answer (session state): going back shows the figure."""
    return 0 if step in NO_FIGURE else 1


def server_share() -> list[list[object]]:
    """In-process time of each step's numbers (`runs.lesson.step_numbers`, the median of 3) and their record's bytes."""
    from runs.byte_cache import deep_nbytes
    from runs.lesson import step_numbers
    from runs.model_ref import ModelRef, load_bundle
    from runs.text_run import run_text
    from transformer.storage.registry import DEFAULT_MODEL

    bundle = load_bundle(ModelRef.parse(DEFAULT_MODEL))
    trace = run_text(bundle, str(bundle.card.get("example")))  # every hook, as the lesson's run
    rows = []
    for step in STEPS:
        step_numbers(step, bundle, trace)  # warm-up: first calls load code and fill lazy tables, as a running server has
        took = []
        for _ in range(3):
            start = time.perf_counter()
            numbers = step_numbers(step, bundle, trace)
            took.append(time.perf_counter() - start)
        rows.append([step, ms(statistics.median(took)), size(deep_nbytes(numbers))])
    return rows


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--projector", action="store_true", help="measure with ?projector=1")
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds through the lesson (after one warm-up)")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    header(f"Lesson: Next / Previous / Reveal → painted, {WIDTH}×{HEIGHT}, {'projector' if args.projector else 'normal'} mode")
    times = browser_rounds(repeats, args.projector)
    rows = []
    for step in STEPS:
        cells = [statistics.median(v) if v else None for v in (times[step]["next"], times[step]["prev"], times[step]["reveal"])]
        rows.append([step, *(f"{c:.0f} ms" if c is not None else "–" for c in cells)])
    every = {kind: [x for step in STEPS for x in times[step][kind]] for kind in ("next", "prev", "reveal")}
    rows.append(["all steps", *(f"{statistics.median(v):.0f} ms" if v else "–" for v in every.values())])
    print_table(["step", "Next → painted", "Previous → painted", "Reveal → painted"], rows)
    print()
    print_table(["step", "numbers, first visit (server, ms)", "record (answer and figure arrays)"], server_share())


if __name__ == "__main__":
    main()
