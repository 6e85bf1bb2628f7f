"""Cold start: from starting `streamlit run app.py` to the lesson's first figure painted in a browser, against the
floor of a minimal page with the same stack.

Run:  python -m benchmarks.cold_start [--runs N] [--quick]

Chromium is launched first (not timed). Then the clock starts, the server process is created, its
health check is polled every 20 ms, and as soon as it answers the browser opens a page in a fresh profile: it
counts as painted when its charts have drawn (benchmarks/browser.py). Three pages, each on fresh server processes:
the floor (`benchmarks/floor_page.py`: a Streamlit page that imports PyTorch and draws one plotly chart), the
lesson's first figure (`/?step=4`: its first step whose figure shows before Reveal, on the default model) and the
heads page (four charts). Median of `--runs`. Target (issue 24): the lesson ≤ 1.3× the floor.
"""

from __future__ import annotations

import statistics
import time

from benchmarks.browser import HEADS_CHARTS, chromium_page, streamlit_server, wait_painted
from benchmarks.common import arguments, header, ms, print_table

PAGES = {  # name → (Streamlit script, URL path and query, charts that must paint)
    "floor (torch + one plotly chart)": ("benchmarks/floor_page.py", "", 1),
    "lesson, first figure (?step=4)": ("app.py", "?step=4", 1),
    "heads page": ("app.py", "heads", HEADS_CHARTS),
}


def cold_start(script: str, path: str, charts: int) -> dict[str, float]:
    with chromium_page() as page, streamlit_server(script=script) as server:
        page.goto(f"{server.url}/{path}")
        wait_painted(page, charts)
        total = time.monotonic() - server.started
        return {"total": total, "server": server.healthy_after, "page": total - server.healthy_after}


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    n = 1 if args.quick else args.runs
    results = {name: [cold_start(*page) for _ in range(n)] for name, page in PAGES.items()}
    header("Cold start: process start → page painted (default model), against the floor of a minimal page")
    floor = statistics.median(run["total"] for run in next(iter(results.values())))
    rows = []
    for name, runs in results.items():
        med = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        every = ", ".join(ms(run["total"]) for run in runs)
        ratio = f"{med['total'] / floor:.2f}×"
        rows.append([name, len(runs), ms(med["total"]), ratio, ms(med["server"]), ms(med["page"]), every])
    columns = ["page", "runs", "total ms (median)", "× floor", "start → health ok ms", "load → painted ms", "all runs ms"]
    print_table(columns, rows)


if __name__ == "__main__":
    main()
