"""Browser time: from pressing Enter on new text to every heatmap of the heads page painted.

Run:  python -m benchmarks.browser_time [--lengths 16 64 256 512] [--repeats N] [--quick]

Starts `streamlit run app.py` on a free 127.0.0.1 port and drives Debian's Chromium (Playwright).
The page is opened on the paper's base config with untrained weights (URL
`?model=random&r_layers=6&r_dmodel=512&r_heads=8`), loaded once (model load not timed), then for
each T a new text of T − 1 characters (T source tokens with <eos>) is typed and Enter pressed.
Every text is new, so no cached run is reused. Times come from the page's own clock:
- model: Enter → the run's output arrives (the first code block: `show_run` runs after `get_trace`);
- server: Enter → the script-finished message (the server sent everything);
- paint: script finished → every chart shows the new run, images decoded, two frames drawn;
- total: Enter → painted (the target: ≤ 1 s at T = 64, ≤ 4 s at T = 512).
"received" is the websocket bytes of that rerun. Bounded: each step times out after 10 minutes,
and only loopback is contacted (other requests are counted in the last line).
"""

from __future__ import annotations

import statistics

from benchmarks.browser import MARK_CHARTS, PER_MODEL_CHARTS, chromium_page, streamlit_server, wait_painted
from benchmarks.common import BASE_QUERY, arguments, header, ms, print_table, random_text, size

# Record each websocket message's arrival (page clock) and size before Streamlit handles it.
WS_LOG = """(() => {
  const Native = window.WebSocket;
  window.__ws = [];
  const Logged = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', e => {
      const d = e.data; window.__ws.push([performance.now(), d.byteLength ?? d.size ?? d.length]);
    });
    return ws;
  };
  Logged.prototype = Native.prototype;
  Object.assign(Logged, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  window.WebSocket = Logged;
})();"""
ARM_ENTER = """() => { window.__enter = null; window.__wsFrom = window.__ws.length;
  document.addEventListener('keydown', e => { if (e.key === 'Enter') window.__enter = performance.now(); },
                            {capture: true, once: true}); }"""


def message_kind(payload: bytes | str) -> str:
    """'finished', 'code' (an st.code element) or 'other', from a ForwardMsg's bytes."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    if isinstance(payload, str):
        return "other"
    msg = ForwardMsg.FromString(payload)
    kind = msg.WhichOneof("type")
    if kind == "script_finished":
        return "finished"
    if kind == "delta" and msg.delta.WhichOneof("type") == "new_element" and msg.delta.new_element.WhichOneof("type") == "code":
        return "code"
    return "other"


def submit(page, frames: list, text: str) -> dict[str, float]:
    """Type `text`, press Enter, wait until painted; the phases in seconds and the bytes received."""
    page.evaluate(MARK_CHARTS)
    charts = "[...document.querySelectorAll('[data-testid=stPlotlyChart]')]"
    n_charts = page.evaluate(f"{charts}.filter(b => !b.closest('{PER_MODEL_CHARTS}')).length")  # the text's charts
    box = page.locator(".st-key-text input")
    box.fill(text)
    page.evaluate(ARM_ENTER)
    first_frame = len(frames)
    box.press("Enter")
    painted = wait_painted(page, n_charts)
    enter, start = page.evaluate("[window.__enter, window.__wsFrom]")
    log = page.evaluate("window.__ws")[start:]
    kinds = [message_kind(p) for p in frames[first_frame : first_frame + len(log)]]
    if len(kinds) != len(log):  # the page saw messages Playwright did not report (or the reverse): no split
        kinds = ["other"] * len(log)
    arrivals = [(t, kind) for (t, _), kind in zip(log, kinds, strict=True) if t >= enter]
    finished = next((t for t, kind in arrivals if kind == "finished"), painted)
    model = next((t for t, kind in arrivals if kind == "code"), float("nan"))
    return {
        "total": (painted - enter) / 1000,
        "model": (model - enter) / 1000,
        "server": (finished - enter) / 1000,
        "paint": (painted - finished) / 1000,
        "bytes": sum(n for t, n in log if t >= enter),
    }


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--repeats", type=int, default=3, help="texts per length (the median is shown)")
    args = parser.parse_args()
    query = {"lang": "en", "model": "random"} if args.quick else {"lang": "en", **BASE_QUERY}
    lengths = [16] if args.quick else args.lengths
    repeats = 1 if args.quick else args.repeats
    header(f"Browser time, Enter → every heatmap painted ({'small' if args.quick else 'base'} config, untrained)")
    rows = []
    with streamlit_server() as server, chromium_page() as page:
        frames: list = []
        page.add_init_script(WS_LOG)
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
        page.goto(server.page_url("heads", **query, text=random_text(15, seed=0)))
        wait_painted(page, 1)  # first load: the model is built and cached here, not timed
        for length in lengths:
            runs = [submit(page, frames, random_text(length - 1, seed=1000 * length + r)) for r in range(repeats)]
            med = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
            rows.append(
                [
                    length,
                    len(runs),
                    ms(med["total"]),
                    ms(med["model"]),
                    ms(med["server"] - med["model"]),
                    ms(med["paint"]),
                    size(med["bytes"]),
                ]
            )
        outside = sorted(set(page.outside))
    print_table(["T", "texts", "total ms (median)", "model ms", "rest of server ms", "paint ms", "received"], rows)
    print(f"Requests not to 127.0.0.1: {len(outside)} distinct{': ' + ', '.join(outside) if outside else ''}")


if __name__ == "__main__":
    main()
