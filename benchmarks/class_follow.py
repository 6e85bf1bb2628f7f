"""Class mode through a real server: N students' lesson pages polling, then following the teacher's moves.

Run:  python -m benchmarks.class_follow [--students 60] [--moves 2] [--idle 10] [--quick]

`benchmarks/class_mode.py` measures the class store; this measures what the pages add. A real
`streamlit run app.py` on 127.0.0.1 (classes in a temporary `ATLAS_CLASS_DIR`) and N protocol-level
clients (`benchmarks.classroom.Student`: Streamlit's own websocket protocol, no browsers) that open
`/?class=CODE` and then do what a browser does with the page's `st.fragment(run_every=…)`: the server
names the fragment in an `auto_rerun` message, and the client asks for a rerun of that fragment every
interval, never while a run is going. The teacher is this script moving the class in the store, as the
teacher's page does (`ClassStore.move`).

Measured: for `--idle` seconds of polling with no move, the server's CPU (user + system, /proc) per second
and per poll, and the time of one poll (send → the fragment's `script_finished`); then `--moves` times, from
the move to each student's page receiving the new step's title (the poll sees the new version and reruns
the whole page: the student's lesson is drawn on the teacher's step), and the server's CPU per page. The CPU
numbers hold on a busy machine too; the wall times grow with whatever else runs. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks.browser import streamlit_server
from benchmarks.classroom import Student, cpu_seconds
from benchmarks.common import arguments, header, ms, print_table, quantile
from runs.classroom_store import CLASS_PARAM, DIR_ENV, ClassStore
from transformer.storage.registry import DEFAULT_MODEL

TEXT = "i read a book in the library today"
FOLLOW_TIMEOUT_S = 180  # a student not on the new step by then counts as not following
FINISHED = ForwardMsg.ScriptFinishedStatus
RUN_DONE = (FINISHED.FINISHED_SUCCESSFULLY, FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY, FINISHED.FINISHED_WITH_COMPILE_ERROR)


class Follower(Student):
    """A student's page: opens the lesson by the join link, then polls as the page's fragment asks."""

    def __init__(self, port: int, code: str) -> None:
        super().__init__(port)
        self.query = f"{CLASS_PARAM}={code}"
        self.fragment, self.interval = "", 1.0
        self.running = False
        self.sent = 0.0
        self.polls: list[float] = []  # seconds from a poll's request to its fragment run finishing
        self.steps: dict[int, float] = {}  # step number → when its title arrived (perf_counter)

    async def send(self, fragment: str = "") -> None:
        back = BackMsg()
        state = back.rerun_script
        state.query_string = self.query
        if self.page_hash:
            state.page_script_hash = self.page_hash
        if fragment:
            state.fragment_id, state.is_auto_rerun = fragment, True
        self.running, self.sent = True, time.perf_counter()
        assert self.ws is not None
        await self.ws.send(back.SerializeToString())

    async def read(self) -> None:
        """Take in every message: the page's hash, the fragment, step titles, and when each run ends."""
        assert self.ws is not None
        async for raw in self.ws:
            message = ForwardMsg()
            message.ParseFromString(raw)
            kind = message.WhichOneof("type")
            if kind == "navigation":
                self.page_hash = message.navigation.page_script_hash
            elif kind == "auto_rerun":
                self.fragment, self.interval = message.auto_rerun.fragment_id, message.auto_rerun.interval
            elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                element = message.delta.new_element
                if element.WhichOneof("type") == "heading" and "/" in element.heading.body:
                    number = element.heading.body.split("/", 1)[0].strip()
                    if number.isdecimal():
                        self.steps.setdefault(int(number), time.perf_counter())
            elif kind == "script_finished" and message.script_finished in RUN_DONE:
                if message.script_finished == FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                    self.polls.append(time.perf_counter() - self.sent)
                self.running = False

    async def poll(self, stop: asyncio.Event) -> None:
        """Ask for the fragment's rerun every interval, as the browser's timer does (not during a run)."""
        while not stop.is_set():
            await asyncio.sleep(self.interval)
            if self.fragment and not self.running:
                await self.send(self.fragment)


