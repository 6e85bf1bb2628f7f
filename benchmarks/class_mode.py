"""Class mode under a class's load: N students answering within a few seconds, the teacher watching.

Run:  python -m benchmarks.class_mode [--students 60] [--window 5] [--processes 2] [--quick]

What the pages do, at the store layer (`runs.classroom_store`, the SQLite file every server process
shares), with the pages' own poll interval (`POLL_S`): each student joins, polls the class's state once
a second (the student page's `st.fragment(run_every=POLL_S)`), and answers once at a random moment within
`--window` seconds; a fifth change their answer a moment later (allowed until Reveal). The students are
threads spread over `--processes` worker processes, each with its own store object (as several `streamlit
run` processes on one school server would be). The teacher polls the tally once a second (the teacher
bar's fragment) from the main process.

Measured: answers written vs counted (after the run, and whether every one of the teacher's polls was
consistent: it counted every answer committed before the poll began, and none that had not started
before it ended), the time of one write (an answer), one student poll and one teacher poll, and
"answer → teacher": from a student's click (the answer call starting) to the end of the first teacher
poll that began after the answer was committed, i.e. when the teacher's distribution includes it. The
Streamlit side of a poll (the fragment rerun the browser asks for: a short script run that sends no
element unless something changed) is not in these numbers: they are the store's share, which is what
grows with the class and what several server processes contend for.
Target (issue 25): 60 students within 5 s, every answer counted, answer → teacher ≤ 2 s at p95.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context

from benchmarks.common import arguments, header, ms, print_table, quantile
from runs.classroom_store import POLL_S, ClassStore

CHANGE_SHARE = 0.2  # students who change their answer before Reveal
CHOICES = ("r0", "r1", "r2", "r3", "r4")
SETTLE_S = 2.5  # the teacher keeps polling this long after the window, so the last answers are seen


@dataclass(frozen=True)
class Write:
    """One answer call: who, what, when it started and when it returned (committed)."""

    student: str
    answer: str
    start: float
    end: float


@dataclass(frozen=True)
class Poll:
    start: float
    end: float
    counts: dict[str, int]


def _student(
    store: ClassStore, code: str, question: str, name: str, plan: list[tuple[float, str]], until: float, out: dict
) -> None:
    """Poll the state every POLL_S, and send the planned answers at their times (epoch seconds)."""
    next_poll = time.time()
    while time.time() < until:
        now = time.time()
        if plan and now >= plan[0][0]:
            _, answer = plan.pop(0)
            start = time.time()
            store.answer(code, name, question, answer)
            out["writes"].append(Write(name, answer, start, time.time()))
            continue
        if now >= next_poll:
            start = time.perf_counter()
            store.state(code)
            out["polls"].append(time.perf_counter() - start)
            next_poll += POLL_S
        wake = min([next_poll, *(t for t, _ in plan[:1])])
        time.sleep(max(0.0, min(wake - time.time(), 0.05)))


def run_students(folder: str, code: str, question: str, names: list[str], seed: int, window: float, ready, go):
    """One worker process: its students join, it says it is ready, and when the main process says when the
    window opens (`go`), its students run as threads, each with its own planned answers."""
    store = ClassStore(folder)
    for name in names:
        store.join(code, name)
    ready.put(len(names))
    t0 = go.get()
    until = t0 + window + SETTLE_S
    rng = random.Random(seed)
    out: dict[str, list] = {"writes": [], "polls": []}
    threads = []
    for name in names:
        when = t0 + rng.uniform(0, window)
        plan = [(when, rng.choice(CHOICES))]
        if rng.random() < CHANGE_SHARE:
            plan.append((min(when + rng.uniform(0.2, 1.5), t0 + window), rng.choice(CHOICES)))
        thread = threading.Thread(target=_student, args=(store, code, question, name, plan, until, out))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    return out["writes"], out["polls"]


def teacher_polls(store: ClassStore, code: str, secret: str, t0: float, until: float) -> list[Poll]:
    polls, next_poll = [], t0
    while next_poll < until:
        time.sleep(max(0.0, next_poll - time.time()))
        start = time.time()
        counts = store.tally(code, secret).counts
        polls.append(Poll(start, time.time(), counts))
        next_poll += POLL_S
    return polls


def final_counts(writes: list[Write]) -> dict[str, int]:
    last: dict[str, Write] = {}
    for w in sorted(writes, key=lambda w: w.end):
        last[w.student] = w
    counts: dict[str, int] = {}
    for w in last.values():
        counts[w.answer] = counts.get(w.answer, 0) + 1
    return counts


def consistent(poll: Poll, writes: list[Write]) -> bool:
    """The poll counted every student whose first answer was committed before it began, and no student who
    had not started answering before it ended (an answer in flight may be either side)."""
    first: dict[str, Write] = {}
    for w in sorted(writes, key=lambda w: w.start):
        first.setdefault(w.student, w)
    surely = sum(w.end <= poll.start for w in first.values())
    maybe = sum(w.start <= poll.end for w in first.values())
    return surely <= sum(poll.counts.values()) <= maybe


def to_teacher(writes: list[Write], polls: list[Poll]) -> list[float]:
    """Seconds from each answer's click to the end of the first teacher poll that began after it was committed."""
    delays = []
    for w in writes:
        seen = next((p for p in polls if p.start >= w.end), None)
        delays.append(float("inf") if seen is None else seen.end - w.start)
    return delays


