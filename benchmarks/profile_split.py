"""Where a server's CPU goes: py-spy's collapsed stacks sorted into the stages of a rerun.

Used by `benchmarks.classroom --profile`: py-spy (`pip install py-spy`, a sampling profiler that
reads another process's stacks; not a project dependency) samples the `streamlit run` server
while the students type, and each sample is counted once, under the first stage below whose
marker appears anywhere in its stack. So "model run" is everything under
`get_trace`, including its numpy copies; "charts to protobuf" is `st.plotly_chart` turning
figures into JSON; "figures" is viz/ building them.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

STAGES: list[tuple[str, tuple[str, ...]]] = [  # py-spy names frames "function (path/relative/to/sys.path:line)"
    ("start-up imports", ("_find_and_load",)),
    ("model run (get_trace)", ("get_trace (", "trace_text (")),
    ("charts to JSON/protobuf (st.plotly_chart)", ("plotly_chart.py",)),
    ("figures, statistics, rollout (viz/)", ("(viz/", "/viz/")),
    ("page code (views/, ui/, app.py)", ("(views/", "/views/", "(ui/", "/ui/", "(heads.py:", "(app.py:")),
    ("after each run: gc.collect(2) (runner.postScriptGC) and clean-up", ("_on_script_finished",)),
    ("file watcher (server.fileWatcherType)", ("path_watcher", "watchdog")),
    ("waking the event loop for each message", ("_call_soon_on_event_loop", "_write_to_self")),
    ("other Streamlit (runtime, protocol, widgets)", ("(streamlit/", "/streamlit/")),
]
OTHER = "other (interpreter, websockets, idle threads)"


def available() -> bool:
    return shutil.which("py-spy") is not None


def record(pid: int, seconds: float, out: Path, rate: int = 100) -> subprocess.Popen:
    """Start sampling `pid` for `seconds` (non-blocking, so the server's timing is left alone)."""
    return subprocess.Popen(
        [
            "py-spy",
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(max(1, round(seconds))),
            "--rate",
            str(rate),
            "--format",
            "raw",
            "--nonblocking",
            "--output",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def split(collapsed: Path) -> Counter:
    """Samples per stage, from py-spy's raw (collapsed) output: "frame;frame;... count" per line."""
    counts: Counter = Counter()
    for line in collapsed.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():
            continue
        frames = stack.split(";")
        stage = next((name for name, markers in STAGES if any(m in frame for frame in frames for m in markers)), OTHER)
        counts[stage] += int(n)
    return counts
