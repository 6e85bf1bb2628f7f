"""Memory over a long day: one `streamlit run app.py` whose pages are opened again and again for N minutes.

A school's server runs all day while students open and reload pages: each load is a new Streamlit session, and a
session's state lives on for `server.disconnectedSessionTTL` (120 s) after its tab is gone. This script keeps
`--clients` protocol-level clients (Streamlit's websocket protocol, no browsers: `benchmarks.classroom.Student`)
loading pages in turn: the lesson through a class's join link (`/?class=CODE`, so the class poll and the class
store run) and the heads page with a sentence of their own, each load a new session that is closed after its
first reply. Every `--every` seconds it prints the minute, the loads so far and the server's resident memory
(VmRSS of the server and its children, MB), and at the end the growth per minute after the warm-up (the first
third of the run), so "flat after warm-up" is a number.

    OMP_NUM_THREADS=1 python -m benchmarks.class_memory               # 30 minutes, 4 clients
    OMP_NUM_THREADS=1 python -m benchmarks.class_memory --minutes 3   # a short look
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time

from benchmarks.browser import rss_peak_kib, streamlit_server
from benchmarks.classroom import Student, with_children
from benchmarks.common import arguments, header
from runs.classroom_store import DIR_ENV, ClassStore

SENTENCES = ("the cat sat on the mat", "i read a book in the library today", "we like green tea", "the dog runs")


def rss_mb(pid: int) -> float:
    """Resident memory of the server and every process it started, in MB."""
    total = 0
    for child in with_children([pid]):
        try:
            total += rss_peak_kib(child)[1]
        except (FileNotFoundError, KeyError, StopIteration):
            continue
    return total / 1024


async def load_pages(port: int, code: str, until: float, client: int, loads: list[int]) -> None:
    """Open a page, wait for its first reply, close it; again until `until` (a reload, as a student does)."""
    i = 0
    while time.monotonic() < until:
        student = Student(port)
        if i % 2 == 0:  # the lesson through the class's join link: the class store and the student's poll run
            student.query = f"class={code}"
            student.page_hash = ""
        try:
            await student.connect()
            if i % 2 == 0:
                await _open_lesson(student)
            else:
                _, opened = await student.rerun()
                student.learn_page(opened)
                await student.rerun(SENTENCES[(client + i) % len(SENTENCES)])
            loads[0] += 1
        except (OSError, TimeoutError, RuntimeError) as error:
            print(f"client {client}: {type(error).__name__}: {error}", flush=True)
            await asyncio.sleep(1)
        finally:
            await student.close()
        i += 1


async def _open_lesson(student: Student) -> None:
    """The lesson (the app's home page, named by an empty page name) with the student's query string."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    back = BackMsg()
    back.rerun_script.query_string = student.query
    back.rerun_script.page_name = ""
    assert student.ws is not None
    await student.ws.send(back.SerializeToString())
    while True:
        message = ForwardMsg()
        message.ParseFromString(await asyncio.wait_for(student.ws.recv(), 180))
        if message.WhichOneof("type") == "script_finished":
            return


Sample = tuple[float, int, float, float]  # minute, page loads so far, server RSS MB, load average


async def run(port: int, pid: int, code: str, minutes: float, clients: int, every_s: float) -> list[Sample]:
    """(minute, loads so far, server RSS MB, load average) every `every_s` seconds while `clients` load pages."""
    await load_pages(port, code, time.monotonic() + 1.0, 0, [0])  # the first page loads the models: before the clock
    began = time.monotonic()
    until = began + minutes * 60
    loads = [0]
    samples = [(0.0, 0, rss_mb(pid), os.getloadavg()[0])]
    tasks = [asyncio.create_task(load_pages(port, code, until, c, loads)) for c in range(clients)]
    while time.monotonic() < until:
        await asyncio.sleep(min(every_s, max(0.1, until - time.monotonic())))
        samples.append(((time.monotonic() - began) / 60, loads[0], rss_mb(pid), os.getloadavg()[0]))
    await asyncio.gather(*tasks, return_exceptions=True)
    return samples


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--minutes", type=float, default=30.0, help="how long pages are loaded (default 30)")
    parser.add_argument("--clients", type=int, default=4, help="clients loading pages at once (default 4)")
    parser.add_argument("--every", type=float, default=30.0, help="seconds between memory samples (default 30)")
    args = parser.parse_args()
    if args.quick:
        args.minutes, args.clients, args.every = 0.25, 2, 5.0
    header("Memory over a long day: pages loaded again and again, each a new session")
    with tempfile.TemporaryDirectory(prefix="atlas-class-memory-") as folder:
        code, _ = ClassStore(folder).create(1, "translate-en-zh", "i read a book in the library today")
        env = {DIR_ENV: folder, "ATLAS_CLASS_JOIN_BURST": "100000"}  # one client address: no join limit here
        with streamlit_server(**env) as server:
            port = int(server.url.rsplit(":", 1)[1])
            samples = asyncio.run(run(port, server.process.pid, code, args.minutes, args.clients, args.every))
    print("| minute | page loads | server RSS MB | load average |\n| --- | --- | --- | --- |")
    for minute, loads, rss, load in samples:
        print(f"| {minute:.1f} | {loads} | {rss:.0f} | {load:.1f} |")
    warm = [s for s in samples if s[0] >= args.minutes / 3]
    if len(warm) >= 2 and warm[-1][0] > warm[0][0]:
        slope = (warm[-1][2] - warm[0][2]) / (warm[-1][0] - warm[0][0])
        print(
            f"\nAfter warm-up (minute {warm[0][0]:.1f} on): {warm[0][2]:.0f} → {warm[-1][2]:.0f} MB, "
            f"{slope:+.1f} MB/min over {warm[-1][1] - warm[0][1]} loads."
        )


if __name__ == "__main__":
    main()