async def wait_for(condition, timeout_s: float) -> bool:
    deadline = time.perf_counter() + timeout_s
    while not condition():
        if time.perf_counter() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def follow(port: int, pid: int, store: ClassStore, n: int, idle_s: float, moves: int) -> list[list[object]]:
    code, secret = store.create(1, DEFAULT_MODEL, TEXT)
    students = [Follower(port, code) for _ in range(n)]
    await asyncio.gather(*(s.connect() for s in students))
    readers = [asyncio.create_task(s.read()) for s in students]
    for s in students:
        await s.send()
    opened = await wait_for(lambda: all(s.fragment and not s.running and 1 in s.steps for s in students), FOLLOW_TIMEOUT_S)
    stop = asyncio.Event()
    pollers = [asyncio.create_task(s.poll(stop)) for s in students]
    cpu0, wall0 = cpu_seconds([pid]), time.perf_counter()
    await asyncio.sleep(idle_s)
    idle_cpu, idle_wall = cpu_seconds([pid]) - cpu0, time.perf_counter() - wall0
    idle_polls = [p for s in students for p in s.polls]
    pages = f"{sum(1 for s in students if s.fragment)}/{n} opened" + ("" if opened else " (timeout)")
    polls = f"{ms(statistics.median(idle_polls))} / {ms(quantile(idle_polls, 0.95))}"
    per_poll = f"{ms(idle_cpu / max(len(idle_polls), 1))} a poll"
    rows: list[list[object]] = [[n, "polling, no move", pages, polls, "–", f"{idle_cpu / idle_wall:.2f}", per_poll]]
    for step in range(2, 2 + moves):
        cpu0, moved = cpu_seconds([pid]), time.perf_counter()
        store.move(code, secret, step, DEFAULT_MODEL, TEXT)
        await wait_for(lambda step=step: all(step in s.steps for s in students), FOLLOW_TIMEOUT_S)
        took, cpu = time.perf_counter() - moved, cpu_seconds([pid]) - cpu0
        delays = [s.steps[step] - moved for s in students if step in s.steps]
        followed = f"{len(delays)}/{n} on step {step}"
        times = f"{statistics.median(delays):.2f} / {quantile(delays, 0.95):.2f} / {max(delays):.2f} s" if delays else "–"
        rows.append([n, f"teacher → step {step}", followed, "–", times, f"{cpu / took:.2f}", f"{ms(cpu / n)} a page"])
        await asyncio.sleep(2 * students[0].interval)  # the class settles before the next move
    stop.set()
    for task in (*pollers, *readers):
        task.cancel()
    await asyncio.gather(*pollers, *readers, return_exceptions=True)
    await asyncio.gather(*(s.close() for s in students))
    return rows


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--students", type=int, nargs="*", default=[60], help="class sizes")
    parser.add_argument("--moves", type=int, default=2, help="how many times the teacher moves on")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of polling with no move")
    args = parser.parse_args()
    if args.quick:
        args.students, args.moves, args.idle = [3], 1, 3.0
    header("Class mode through a server: students polling and following the teacher")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        os.environ[DIR_ENV] = folder  # the server started below keeps its classes here
        # every simulated student connects from 127.0.0.1, one client address: the join rate limit is not measured here
        os.environ.setdefault("ATLAS_CLASS_JOIN_BURST", "100000")
        store = ClassStore(folder)
        for n in args.students:
            with streamlit_server() as server:
                port = int(server.url.rsplit(":", 1)[1])
                rows += asyncio.run(follow(port, server.process.pid, store, n, args.idle, args.moves))
    columns = ["students", "phase", "pages", "poll p50 / p95 ms", "move → new step p50 / p95 / max", "server CPU (cores)"]
    columns.append("CPU ms")
    print_table(columns, rows)


if __name__ == "__main__":
    main()
