"""The training worker's pace with and without a watching browser: does the page's polling starve the training?

Run:  python -m benchmarks.training_watched [--quick] [--phase-s 45] [--rounds 2]

Starts `streamlit run app.py` on a free 127.0.0.1 port and Debian's Chromium (Playwright). One tab opens the Training
page and starts the default preset (`reverse`) with its early stop off and 20,000 steps; then, in turns, for
`--phase-s` seconds each:
- unwatched: the tab leaves the page (about:blank), so no session polls; the job trains on in the server;
- watched: a tab shows the Training page (its live panel polls every second and redraws as frames arrive);
- watched + another session: the same, while a second browser session reloads the heads page on a new sentence
  every few seconds (a student using another page).
The pace is the job's own recent rate (steps per second over its last 30 s, `runs.training.eta`), read from the
progress line at the end of each phase (an unwatched phase is read the moment the page is back, a second or two of
which is watched). Chromium, the server and the worker share the machine's cores, as in a class run on one laptop.
The ratio watched / unwatched is the share of the worker's pace a watching class keeps.
"""

from __future__ import annotations

import re
import statistics
import time

from benchmarks.browser import chromium_page, streamlit_server
from benchmarks.common import arguments, header, print_table

PROGRESS = "[data-testid=stProgress]"
HAS_RATE = """() => {
  const p = document.querySelector('[data-testid=stProgress]');
  return p && /at [\\d.]+ steps\\/s/.test(p.innerText);
}"""
RATE = re.compile(r"at ([\d.]+) steps/s")
STEP = re.compile(r"Step ([\d,]+)")
SENTENCES = ("i read a book", "the teacher writes a letter today", "my friend drinks tea in the garden", "we eat rice")


def read_pace(page) -> tuple[int, float | None]:
    """(step, recent steps/s) from the progress line of the Training page open in `page` (once it shows a rate)."""
    page.wait_for_function(HAS_RATE, timeout=600_000)
    text = page.locator(PROGRESS).first.inner_text()
    step, rate = STEP.search(text), RATE.search(text)
    return int(step.group(1).replace(",", "")) if step else 0, float(rate.group(1)) if rate else None


def no_early_stop(page) -> None:
    """The default recipe without its early stop, and a long budget, so the job trains through every phase: the
    "With label smoothing" experiment is the default preset with the early stop off (`EXPERIMENTS`)."""
    idle = "[data-testid=stApp][data-test-script-state=notRunning]"
    page.wait_for_selector(idle, timeout=600_000)
    page.get_by_text("With label smoothing", exact=True).click()
    page.wait_for_selector(idle, timeout=600_000)
    page.get_by_text("Settings", exact=True).click()
    steps = page.get_by_role("spinbutton", name="Steps (at most)")
    steps.fill("20000")
    steps.press("Enter")
    page.wait_for_timeout(500)
    page.wait_for_selector(idle, timeout=600_000)


def open_training(page, url: str) -> None:
    page.goto(f"{url}/training")
    page.locator(PROGRESS).first.wait_for(timeout=600_000)


def other_session(context, url: str, seconds: float) -> None:
    """A second session on the heads page, a new sentence every few seconds, for `seconds`."""
    page = context.new_page()
    end, i = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        page.goto(f"{url}/heads?text={SENTENCES[i % len(SENTENCES)].replace(' ', '+')}")
        page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=600_000)
        i += 1
        page.wait_for_timeout(3000)
    page.close()


def measure(phase_s: float, rounds: int) -> dict[str, list[float]]:
    paces: dict[str, list[float]] = {"unwatched": [], "watched": [], "watched + another session": []}
    with streamlit_server() as server, chromium_page(width=1280, height=720) as page:
        page.goto(f"{server.url}/training")
        no_early_stop(page)
        page.get_by_role("button", name="Start training").click()
        page.locator(PROGRESS).first.wait_for(timeout=600_000)
        read_pace(page)  # past the first steps' imports
        other = page.context.browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
        for _ in range(rounds):
            page.goto("about:blank")
            time.sleep(phase_s)
            open_training(page, server.url)
            paces["unwatched"].append(read_pace(page)[1] or float("nan"))
            time.sleep(phase_s)
            paces["watched"].append(read_pace(page)[1] or float("nan"))
            other_session(other, server.url, phase_s)
            paces["watched + another session"].append(read_pace(page)[1] or float("nan"))
        other.close()
    return paces


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--phase-s", type=float, default=45.0, help="seconds of each phase (the rate window is 30 s)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the three phases")
    args = parser.parse_args()
    phase_s, rounds = (8.0, 1) if args.quick else (args.phase_s, args.rounds)
    header("Training worker's pace, with and without a watching browser")
    paces = measure(phase_s, rounds)
    unwatched = statistics.median(paces["unwatched"])
    rows = [
        [
            name,
            ", ".join(f"{v:.1f}" for v in values),
            f"{statistics.median(values):.1f}",
            f"{statistics.median(values) / unwatched:.2f}",
        ]
        for name, values in paces.items()
    ]
    print_table(["phase", "steps/s each round", "median steps/s", "ratio to unwatched"], rows)


if __name__ == "__main__":
    main()
