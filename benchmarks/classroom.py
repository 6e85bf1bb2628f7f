"""Classroom load: N students on one server, each typing a different sentence into the heads page.

Run:  python -m benchmarks.classroom [--students 10 30] [--rounds 2] [--spread 10] [--quick]
      python -m benchmarks.classroom --processes 1 2 [--students 100]   # a school: nginx in front (serve.school)

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

`--processes N ...` measures a school server instead (`python -m serve.school`): N app processes
behind Debian's nginx with sticky sessions, the students connecting to nginx as browsers do (each
first loads the page, keeps the affinity cookie nginx sets, and opens its websocket with it); 100
students by default. CPU, threads and memory are then summed over the N processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import torch
import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks import profile_split
from benchmarks.browser import rss_peak_kib, streamlit_server
from benchmarks.common import arguments, header, ms, print_table, quantile, size
from serve.nginx import AFFINITY_COOKIE
from serve.school import first_visit, school_server

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
    query: str = QUERY  # the page's URL query: the model the sentence was computed on


@dataclass
class Tally:
    times: list[float] = field(default_factory=list)
    first_load: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    leaks: int = 0
    checked: int = 0


def expectations(n: int, seed: int, model: str | None = None) -> list[Expected]:
    """`n` different held-out sentences of `model`'s task (default: the default model), with what the page shows
    for each: its token line (word pieces without their word-start mark), its output and its charts' axes."""
    from transformer.engine.decoding import trace_text
    from transformer.storage.registry import DEFAULT_MODEL, load_model
    from transformer.tasks import get_task
    from viz.tokens import decoder_query_axis, escape_token, visible_token

    torch.set_num_threads(1)  # the clients' process stays light: the server's cores are what is measured
    name = model or DEFAULT_MODEL
    bundle = load_model(name)
    sentences: list[str] = []
    for example in get_task(str(bundle.card["task"])).examples(4 * n + 10, "heldout", seed):
        if example.source not in sentences:
            sentences.append(example.source)
    out = []
    for sentence in sentences[:n]:
        trace = trace_text(bundle, sentence, names=())
        src, tgt = tuple(trace.src_tokens), tuple(trace.tgt_tokens)
        rows = decoder_query_axis(tgt, trace.next_tokens)  # decoder rows are named by what they write
        escaped = frozenset(
            [
                *(tuple(escape_token(token) for token in tokens) for tokens in (src, tgt)),
                tuple(rows.short_labels()),
                tuple(rows.long_labels()),
            ]
        )
        shown = SEP.join(visible_token(token) for token in src)
        out.append(Expected(sentence, shown, trace.output_text or "∅", escaped, f"{QUERY}&model={name}"))
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

    def __init__(self, port: int, proxied: bool = False) -> None:
        self.port = port
        self.proxied = proxied  # behind nginx: load the page first, as a browser does, for the affinity cookie
        self.query = QUERY  # the page's URL query string, sent with every rerun as the browser does
        self.ws = None
        self.page_hash = ""
        self.text_id = ""
        self.backend = ""  # the app process nginx chose (proxied only)

    async def connect(self) -> None:
        headers = {}
        if self.proxied:
            cookie, self.backend = await asyncio.to_thread(first_visit, f"http://127.0.0.1:{self.port}")
            headers["Cookie"] = f"{AFFINITY_COOKIE}={cookie}"
        self.ws = await websockets.connect(
            f"ws://127.0.0.1:{self.port}/_stcore/stream",
            subprotocols=["streamlit"],
            origin=f"http://127.0.0.1:{self.port}",
            additional_headers=headers,
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


def with_children(pids: list[int]) -> list[int]:
    """The server's processes and every process they started (the model-run worker, `runs.run_worker`, and the
    resource tracker that spawning it starts): their CPU and memory are the server's too."""
    found, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children", encoding="utf-8") as children:
                    todo += [int(child) for child in children.read().split()]
        except FileNotFoundError:  # it exited meanwhile
            continue
    return found


def _cpu_by_process(pids: list[int]) -> dict[int, float]:
    """User + system CPU seconds of each of the server's processes (and their children)."""
    out = {}
    for pid in with_children(pids):
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime, in clock ticks
    return out


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of the server's processes (and their children), summed."""
    return sum(_cpu_by_process(pids).values())


def _cpu_since(before: dict[int, float], pids: list[int]) -> float:
    """CPU seconds the server's processes spent since `before` (a process started since counts whole)."""
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in _cpu_by_process(pids).items())


