"""Cold start: from starting `streamlit run app.py` to the first page painted in a browser.

Run:  python -m benchmarks.cold_start [--runs N] [--quick]

Chromium is launched first (not timed). Then the clock starts, the server process is created, its
health check is polled every 20 ms, and as soon as it answers the browser opens the app's default
page (the heads page on the default model and its example sentence) in a fresh profile: the page
counts as painted when every chart on it has drawn (benchmarks/browser.py). Median of `--runs`
fresh server processes. Target: ≤ 4 s.
"""

from __future__ import annotations

import statistics
import time

from benchmarks.browser import HEADS_CHARTS, chromium_page, streamlit_server, wait_painted
from benchmarks.common import arguments, header, ms, print_table


def cold_start() -> dict[str, float]:
    with chromium_page() as page, streamlit_server() as server:
        page.goto(server.page_url("heads"))  # the attention-heads page (the lesson is the home page)
        wait_painted(page, HEADS_CHARTS)
        total = time.monotonic() - server.started
        return {"total": total, "server": server.healthy_after, "page": total - server.healthy_after}


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs = [cold_start() for _ in range(1 if args.quick else args.runs)]
    header("Cold start: process start → first page painted (default model and example)")
    med = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    print_table(
        ["runs", "total ms (median)", "process start → health ok ms", "page load → painted ms", "all runs ms"],
        [[len(runs), ms(med["total"]), ms(med["server"]), ms(med["page"]), ", ".join(ms(run["total"]) for run in runs)]],
    )


if __name__ == "__main__":
    main()