def measure(students: int, window: float, processes: int, seed: int = 0) -> list[object]:
    with tempfile.TemporaryDirectory() as folder:
        store = ClassStore(folder)
        code, secret = store.create(3, "translate-en-zh", "i read a book in the library today")
        question = store.state(code).question
        names = [f"student-{i:03d}" for i in range(students)]
        shares = [names[i::processes] for i in range(processes)]
        context = get_context("spawn")
        with context.Manager() as manager, ProcessPoolExecutor(processes, mp_context=context) as pool:
            ready, go = manager.Queue(), manager.Queue()
            futures = [
                pool.submit(run_students, folder, code, question, share, seed + i, window, ready, go)
                for i, share in enumerate(shares)
            ]
            for _ in shares:  # every process started and its students joined before the window opens
                ready.get(timeout=300)
            t0 = time.time() + 0.5
            for _ in shares:
                go.put(t0)
            polls = teacher_polls(store, code, secret, t0, t0 + window + SETTLE_S + POLL_S)
            results = [f.result() for f in futures]
        writes = [w for ws, _ in results for w in ws]
        student_polls = [p for _, ps in results for p in ps]
        expected, counted = final_counts(writes), store.tally(code, secret).counts
        lost = sum(expected.values()) - sum(min(n, counted.get(a, 0)) for a, n in expected.items())
        delays = to_teacher(writes, polls)
        write_s = [w.end - w.start for w in writes]
        teacher_s = [p.end - p.start for p in polls]
        return [
            students,
            processes,
            f"{window:g} s",
            f"{len(writes)} ({len(writes) - students} changed)",
            f"{sum(counted.values())}/{students}" + (" ✓" if counted == expected else " ✗"),
            lost,
            f"{ms(statistics.median(write_s))} / {ms(quantile(write_s, 0.95))} / {ms(max(write_s))}",
            f"{ms(statistics.median(student_polls))} / {ms(quantile(student_polls, 0.95))}",
            f"{ms(statistics.median(teacher_s))} / {ms(quantile(teacher_s, 0.95))}",
            f"{statistics.median(delays):.2f} / {quantile(delays, 0.95):.2f} / {max(delays):.2f}",
            f"{sum(consistent(p, writes) for p in polls)}/{len(polls)}",
        ]


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--students", type=int, nargs="*", default=[60], help="class sizes")
    parser.add_argument("--window", type=float, default=5.0, help="seconds within which every student answers")
    parser.add_argument("--processes", type=int, nargs="*", default=[1, 2], help="server processes the students are spread over")
    args = parser.parse_args()
    if args.quick:
        args.students, args.window, args.processes = [10], 1.0, [2]
    header("Class mode: students answering, the teacher's tally (store layer)")
    print(f"Poll interval {POLL_S:g} s (students: state; teacher: tally); times in ms unless marked s.\n")
    rows = [measure(n, args.window, p) for n in args.students for p in args.processes]
    print_table(
        [
            "students",
            "processes",
            "window",
            "answers sent",
            "counted",
            "lost",
            "write p50 / p95 / max ms",
            "student poll p50 / p95 ms",
            "teacher poll p50 / p95 ms",
            "answer → teacher p50 / p95 / max s",
            "consistent polls",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
