"""Classroom load: N students on one server, each typing a different sentence into the heads page.

Run:  python -m benchmarks.classroom [--students 10 30] [--rounds 2] [--spread 10] [--quick]

No browsers: each student is a protocol-level client that speaks Streamlit's own websocket
protocol (`/_stcore/stream`, `BackMsg`/`ForwardMsg` protobufs) to a real `streamlit run app.py`
on 127.0.0.1, as the browser does: it opens the page (`rerun_script` with the URL's query
string), then "types" a sentence by sending the text box's new widget state, and measures the time
from sending to the server's `script_finished`. So only the server's cost is measured (the
browser's drawing is not), with every session in the server's one process sharing its caches.

Two patterns per class size: "burst" (the teacher says "now type your sentence" and every student
presses Enter at the same moment: the worst case) and "spread" (each student presses Enter at a
random moment within `--spread` seconds, as people do). Every reply is checked against the
student's own sentence, computed beforehand in this process with the same model: its source
tokens, its output and every token axis of its charts. A reply that shows another student's
sentence counts as a leak; any other mismatch, an exception element or a failed script counts
as an error. Server CPU (user + system) and memory (VmHWM, VmRSS) come from /proc/<pid>.
Loopback only; every wait is bounded, and the script stops by itself.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import torch
import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks import profile_split
from benchmarks.browser import rss_peak_kib, streamlit_server
from benchmarks.common import arguments, header, ms, print_table, quantile, size

REPLY_TIMEOUT_S = 180  # a reply slower than this is an error, never a hang
QUERY = "lang=en"  # the default model, English UI
PAGE = "heads"  # the url path the students open (the lesson is the home page)
SEP = " · "  # how ui/page.py joins tokens


@dataclass(frozen=True)
class Expected:
    """What the page must show for one sentence: computed here, before the server is loaded."""

    sentence: str
    src: str  # the "source tokens" line
    output: str  # the "model output" line
    axes: frozenset[tuple[str, ...]]  # every token axis a chart may carry (html-escaped, as plotly gets them)


@dataclass
class Tally:
    times: list[float] = field(default_factory=list)
    first_load: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    leaks: int = 0
    checked: int = 0


def expectations(n: int, seed: int) -> list[Expected]:
    """`n` different grammatical sentences of the default model's task, with what the page shows for each."""
    from transformer.decoding import trace_text
    from transformer.registry import DEFAULT_MODEL, load_model
    from transformer.tasks.translate_zh import EnglishToChinese
    from viz.tokens import decoder_query_axis

    torch.set_num_threads(1)  # the clients' process stays light: the server's cores are what is measured
    sentences: list[str] = []
    for example in EnglishToChinese().examples(4 * n + 10, "heldout", seed):
        if example.source not in sentences:
            sentences.append(example.source)
    bundle = load_model(DEFAULT_MODEL)
    out = []
    for sentence in sentences[:n]:
        trace = trace_text(bundle, sentence, names=())
        src, tgt = tuple(trace.src_tokens), tuple(trace.tgt_tokens)
        rows = decoder_query_axis(tgt, trace.next_tokens)  # decoder rows are named by what they write
        escaped = frozenset(
            [
                *(tuple(html.escape(token) for token in tokens) for tokens in (src, tgt)),
                tuple(rows.short_labels()),
                tuple(rows.long_labels()),
            ]
        )
        out.append(Expected(sentence, SEP.join(src), trace.output_text or "∅", escaped))
    if len(out) < n:
        raise RuntimeError(f"the task gave only {len(out)} different sentences, {n} needed")
    return out


def _elements(messages: list[ForwardMsg]):
    for message in messages:
        if message.WhichOneof("type") == "delta" and message.delta.WhichOneof("type") == "new_element":
            yield message.delta.new_element


def check_reply(messages: list[ForwardMsg], mine: Expected, others: dict[str, Expected]) -> tuple[str | None, bool]:
    """(error or None, leaked): does this reply show my sentence, and only mine?

    Strict on purpose: a chart axis that is neither my source nor my target tokens counts as a leak
    too, as does a reply showing any other sentence of the run (another student's, or a stale one).
    """
    codes, axes = [], []
    for element in _elements(messages):
        kind = element.WhichOneof("type")
        if kind == "exception":
            return f"exception: {element.exception.type}", False
        if kind == "code":
            codes.append(element.code.code_text)
        if kind == "plotly_chart":
            layout = json.loads(element.plotly_chart.spec).get("layout", {})
            axes += [
                tuple(v["ticktext"])
                for k, v in layout.items()
                if k.startswith(("xaxis", "yaxis")) and isinstance(v, dict) and v.get("ticktext")
            ]
    leaked = any(code in others for code in codes if code != mine.src)
    finished = [m.script_finished for m in messages if m.WhichOneof("type") == "script_finished"]
    if finished != [ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY]:
        return f"script finished with {finished}", leaked
    if mine.src not in codes or mine.output not in codes:
        return "reply does not show this student's tokens and output", leaked
    strangers = [axis for axis in axes if axis not in mine.axes]
    if strangers:
        return f"chart axis {strangers[0][:4]}… is not this student's", leaked or True
    return None, leaked


