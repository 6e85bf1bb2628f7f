"""Run cache memory: the plateau of a long lesson, with runs cached by count (today) or by bytes.

Run:  python -m benchmarks.run_cache [--quick]

Each workload feeds successive *different* inputs to one process, exactly as the heads page runs
them (`trace_text` with every attention pattern captured, kept as a read-only `TraceData`), and
caches every run in one of two caches:
- "count (48)": least-recently-used, at most 48 entries, whatever their size: what
  `st.cache_resource(max_entries=48)` in ui/caches.py does today;
- "bytes (1 GiB)": `runs.byte_cache.ByteCache` at its default budget.
Workloads: 200 inputs over the shipped models (task sentences; characters for `reverse`), and 60
texts of 16–511 characters (lengths drawn at random, seeded) on a random small (2×4, d=64) and a
random base (6×8, d=512) model. Each workload × cache runs in a fresh process, so one's memory
never shows in another's; the table gives the process's resident memory (VmRSS) after the first
input, its peak (VmHWM), at the end, and what the cache held at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import BASE, CONFIGS, SMALL, arguments, header, print_table, random_text, size

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = {"shipped": 200, "random small": 60, "random base": 60}
CACHES = ("count (48)", "bytes (1 GiB)")


class CountCache:
    """LRU bounded by entries, like `st.cache_resource(max_entries=48)`."""

    def __init__(self, max_entries: int = 48) -> None:
        self.max_entries = max_entries
        self.entries: OrderedDict = OrderedDict()

    def get_or_compute(self, key, compute: Callable[[], object]):
        if key in self.entries:
            self.entries.move_to_end(key)
            return self.entries[key]
        value = self.entries[key] = compute()
        while len(self.entries) > self.max_entries:
            self.entries.popitem(last=False)
        return value

    def held(self) -> int:
        return sum(value.nbytes for value in self.entries.values())


def _inputs(workload: str, n: int, seed: int = 0) -> list[tuple[str, str]]:
    """(model, text) pairs, all different."""
    from transformer.storage.registry import list_models, load_model
    from transformer.tasks import get_task

    if workload != "shipped":
        rng = random.Random(seed)
        return [(workload, random_text(rng.randint(16, 511), seed=i)) for i in range(n)]
    names = [info.name for info in list_models()]
    pools = {}
    for name in names:
        task = get_task(load_model(name).card["task"])
        pools[name] = list(dict.fromkeys(e.source for e in task.examples(3 * n, "heldout", seed)))
    return [(names[i % len(names)], pools[names[i % len(names)]][i // len(names)]) for i in range(n)]


def _status() -> dict[str, int]:
    with open("/proc/self/status", encoding="utf-8") as status:
        return {k: int(v.split()[0]) * 1024 for k, _, v in (line.partition(":") for line in status) if k in ("VmRSS", "VmHWM")}


def one(workload: str, cache_name: str, n: int, trim: int | None = None) -> dict[str, object]:
    """Run one workload through one cache in this process; its memory figures. `trim`: another glibc
    trim threshold than the app's (how much freed heap may stay resident)."""
    import ui.caches  # the app's process-wide malloc settings (keep_freed_memory), as the server has them

    if trim is not None:
        ui.caches.keep_freed_memory(trim_threshold=trim)
    from runs.byte_cache import ByteCache
    from transformer.engine.decoding import trace_text
    from transformer.storage.registry import load_model, random_bundle
    from viz.trace import TraceData

    bundles = {}

    def bundle(model: str):
        if model not in bundles:
            config = {"random small": CONFIGS.get(SMALL), "random base": CONFIGS.get(BASE)}.get(model)
            bundles[model] = random_bundle(config, seed=0) if config else load_model(model)
        return bundles[model]

    cache = CountCache() if cache_name.startswith("count") else ByteCache(1 << 30)
    inputs = _inputs(workload, n)
    first = half = 0
    for i, (model, text) in enumerate(inputs):
        b = bundle(model)
        names = tuple(h for h in b.model.hook_names if h.endswith("attn.hook_pattern"))  # what the heads page captures

        generate = not model.startswith("random")  # untrained models are teacher-forced, as in the app

        def run(b=b, text=text, names=names, generate=generate) -> TraceData:
            return TraceData.from_trace(trace_text(b, text, names=names, generate=generate))

        cache.get_or_compute((model, text, names), run)
        if i == 0:
            first = _status()["VmRSS"]
        if i == len(inputs) // 2:
            half = _status()["VmRSS"]
    held = cache.held() if isinstance(cache, CountCache) else cache.stats().bytes
    status = _status()
    return {
        "first": first,
        "half": half,
        "peak": status["VmHWM"],
        "end": status["VmRSS"],
        "held": held,
        "entries": len(cache.entries) if isinstance(cache, CountCache) else len(cache),
    }


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--one", nargs=3, metavar=("WORKLOAD", "CACHE", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--trim", type=int, default=None, help="with --one: glibc trim threshold in bytes (app: 1 GiB)")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], int(args.one[2]), args.trim)))
        return
    workloads = {"shipped": 6, "random small": 4} if args.quick else WORKLOADS
    header("Run cache: memory over a long lesson, cached by count vs by bytes")
    rows = []
    for workload, n in workloads.items():
        for cache_name in CACHES:
            result = subprocess.run(
                [sys.executable, "-m", "benchmarks.run_cache", "--one", workload, cache_name, str(n)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=1800,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
            if result.returncode != 0:
                raise RuntimeError(result.stderr[-2000:])
            r = json.loads(result.stdout.strip().splitlines()[-1])
            rows.append(
                [workload, n, cache_name, *(size(r[k]) for k in ("first", "half", "peak", "end")), r["entries"], size(r["held"])]
            )
    print_table(
        ["workload", "inputs", "cache", "RSS after 1st", "RSS half-way", "peak RSS", "RSS at end", "entries kept", "bytes kept"],
        rows,
    )


if __name__ == "__main__":
    main()
