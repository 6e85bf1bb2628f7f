"""Where the home page's first run goes on the server (issue 39 §9): imports, then the first script run, split.

Run:  python -m benchmarks.first_figure [--runs N] [--quick]

A class found 16.8–18.7 s from opening `/?projector=1` to the first figure on a busy laptop (load 7–9). This script
measures the server's part of that first run, each run in a fresh process (`AppTest` on app.py with `?projector=1`):
importing what app.py and the lesson page import (PyTorch included), then the first script run, and within it the
three pieces that a profile of that run (cProfile, benchmarks/README.md §5b) found largest: the shipped model's load,
the corpus reference table the first judged translation builds (`NaturalTranslation._references`), and the model
run (`run_text`). The load average is printed beside the table: on a busy machine every number grows with it. The
browser's part (front end, painting) is `benchmarks.cold_start`'s.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.common import arguments, header, interleaved_medians, load, ms, print_table

ROOT = Path(__file__).resolve().parents[1]
PIECES = ("imports", "first run", "model load", "corpus lookup", "corpus table", "model run", "total")

CHILD = """
import functools, json, time
began = time.perf_counter()
import ui.i18n, ui.pages.lesson.class_mode, ui.projector, ui.sidebar, ui.page, ui.caches, ui.pages.lesson.steps
imported = time.perf_counter()
spent = {"model load": 0.0, "corpus lookup": 0.0, "corpus table": 0.0, "model run": 0.0}

def timing(name, fn):
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - start
    return timed

import os, runs.model_ref, runs.text_run, ui.caches
import transformer.tasks.corpus as corpus
if os.environ.get("ATLAS_BENCH_OLD_LOOKUP"):  # before issue 39: one lookup built the whole table
    corpus.NaturalTranslation._entry = lambda self, source: self._references.get(corpus.normal(source))
runs.model_ref.load_model = timing("model load", runs.model_ref.load_model)
table = corpus.NaturalTranslation._references
timed_table = functools.cached_property(timing("corpus table", table.func))
timed_table.__set_name__(corpus.NaturalTranslation, "_references")
corpus.NaturalTranslation._references = timed_table
corpus.NaturalTranslation._entry = timing("corpus lookup", corpus.NaturalTranslation._entry)
ui.caches.run_text = timing("model run", ui.caches.run_text)
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=600)
at.query_params["projector"] = "1"
at.run()
done = time.perf_counter()
assert not at.exception, [e.value for e in at.exception]
print(json.dumps({"imports": imported - began, "first run": done - imported, **spent, "total": done - began}))
"""


def first_run(old: bool) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2")}
    if old:
        env["ATLAS_BENCH_OLD_LOOKUP"] = "1"
    result = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-2000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


def one_judged_sentence(repeats: int) -> None:
    """Interleaved in one process: judging one sentence the old way (build the whole reference table, then look it
    up) and the new (`NaturalTranslation._entry`: one scan, the table left unbuilt), each on a fresh task object
    that shares the corpus already read."""
    import dataclasses

    from transformer.tasks import get_task

    rows = []
    for name in ("en-zh", "zh-en"):
        task = get_task(name)
        pairs, sentence = task.pairs, task.examples(1, "heldout", seed=0)[0].source

        def fresh(task=task, pairs=pairs):
            copy = dataclasses.replace(task)
            copy.__dict__["pairs"] = pairs  # the file is read once, outside the timing
            return copy

        def old(sentence=sentence) -> None:
            copy = fresh()
            copy._references.get(sentence)

        def new(sentence=sentence) -> None:
            fresh().references(sentence)

        medians = interleaved_medians({"old": old, "new": new}, repeats)
        rows.append([name, len(pairs), ms(medians["old"]), ms(medians["new"]), f"{medians['old'] / medians['new']:.1f}×"])
    print(f"One judged sentence, old and new interleaved in one process (load average {load():.1f}):\n")
    print_table(["task", "corpus lines", "whole table + lookup ms", "one lookup ms", "speed-up"], rows)
    print()


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    header("The home page's first run on the server (`/?projector=1`, default model), split")
    one_judged_sentence(1 if args.quick else 7)
    before = load()
    runs: dict[str, list[dict[str, float]]] = {"before (whole table)": [], "after (one lookup)": []}
    for _ in range(1 if args.quick else args.runs):  # alternating, each in a fresh process
        for name in runs:
            runs[name].append(first_run(name.startswith("before")))
    print(f"Fresh processes, before and after alternating; load average {before:.1f} before, {load():.1f} after.\n")
    rows = []
    for piece in PIECES:
        medians = [ms(statistics.median(run[piece] for run in found)) for found in runs.values()]
        every = " / ".join(", ".join(ms(run[piece]) for run in found) for found in runs.values())
        rows.append([piece, *medians, every])
    print_table(["piece", *(f"{name} median ms" for name in runs), "all runs ms (before / after)"], rows)


if __name__ == "__main__":
    main()