def _threads(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status", encoding="utf-8") as status:
            total += next(int(line.split()[1]) for line in status if line.startswith("Threads:"))
    return total


async def classroom(
    port: int,
    pids: list[int],
    n: int,
    rounds: int,
    spread_s: float,
    sentences: list[Expected],
    seed: int,
    profile: Path | None = None,
    proxied: bool = False,
) -> dict[str, object]:
    """N students open the page together, then `rounds` times each types its own next sentence."""
    rng = random.Random(seed)
    by_src = {e.src: e for e in sentences}
    tally = Tally()
    students = [Student(port, proxied) for _ in range(n)]
    for student in students:  # the page opens on the model the sentences were computed on
        student.query = sentences[0].query
    await asyncio.gather(*(s.connect() for s in students))
    cpu0 = _cpu_by_process(pids)

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
    wall0, cpu1 = time.perf_counter(), _cpu_by_process(pids)
    threads = 0
    sampler = profile_split.record(pids[0], 3600, profile) if profile else None  # the typing only, not start-up

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
            threads = max(threads, _threads(pids))
            await asyncio.wait([task], timeout=0.2)
        await task
    wall, cpu = time.perf_counter() - wall0, _cpu_since(cpu1, pids)
    if sampler is not None:
        sampler.send_signal(signal.SIGINT)  # py-spy writes what it has and exits
        sampler.wait(60)
    await asyncio.gather(*(s.close() for s in students))
    spread = Counter(s.backend for s in students if s.backend)  # students per app process, behind nginx
    open_cpu = sum(seconds - cpu0.get(pid, 0.0) for pid, seconds in cpu1.items())
    return {"tally": tally, "wall": wall, "cpu": cpu, "open_cpu": open_cpu, "threads": threads, "spread": spread}


@contextlib.contextmanager
def server_under_test(processes: int | None) -> Iterator[tuple[int, list[int], str]]:
    """(port students connect to, app process ids, label): one `streamlit run`, or `processes` of them behind nginx."""
    if processes is None:
        with streamlit_server() as server:
            yield int(server.url.rsplit(":", 1)[1]), [server.process.pid], "1"
    else:
        with school_server(processes) as school:
            yield int(school.url.rsplit(":", 1)[1]), school.app_pids, f"{processes} behind nginx"


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument(
        "--students", type=int, nargs="*", default=None, help="class sizes to simulate (default 10 30; 100 with --processes)"
    )
    parser.add_argument("--rounds", type=int, default=2, help="sentences each student types, per pattern")
    parser.add_argument("--spread", type=float, default=10.0, help="seconds over which 'spread' students press Enter")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default=None, help="the shipped model the students use (default: the app's default)")
    parser.add_argument("--patterns", nargs="*", default=["burst", "spread"], choices=["burst", "spread"])
    parser.add_argument(
        "--processes", type=int, nargs="*", default=None, help="app processes behind nginx (serve.school), e.g. 1 2"
    )
    parser.add_argument(
        "--profile", action="store_true", help="sample the server with py-spy while students type and split its time by stage"
    )
    args = parser.parse_args()
    if args.students is None:
        args.students = [100] if args.processes else [10, 30]
    if args.quick:
        args.students, args.rounds, patterns = [3], 1, {"burst": 0.0}
    else:
        patterns = {p: (0.0 if p == "burst" else args.spread) for p in args.patterns}
    if args.profile and not profile_split.available():
        parser.error("--profile needs py-spy (pip install py-spy)")
    if args.processes is not None and (not args.processes or min(args.processes) < 1):
        parser.error("--processes needs one or more counts, each at least 1")
    n_sentences = max(args.students) * args.rounds * len(patterns)
    sentences = expectations(n_sentences, args.seed, args.model)
    model = args.model or "the default model"
    header(f"Classroom: simulated students typing into the heads page ({model}, Streamlit's websocket protocol)")
    options = " ".join(f"{k}={v}" for k, v in sorted(os.environ.items()) if k.startswith("STREAMLIT_"))
    if args.processes:
        server = (
            "`python -m serve.school`: N `streamlit run app.py` behind nginx, OMP_NUM_THREADS=1, ATLAS_MODEL_RUNS = cores / N"
        )
    else:
        server = f"`streamlit run app.py`, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '2 (app.py default)')}"
    print(f"Server: {server}{', ' + options if options else ''}; the torch threads above are the clients' process.\n")
    rows, failures = [], []
    profiles: dict[str, Counter] = {}
    spreads: list[str] = []
    for processes in args.processes or [None]:
        for n in args.students:
            for p, (pattern, spread) in enumerate(patterns.items()):
                with server_under_test(processes) as (port, pids, label):  # fresh servers per row: no warm cache
                    offset = p * n * args.rounds
                    raw = Path(tempfile.gettempdir()) / f"classroom-{n}-{pattern}.pyspy" if args.profile else None
                    result = asyncio.run(
                        classroom(
                            port,
                            pids,
                            n,
                            args.rounds,
                            spread,
                            sentences[offset : offset + n * args.rounds] or sentences,
                            args.seed + n,
                            raw,
                            proxied=processes is not None,
                        )
                    )
                    memory = [rss_peak_kib(pid) for pid in with_children(pids)]
                    peak, now = sum(m[0] for m in memory), sum(m[1] for m in memory)
                if raw is not None and raw.is_file():
                    profiles[f"{n} students, {pattern}"] = profile_split.split(raw)
                if processes is not None:
                    spreads.append(f"{n} students, {label}, {pattern}: {sorted(result['spread'].values())} per process")  # type: ignore[union-attr]
                rows.append(_row(n, label, pattern, spread, result, peak, now))
                failures += result["tally"].errors[:5]  # type: ignore[union-attr]
                print(f"<!-- done: {rows[-1]} -->", file=sys.stderr, flush=True)  # progress on long runs
    print_table(
        [
            "students",
            "app processes",
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
    if spreads:
        print("Students per app process (nginx's sticky hash): " + "; ".join(spreads) + "\n")
    for title, counts in profiles.items():
        total = sum(counts.values()) or 1
        print(f"Server CPU samples by stage while typing ({title}; py-spy, {total} samples):\n")
        print_table(["stage", "share"], [[stage, f"{100 * k / total:.0f} %"] for stage, k in counts.most_common()])
    if failures:
        print("First errors:\n" + "\n".join(f"- {f}" for f in failures) + "\n")


def _row(n: int, label: str, pattern: str, spread: float, result: dict[str, object], peak: int, now: int) -> list[object]:
    """One table row: latencies, the servers' CPU and memory, errors and leaks."""
    tally: Tally = result["tally"]  # type: ignore[assignment]
    busy = result["cpu"] / max(result["wall"], 1e-9)  # type: ignore[operator]
    return [
        n,
        label,
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


if __name__ == "__main__":
    main()