class Student:
    """One websocket session: opens the page, then types sentences into the text box."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.query = QUERY  # the page's URL query string, sent with every rerun as the browser does
        self.ws = None
        self.page_hash = ""
        self.text_id = ""

    async def connect(self) -> None:
        self.ws = await websockets.connect(
            f"ws://127.0.0.1:{self.port}/_stcore/stream",
            subprotocols=["streamlit"],
            origin=f"http://127.0.0.1:{self.port}",
            max_size=None,
            open_timeout=60,
            ping_interval=None,
        )  # a browser sends no pings; a busy server answers them late

    async def rerun(self, text: str | None = None) -> tuple[float, list[ForwardMsg]]:
        """Send one `rerun_script` (with the text box's new value if given); seconds to `script_finished`, replies."""
        back = BackMsg()
        state = back.rerun_script
        state.query_string = self.query
        if self.page_hash:
            state.page_script_hash = self.page_hash
        else:  # the first request names the page by its url path, as a browser opening /heads does
            state.page_name = PAGE
        if text is not None:
            widget = state.widget_states.widgets.add()
            widget.id, widget.string_value = self.text_id, text
        assert self.ws is not None
        began = time.perf_counter()
        await self.ws.send(back.SerializeToString())
        messages: list[ForwardMsg] = []
        while True:
            message = ForwardMsg()
            message.ParseFromString(await asyncio.wait_for(self.ws.recv(), REPLY_TIMEOUT_S))
            messages.append(message)
            if message.WhichOneof("type") == "script_finished":
                return time.perf_counter() - began, messages

    def learn_page(self, messages: list[ForwardMsg]) -> None:
        """The heads page's script hash and the text box's widget id, as the browser learns them."""
        for message in messages:
            if message.WhichOneof("type") == "navigation":
                self.page_hash = message.navigation.page_script_hash
        for element in _elements(messages):
            if element.WhichOneof("type") == "text_input":
                self.text_id = element.text_input.id
        if not (self.page_hash and self.text_id):
            raise RuntimeError("the first reply had no navigation or no text box")

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime, in clock ticks


def _threads(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="utf-8") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("Threads:"))


