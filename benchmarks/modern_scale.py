"""A Qwen2.5-0.5B-shaped folder (24 layers, 14 query heads over 2 key/value heads, d_model 896, d_ff 4,864, a
151,936-token vocabulary, tied embeddings: 494 M parameters, random weights) at 512 tokens: our forward pass with
every hook recording against a plain `transformers` forward of the same folder on the same ids, side by side in one
process, and the server's peak memory on the heads page.

    python -m benchmarks.modern_scale            # the Qwen2.5-0.5B shape
    python -m benchmarks.modern_scale --quick    # a 2-layer Qwen2 at 128 tokens (the smoke test)
    python -m benchmarks.modern_scale --browser  # Enter → heads page painted in Chromium, vs the default page

Side by side: `transformers` reads the folder (float32, its default attention), the app converts that model (the
converted weights are the same tensors, so both fit at once), and the forward passes alternate on one (1, 512)
batch, `ROUNDS` times each, a `transformers` pass before each of ours (the app's path, then the paper's); the table
gives each one's median and their ratio (target ≤ 1.3×). Ours records every hook point (`capture(model)`: queries,
keys, values, scores, masked scores, patterns of every head, the residual stream, the feed-forward's gate and hidden
units, …), which `transformers` does not do at all; it is timed as the app runs it (the engine, in the run's lent
memory, with the app's heap setting in the process) and, for comparison, through the paper's modules alone.

Peak memory: a fresh process loads the folder as the app does (`load_model`) and runs the heads page's server work
on a new 512-token text (`benchmarks.pretrained_scale.measure`: the run as the app runs it, then every figure);
its peak resident set, loading included, against the issue's target of < 4 GB. The folder is written once into a
temporary folder by `transformer.hf.random_folder` (nothing is downloaded).

`--browser`: Enter → heads page painted in Chromium for that folder and for the default model, each on its own
server, as `benchmarks.pretrained_scale --browser` measures the GPT-2-sized one (`browser_measure`): the default
model on texts of ~128 tokens, the folder on texts the page reads as 512 tokens; two timed texts for the folder
(a run of this size takes tens of seconds on two cores), five for the default.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

QWEN25_05B = {
    "layers": 24,
    "hidden": 896,
    "heads": 14,
    "kv_heads": 2,
    "intermediate": 4864,
    "vocab_size": 151_936,
    "rope_theta": 1_000_000.0,
    "max_positions": 32_768,
    "init_range": 0.02,
}
QUICK = {"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "intermediate": 96, "max_positions": 256}
ROUNDS = 5


def side_by_side(folder: Path, length: int) -> dict[str, float]:
    """Median seconds of a plain `transformers` forward and of ours with every hook recording, alternated.

    Ours is timed two ways: as the app runs it (`ours_s`: the engine computing attention in the run's lent memory,
    `transformer.engine.decoding.trace_text`'s context, with the app's heap setting `runs.memory.keep_freed_memory`,
    which this process then has for `transformers` too), and the paper's modules as written (`paper_s`: no engine).
    """
    from runs.memory import keep_freed_memory
    from transformer.engine.records import capture
    from transformer.engine.workspace import lending
    from transformer.hf.load import _transformers, convert
    from transformer.hooks import capture as capture_plainly

    keep_freed_memory()  # as `ui.caches` does for the app's process
    tf = _transformers()
    tokenizer = tf.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    hf_model = tf.Qwen2ForCausalLM.from_pretrained(str(folder), local_files_only=True, dtype=torch.float32).eval()
    bundle = convert(hf_model, tokenizer, "qwen2", folder.name)
    generator = torch.Generator().manual_seed(0)
    theirs_ids = torch.randint(0, len(tokenizer), (1, length), generator=generator)  # (1, T) pretrained ids
    ours_ids = torch.tensor([[bundle.target_tokenizer.map.ours(int(i)) for i in theirs_ids[0]]])  # (1, T)
    recorded = 0

    def theirs() -> object:
        return hf_model(input_ids=theirs_ids)

    def ours() -> object:
        nonlocal recorded
        with lending(), capture(bundle.model) as cache:
            bundle.model(None, ours_ids)
        recorded = sum(t.numel() * t.element_size() for t in cache.values())
        return cache

    def paper() -> object:
        with capture_plainly(bundle.model) as cache:
            bundle.model(None, ours_ids)
        return cache

    times: dict[str, list[float]] = {"transformers_s": [], "ours_s": [], "transformers_paper_s": [], "paper_s": []}
    with torch.no_grad():
        hf_model(input_ids=theirs_ids[:, :8])  # warm-up, not timed
        # two phases, each pair alternated (the load falls on both alike); the paper's after, so that what its
        # plain capture leaves in the heap never sits between the app's passes
        for pair in ((("transformers_s", theirs), ("ours_s", ours)), (("transformers_paper_s", theirs), ("paper_s", paper))):
            for _ in range(ROUNDS):
                for key, forward in pair:
                    start = time.perf_counter()
                    kept = forward()
                    times[key].append(time.perf_counter() - start)
                    del kept  # freed after the clock stops: handing 2.4 GB back is not the forward pass
    medians = {key: statistics.median(values) for key, values in times.items()}
    return {**medians, "recorded_gb": recorded / 1e9, "parameters": bundle.model.num_parameters()}


def _child(*args: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-m", "benchmarks.modern_scale", *args], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


BROWSER_TEXTS = 3
"""The folder's texts in the browser: the first opens the page (not timed), the other two are timed."""


