"""Memory: peak resident memory of the server with one browser session on the heads page.

Run:  python -m benchmarks.memory [--lengths 512 ...] [--quick]

For each T, a fresh `streamlit run` is started, one Chromium tab opens the heads page on the
paper's base config with untrained weights and a text of T − 1 characters (T source tokens), and
once every chart has painted the server's VmHWM (peak resident set) and VmRSS are read from
/proc/<pid>/status. "idle" is the peak before any page was opened (Python, torch, streamlit loaded).
"""

from __future__ import annotations

from benchmarks.browser import HEADS_CHARTS, chromium_page, rss_peak_kib, streamlit_server, wait_painted
from benchmarks.common import BASE_QUERY, arguments, header, print_table, random_text, size


def measure(length: int, query: dict[str, str]) -> list[object]:
    with chromium_page() as page, streamlit_server() as server:
        idle, _ = rss_peak_kib(server.process.pid)
        page.goto(server.page_url("heads", **query, text=random_text(length - 1, seed=length)))
        wait_painted(page, HEADS_CHARTS)
        peak, now = rss_peak_kib(server.process.pid)
    return [length, size(idle * 1024), size(peak * 1024), size(now * 1024), size((peak - idle) * 1024)]


def main() -> None:
    args = arguments(__doc__, lengths=(512,)).parse_args()
    query = {"lang": "en", "model": "random"} if args.quick else {"lang": "en", **BASE_QUERY}
    lengths = [16] if args.quick else args.lengths
    header(f"Server memory, one session on the heads page ({'small' if args.quick else 'base'} config, untrained)")
    print_table(
        ["T", "idle peak (VmHWM)", "peak after painting (VmHWM)", "resident then (VmRSS)", "peak − idle"],
        [measure(length, query) for length in lengths],
    )


if __name__ == "__main__":
    main()
