"""A GPT-2-small-sized model (12 layers × 12 heads, d_model 768, 124 M parameters, random weights) on the heads
page at 1,024 tokens, against the default model's heads page at 128 tokens: seconds and server memory.

    python -m benchmarks.pretrained_scale            # both, each in a fresh process (peak memory is per process)
    python -m benchmarks.pretrained_scale --quick    # a 2-layer GPT-2 at 128 tokens instead (the smoke test)
    python -m benchmarks.pretrained_scale --browser  # the issue's measure: Enter → heads page painted in Chromium

`--browser` starts `streamlit run app.py` once per model (ATLAS_MODELS_DIR names the folder; `?model=` its name),
opens the heads page in Debian's Chromium, loads the model on a first short text (not timed), then types a new
text and times Enter → every chart painted (`benchmarks.browser_time.submit`): the default model on a text of
~128 tokens, the GPT-2-sized folder on one the page truncates to 1,024. The server's memory is its peak resident
set (VmHWM) after that, loading included: one server per model, so each peak is that model's session alone.
The GPT-2-sized folder is timed twice: as the app opens it (a 1,022-token run multiplies in bfloat16 on a CPU
with native bfloat16, `transformer.engine.precision`), and with the exact-arithmetic switch on (`?exact=1`: float32).

The heads page's server work is timed as the page does it on a new text: the model's run as the app runs it,
recording what the page records (`runs.text_run.attention_names`: the attention patterns only, not every hook;
a trained model decodes, a decoder-only prompt that fills the model writes at most its last token), then the page's
figures (`benchmarks.heads_rerun.heads_rerun`: grids, the enlarged head, per-head statistics, rollout, each
serialized as Streamlit sends it). Memory is the process's peak resident set (loading included: transformers reads
the checkpoint, the conversion copies it into the project's model, the reference is dropped). The checkpoint
folder is written once into a temporary folder by `transformer.hf.random_folder` (nothing is downloaded).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.browser import chromium_page, rss_peak_kib, streamlit_server, wait_painted
from benchmarks.browser_time import WS_LOG, submit
from benchmarks.common import random_text
from benchmarks.heads_rerun import heads_rerun
from runs.text_run import attention_names, run_text
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import DEFAULT_MODEL, load_model
from transformer.text.reading import reader as text_reader

GPT2_SMALL = {"n_layer": 12, "n_embd": 768, "n_head": 12, "n_positions": 1024, "vocab_size": 50257}
QUICK = {"n_layer": 2, "n_embd": 64, "n_head": 4, "n_positions": 128}


def measure(model: str, length: int) -> dict[str, float]:
    """Load `model` (a name or a folder), then one heads page on a new text of `length` tokens, run as the app runs
    it (`runs.text_run.run_text`: decoded, recording the attention patterns)."""
    start = time.perf_counter()
    bundle = load_model(model)
    loaded = time.perf_counter() - start
    ((text, _),) = texts_for(bundle, length - 1, seeds=(4,))
    # once on a short text first, not timed: a page's first view loads what every later one reuses (a translator's
    # gold-alignment dictionary: 0.45 s), as the browser measure's first, untimed page does
    heads_rerun(bundle, run_text(bundle, "the cat sat", names=attention_names(bundle)))
    start = time.perf_counter()
    trace = run_text(bundle, text, names=attention_names(bundle))
    ran = time.perf_counter() - start
    rerun = heads_rerun(bundle, trace)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # bytes (Linux reports KiB)
    return {
        "load_s": loaded,
        "run_s": ran,
        "figures_s": rerun.total_seconds,
        "page_s": ran + rerun.total_seconds,
        "peak_gb": peak / 1e9,
        "parameters": bundle.model.num_parameters(),
        "captured_mb": trace.nbytes / 1e6,
    }


def _child(model: str, length: int) -> dict[str, float]:
    cmd = [sys.executable, "-m", "benchmarks.pretrained_scale", "--measure", model, "--length", str(length)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def texts_of(model: str, n_tokens: int, seeds: tuple[int, ...]) -> list[tuple[str, int]]:
    """`texts_for` the model `model` names, loaded once, for its reader."""
    return texts_for(load_model(model), n_tokens, seeds)


def texts_for(bundle: ModelBundle, n_tokens: int, seeds: tuple[int, ...]) -> list[tuple[str, int]]:
    """One new text per seed of at most `n_tokens` tokens for `bundle`'s reader (whole words), each with T: its
    tokens + <eos>/<bos>."""
    reader = text_reader(bundle)
    texts = []
    for seed in seeds:
        text = ""
        for word in random_text(20 * n_tokens, seed).split():
            longer = f"{text} {word}".strip()
            if len(reader.tokenize(longer)) > n_tokens:
                break
            text = longer
        texts.append((text, min(len(reader.tokenize(text)), bundle.config.max_len - 1) + 1))
    return texts


TIMED_TEXTS = 5
"""New texts timed per model in the browser; the table gives each phase's median (one text's time moves by ±0.1 s
on a two-core machine, which moves a ratio to a 0.6 s page by half a unit)."""


def browser_measure(model: str, texts: Sequence[str], models_dir: str = "", **query: str) -> dict[str, float]:
    """Enter → heads page painted on `model` (its own server) for each of `texts[1:]`, each phase's median, and that
    server's peak memory.

    `texts[0]`, as long, opens the page first (not timed: the model loads): the page then has the charts it will
    have for the timed texts (a long input's page differs: a paged grid, notes instead of some charts). `query`: more
    URL parameters (`exact="1"`: the exact-arithmetic switch on)."""
    env = {"ATLAS_MODELS_DIR": models_dir} if models_dir else {}
    with streamlit_server(**env) as server, chromium_page() as page:
        frames: list = []
        page.add_init_script(WS_LOG)
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
        page.goto(server.page_url("heads", lang="en", model=Path(model).name, text="the cat sat", **query))
        wait_painted(page, 1)  # the model is loaded and the page drawn once: not timed
        submit(page, frames, texts[0])  # the page as the timed texts will have it: not timed
        timed = [submit(page, frames, text) for text in texts[1:]]
        peak_kib, _ = rss_peak_kib(server.process.pid)
    medians = {key: statistics.median(run[key] for run in timed) for key in timed[0]}
    return {**medians, "totals": [run["total"] for run in timed], "peak_gb": peak_kib * 1024 / 1e9}


def browser_main(sizes: dict[str, int], length: int) -> None:
    from transformer.hf.random_folder import gpt2_folder

    with tempfile.TemporaryDirectory() as tmp:
        folder = gpt2_folder(Path(tmp) / "gpt2-sized", **sizes)  # type: ignore[arg-type]
        seeds = range(TIMED_TEXTS + 1)
        toy_texts = texts_of(DEFAULT_MODEL, 127, seeds=tuple(1 + 10 * s for s in seeds))
        toy = browser_measure(DEFAULT_MODEL, [text for text, _ in toy_texts])
        big_texts = texts_of(str(folder), length - 1, seeds=tuple(3 + 10 * s for s in seeds))
        big = browser_measure(str(folder), [text for text, _ in big_texts], models_dir=tmp)
        exact = browser_measure(str(folder), [text for text, _ in big_texts[:3]], models_dir=tmp, exact="1")
        toy_t, big_t = max(t for _, t in toy_texts[1:]), max(t for _, t in big_texts[1:])
    print(f"## Enter → heads page painted (Chromium), one server per model, median of {TIMED_TEXTS} new texts\n")
    print("(the exact-arithmetic row: median of 2)\n")
    print("| model | T (at most) | total s | server s | paint s | received | server peak GB |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rows = (
        (f"{DEFAULT_MODEL} (shipped default)", toy_t, toy),
        ("GPT-2-sized random (converted)", big_t, big),
        ("the same, exact arithmetic (float32, `?exact=1`)", big_t, exact),
    )
    for name, t, r in rows:
        print(
            f"| {name} | {t:,} | {r['total']:.2f} | {r['server']:.2f} | {r['paint']:.2f} | {r['bytes'] / 1e6:.1f} MB "
            f"| {r['peak_gb']:.2f} |"
        )
    for name, r in (("default", toy), ("GPT-2-sized", big), ("exact", exact)):
        print(f"\n{name}: each text's total s: {', '.join(f'{t:.2f}' for t in r['totals'])}", end="")
    print()
    ratio, exact_ratio = big["total"] / toy["total"], exact["total"] / toy["total"]
    peak = big["peak_gb"]
    print(f"\nheads page painted: {ratio:.1f}× the default model's (target ≤ 3×; exact arithmetic {exact_ratio:.1f}×); ", end="")
    print(f"server peak {peak:.2f} GB (target < 2; exact arithmetic {exact['peak_gb']:.2f} GB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--browser", action="store_true", help="time the page in Chromium (Enter → painted)")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--length", type=int, default=1024, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.length)))
        return
    from transformer.hf.random_folder import gpt2_folder

    sizes, length = (QUICK, 128) if args.quick else (GPT2_SMALL, 1024)
    if args.browser:
        browser_main(sizes, length)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = gpt2_folder(Path(tmp) / "gpt2-sized", **sizes)  # type: ignore[arg-type]
        big = _child(str(folder), length)
    toy = _child(DEFAULT_MODEL, 128)
    print("## A GPT-2-sized converted model on the heads page\n")
    print("| model | T | parameters | load s | run s | figures s | page s | peak GB | captured MB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, t, r in ((f"{DEFAULT_MODEL} (shipped default)", 128, toy), ("GPT-2-sized random (converted)", length, big)):
        print(
            f"| {name} | {t:,} | {r['parameters']:,} | {r['load_s']:.2f} | {r['run_s']:.2f} | {r['figures_s']:.2f} "
            f"| {r['page_s']:.2f} | {r['peak_gb']:.2f} | {r['captured_mb']:.0f} |"
        )
    ratio = big["page_s"] / toy["page_s"]
    print(f"\nheads page: {ratio:.1f}× the default model's (target ≤ 3×); peak {big['peak_gb']:.2f} GB (target < 2)")


if __name__ == "__main__":
    main()