def browser_main(sizes: dict, length: int, name: str) -> None:
    """Enter → heads page painted for the folder and the default model, and the ratio of the two."""
    from benchmarks.pretrained_scale import TIMED_TEXTS, browser_measure, texts_of
    from transformer.hf.random_folder import qwen2_folder
    from transformer.storage.registry import DEFAULT_MODEL

    with tempfile.TemporaryDirectory() as tmp:
        folder = qwen2_folder(Path(tmp) / "qwen2.5-0.5b-shaped", **sizes)
        toy_texts = texts_of(DEFAULT_MODEL, 127, seeds=tuple(1 + 10 * s for s in range(TIMED_TEXTS + 1)))
        toy = browser_measure(DEFAULT_MODEL, [text for text, _ in toy_texts])
        big_texts = texts_of(str(folder), length - 1, seeds=tuple(3 + 10 * s for s in range(BROWSER_TEXTS)))
        big = browser_measure(str(folder), [text for text, _ in big_texts], models_dir=tmp)
    print("## Enter → heads page painted (Chromium), one server per model\n")
    print("| model | T (at most) | total s | server s | paint s | received | server peak GB |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rows = ((f"{DEFAULT_MODEL} (shipped default)", toy_texts, toy), (f"{name} random (converted)", big_texts, big))
    for name, texts, r in rows:
        print(
            f"| {name} | {max(t for _, t in texts[1:]):,} | {r['total']:.2f} | {r['server']:.2f} | {r['paint']:.2f} "
            f"| {r['bytes'] / 1e6:.1f} MB | {r['peak_gb']:.2f} |"
        )
    for label, r in (("default", toy), (name, big)):
        print(f"\n{label}: each text's total s: {', '.join(f'{t:.2f}' for t in r['totals'])}", end="")
    print(f"\n\nheads page painted: {big['total'] / toy['total']:.1f}× the default model's; server peak {big['peak_gb']:.2f} GB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--browser", action="store_true", help="time the heads page in Chromium (Enter → painted)")
    parser.add_argument("--side-by-side", help=argparse.SUPPRESS)
    parser.add_argument("--page", help=argparse.SUPPRESS)
    parser.add_argument("--length", type=int, default=512, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side_by_side:
        print(json.dumps(side_by_side(Path(args.side_by_side), args.length)))
        return
    if args.page:
        from benchmarks.pretrained_scale import measure

        print(json.dumps(measure(args.page, args.length)))
        return
    from transformer.hf.random_folder import qwen2_folder

    sizes, length = (QUICK, 128) if args.quick else (QWEN25_05B, 512)
    if args.browser:
        browser_main(sizes, length, "a 2-layer Qwen2" if args.quick else "Qwen2.5-0.5B-shaped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        folder = qwen2_folder(Path(tmp) / "qwen2.5-0.5b-shaped", **sizes)  # type: ignore[arg-type]
        print(f"folder written in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        pair = _child("--side-by-side", str(folder), "--length", str(length))
        print(f"side by side: {json.dumps(pair)}", file=sys.stderr, flush=True)  # kept if the page's run is cut off
        page = _child("--page", str(folder), "--length", str(length))
    ratio = pair["ours_s"] / pair["transformers_s"]
    print(f"## A Qwen2.5-0.5B-shaped folder ({pair['parameters']:,} parameters) at {length} tokens\n")
    print("| forward pass | median s | recorded |")
    print("| --- | --- | --- |")
    print(f"| `transformers` (Qwen2ForCausalLM, float32, plain) | {pair['transformers_s']:.2f} | nothing |")
    print(f"| ours as the app runs it, every hook recording | {pair['ours_s']:.2f} | {pair['recorded_gb']:.2f} GB |")
    print(f"| ours, the paper's modules (no engine), every hook recording | {pair['paper_s']:.2f} | the same |")
    paper = pair["paper_s"] / pair["transformers_paper_s"]
    print(f"\nours / transformers: {ratio:.2f}× (target ≤ 1.3×); the paper's modules: {paper:.2f}×")
    print(
        f"heads page server work: load {page['load_s']:.1f} s, run {page['run_s']:.2f} s, figures {page['figures_s']:.2f} s; "
        f"server peak {page['peak_gb']:.2f} GB (target < 4 GB)"
    )


if __name__ == "__main__":
    main()
