"""The training page's costs: filming overhead, a heads-page run while a job trains, and (with --full) the default
preset's time to 99 % held-out exact match on `reverse`.

Run:  python -m benchmarks.training_live [--quick] [--full]

1. Filming overhead: the same seeded run of the page's default `reverse` preset with and without the film
   recorder (a frame every 1/60 of the step budget, as the page films), interleaved; the ratio is the overhead.
2. Another session's run while a job trains: `runs.text_run.run_text` on a shipped translator (what a heads-page
   rerun computes) idle, then with a training job running on its worker thread; the ratio should stay under 2.
3. --full: the page's default preset, run as the page runs it (a job on a worker thread), until it stops at 99 %
   held-out exact match; minutes, so never by default.
"""

from __future__ import annotations

import statistics
import time

import torch

from benchmarks.common import arguments, header, print_table
from runs.model_ref import ModelRef, load_bundle, shipped_models
from runs.text_run import attention_names, run_text
from runs.training.options import default_options
from runs.training.registry import JobRegistry
from transformer.tasks import get_task
from transformer.training.film import FilmRecorder
from transformer.training.train import train

TEXT = "i read a book in the library today"


def filming_overhead(steps: int, repeats: int) -> list[list[object]]:
    options = default_options("reverse").replace(steps=steps, eval_every=0)
    settings, task = options.settings(), get_task("reverse")
    train(options.replace(steps=2).settings())  # warm-up: the first Adam imports torch._dynamo (seconds)
    times: dict[str, list[float]] = {"plain": [], "filmed": []}
    frames = 0
    for _ in range(repeats):
        for name in times:
            recorder = FilmRecorder(task, max(1, steps // 60), options.probe_text) if name == "filmed" else None
            start = time.perf_counter()
            train(settings, recorder)
            times[name].append(time.perf_counter() - start)
            frames = recorder.n_frames if recorder else frames
    plain, filmed = (statistics.median(times[n]) for n in ("plain", "filmed"))
    return [[steps, frames, f"{plain:.2f}", f"{filmed:.2f}", f"{filmed / plain:.3f}"]]


def run_while_training(repeats: int) -> list[list[object]]:
    name = next((m for m in ("translate-en-zh", "reverse") if m in shipped_models()), None)
    bundle = load_bundle(ModelRef(name)) if name else load_bundle(ModelRef.random())
    names = attention_names(bundle)

    def one() -> float:
        start = time.perf_counter()
        run_text(bundle, TEXT, names=names)
        return time.perf_counter() - start

    one()
    idle = statistics.median(one() for _ in range(repeats))
    jobs = JobRegistry(max_jobs=1)
    job = jobs.start(default_options("reverse").replace(steps=20_000), "benchmark")
    while job.view().step < 3:  # past the first step's imports
        time.sleep(0.1)
    busy = statistics.median(one() for _ in range(repeats))
    job.stop()
    job.wait()
    return [[name or "random", f"{1000 * idle:.0f}", f"{1000 * busy:.0f}", f"{busy / idle:.2f}"]]


def time_to_target() -> list[list[object]]:
    jobs = JobRegistry(max_jobs=1)
    job = jobs.start(default_options("reverse"), "benchmark")
    job.wait()
    result = job.result
    checks = result.checks if result else []
    return [
        [
            job.state,
            result.steps if result else "–",
            f"{result.training_seconds:.0f}" if result else "–",
            f"{checks[-1][1]:.3f}" if checks else "–",
        ]
    ]


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--full", action="store_true", help="also train the default preset to 99 %% (minutes)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    header("Training page: filming overhead, a run while a job trains")
    steps, repeats = (30, 1) if args.quick else (600, 3)
    print_table(["steps", "frames", "plain s", "filmed s", "filmed / plain"], filming_overhead(steps, repeats))
    print()
    print_table(["model", "idle ms", "while training ms", "ratio"], run_while_training(3 if args.quick else 15))
    if args.full:
        print()
        print_table(["state", "steps", "seconds", "held-out exact match"], time_to_target())


if __name__ == "__main__":
    main()