async def classroom(
    port: int, pid: int, n: int, rounds: int, spread_s: float, sentences: list[Expected], seed: int, profile: Path | None = None
) -> dict[str, object]:
    """N students open the page together, then `rounds` times each types its own next sentence."""
    rng = random.Random(seed)
    by_src = {e.src: e for e in sentences}
    tally = Tally()
    students = [Student(port) for _ in range(n)]
    await asyncio.gather(*(s.connect() for s in students))
    cpu0 = _cpu_seconds(pid)

    async def open_page(i: int, student: Student) -> None:
        try:
            seconds, messages = await student.rerun()
            student.learn_page(messages)
        except (TimeoutError, websockets.ConnectionClosed, RuntimeError) as error:
            tally.errors.append(f"student {i} opening the page: {type(error).__name__}: {error}")
            student.text_id = ""
            return
        tally.first_load.append(seconds)

    await asyncio.gather(*(open_page(i, s) for i, s in enumerate(students)))
    wall0, cpu1 = time.perf_counter(), _cpu_seconds(pid)
    threads = 0
    sampler = profile_split.record(pid, 3600, profile) if profile else None  # the typing only, not start-up

    async def type_sentence(i: int, student: Student, mine: Expected, delay: float) -> None:
        if not student.text_id:
            return  # could not open the page: counted once, above
        await asyncio.sleep(delay)
        try:
            seconds, messages = await student.rerun(mine.sentence)
        except (TimeoutError, websockets.ConnectionClosed) as error:
            tally.errors.append(f"student {i}: {type(error).__name__}")
            return
        tally.times.append(seconds)
        error, leaked = check_reply(messages, mine, {k: v for k, v in by_src.items() if k != mine.src})
        tally.checked += 1
        tally.leaks += leaked
        if error:
            tally.errors.append(f"student {i}: {error}")

    for r in range(rounds):
        mine = [sentences[(r * n + i) % len(sentences)] for i in range(n)]
        delays = [rng.uniform(0, spread_s) for _ in range(n)]
        task = asyncio.gather(*(type_sentence(i, s, mine[i], delays[i]) for i, s in enumerate(students)))
        while not task.done():
            threads = max(threads, _threads(pid))
            await asyncio.wait([task], timeout=0.2)
        await task
    wall, cpu = time.perf_counter() - wall0, _cpu_seconds(pid) - cpu1
    if sampler is not None:
        sampler.send_signal(signal.SIGINT)  # py-spy writes what it has and exits
        sampler.wait(60)
    await asyncio.gather(*(s.close() for s in students))
    return {"tally": tally, "wall": wall, "cpu": cpu, "open_cpu": cpu1 - cpu0, "threads": threads}


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--students", type=int, nargs="*", default=[10, 30], help="class sizes to simulate")
    parser.add_argument("--rounds", type=int, default=2, help="sentences each student types, per pattern")
    parser.add_argument("--spread", type=float, default=10.0, help="seconds over which 'spread' students press Enter")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--patterns", nargs="*", default=["burst", "spread"], choices=["burst", "spread"])
    parser.add_argument(
        "--profile", action="store_true", help="sample the server with py-spy while students type and split its time by stage"
    )
    args = parser.parse_args()
    if args.quick:
        args.students, args.rounds, patterns = [3], 1, {"burst": 0.0}
    else:
        patterns = {p: (0.0 if p == "burst" else args.spread) for p in args.patterns}
    if args.profile and not profile_split.available():
        parser.error("--profile needs py-spy (pip install py-spy)")
    n_sentences = max(args.students) * args.rounds * len(patterns)
    sentences = expectations(n_sentences, args.seed)
    header("Classroom: simulated students typing into the heads page (default model, Streamlit's websocket protocol)")
    options = " ".join(f"{k}={v}" for k, v in sorted(os.environ.items()) if k.startswith("STREAMLIT_"))
    print(
        f"Server: `streamlit run app.py`, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '2 (app.py default)')}"
        f"{', ' + options if options else ''}; the torch threads above are the clients' process.\n"
    )
    rows, failures = [], []
    profiles: dict[str, Counter] = {}
    for n in args.students:
        for p, (pattern, spread) in enumerate(patterns.items()):
            with streamlit_server() as server:  # a fresh server per row: no warm cache from the row before
                port = int(server.url.rsplit(":", 1)[1])
                pid = server.process.pid
                offset = p * n * args.rounds
                raw = Path(tempfile.gettempdir()) / f"classroom-{n}-{pattern}.pyspy" if args.profile else None
                result = asyncio.run(
                    classroom(
                        port,
                        pid,
                        n,
                        args.rounds,
                        spread,
                        sentences[offset : offset + n * args.rounds] or sentences,
                        args.seed + n,
                        raw,
                    )
                )
                peak, now = rss_peak_kib(pid)
            if raw is not None and raw.is_file():
                profiles[f"{n} students, {pattern}"] = profile_split.split(raw)
            tally: Tally = result["tally"]  # type: ignore[assignment]
            busy = result["cpu"] / max(result["wall"], 1e-9)  # type: ignore[operator]
            rows.append(
                [
                    n,
                    pattern if not spread else f"{pattern} ({spread:.0f} s)",
                    len(tally.times),
                    ms(quantile(tally.first_load, 0.5)),
                    ms(quantile(tally.first_load, 0.95)),
                    ms(quantile(tally.times, 0.5)),
                    ms(quantile(tally.times, 0.95)),
                    ms(max(tally.times, default=0)),
                    f"{result['cpu']:.1f} s ({100 * busy:.0f} %)",
                    ms(result["cpu"] / max(len(tally.times), 1)),  # type: ignore[operator]
                    result["threads"],
                    size(peak * 1024),
                    size(now * 1024),
                    len(tally.errors),
                    f"{tally.leaks}/{tally.checked}",
                ]
            )
            failures += tally.errors[:5]
            print(f"<!-- done: {rows[-1]} -->", file=sys.stderr, flush=True)  # progress on long runs
    print_table(
        [
            "students",
            "pattern",
            "sentences typed",
            "open page p50 (ms)",
            "open p95",
            "Enter → finished p50 (ms)",
            "p95",
            "max",
            "server CPU while typing (% of one core)",
            "CPU per sentence (ms)",
            "server threads (max)",
            "server peak RSS",
            "RSS after",
            "errors",
            "leaks / replies checked",
        ],
        rows,
    )
    for title, counts in profiles.items():
        total = sum(counts.values()) or 1
        print(f"Server CPU samples by stage while typing ({title}; py-spy, {total} samples):\n")
        print_table(["stage", "share"], [[stage, f"{100 * k / total:.0f} %"] for stage, k in counts.most_common()])
    if failures:
        print("First errors:\n" + "\n".join(f"- {f}" for f in failures) + "\n")


if __name__ == "__main__":
    main()
