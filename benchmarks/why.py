"""The Why page's patching sweep (`transformer.probes.patching.patch`): every residual point × position and every head.

1. The default model (en-zh) on its example pair: the whole sweep (median of 5) beside the peer, a naive sweep of the
   same patches (each a full forward of both stacks with every row read out, as a first version would do it:
   `naive_sweep`), in one run, with the ratio; target ≤ 2 s for the full per-head sweep.
2. A GPT-2-small-sized random folder (12 layers × 12 heads, d_model 768, 50,257-row embedding: 124 M parameters,
   written by `transformer.hf.random_folder`) on a 64-token text and the same text with one word changed: the sweep's
   time, reruns and time per rerun (the page shows a progress bar and a Cancel for it).
`--quick`: a 2-layer GPT-2 at 16 tokens instead of the GPT-2-sized one, one repeat.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch

from benchmarks.common import machine
from benchmarks.pretrained_scale import GPT2_SMALL, QUICK, texts_for
from hook_names import attn_module, hook_name
from runs.why_page import EXAMPLES
from transformer.hooks import capture, intervene
from transformer.probes.patching import patch
from transformer.probes.stream import Cancelled, layer_inputs, read_beside, read_text
from transformer.storage.checkpoint import ModelBundle, attention_kinds
from transformer.storage.registry import DEFAULT_MODEL, load_model
from transformer.text.prompt import text_rows


@torch.no_grad()
def naive_sweep(bundle: ModelBundle, clean_text: str, corrupted_text: str) -> int:
    """The same patches done plainly: each a full `model(src, tgt)` (encoder rerun, every row read out, no causal cut).
    Returns the number of reruns."""
    clean = read_text(bundle, clean_text)
    corrupted = read_beside(bundle, corrupted_text, clean)
    points = layer_inputs(bundle)
    z_names = [hook_name(attn_module(k, i), "z") for k in attention_kinds(bundle) for i in range(bundle.config.n_layers)]
    with capture(bundle.model, [*points, *z_names]) as cache:
        bundle.model(clean.src, clean.tgt)
    runs = 0
    width = clean.stream_ids.shape[1]
    for name in points:
        for p in range(width):

            def put(x: torch.Tensor, name: str = name, p: int = p) -> torch.Tensor:
                x = x.clone()
                x[:, p] = cache[name][:, p]
                return x

            with intervene(bundle.model, {name: put}):
                bundle.model(corrupted.src, corrupted.tgt)
            runs += 1
    for name in z_names:
        for h in range(bundle.config.n_heads):

            def put_head(x: torch.Tensor, name: str = name, h: int = h) -> torch.Tensor:
                x = x.clone()
                x[:, h] = cache[name][:, h]
                return x

            with intervene(bundle.model, {name: put_head}):
                bundle.model(corrupted.src, corrupted.tgt)
            runs += 1
    return runs


def _median(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _pair(bundle: ModelBundle, n_tokens: int) -> tuple[str, str]:
    """A text of at most `n_tokens` tokens and the same with one word changed, of the same length in tokens."""
    text = texts_for(bundle, n_tokens, (7,))[0][0]
    words = text.split()
    length = len(text_rows(bundle, text).prefix)
    for i in range(len(words) - 1, -1, -1):
        for other in ("the", "cat", "dog", "sun", "red", "a", "of", "in"):
            changed = " ".join([*words[:i], other, *words[i + 1 :]])
            if changed != text and len(text_rows(bundle, changed).prefix) == length:
                return text, changed
    raise SystemExit("no same-length pair found")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 2-layer GPT-2 at 16 tokens, one repeat")
    parser.add_argument("--budget-s", type=float, default=900.0, help="cancel the GPT-2-sized sweep after this long")
    args = parser.parse_args()
    repeats = 1 if args.quick else 5
    print(f"{machine()}\n")
    bundle = load_model(DEFAULT_MODEL)
    clean, corrupted = EXAMPLES[DEFAULT_MODEL]
    patch(bundle, clean, corrupted)  # warm
    counted: list[int] = []
    ours = _median(lambda: patch(bundle, clean, corrupted, progress=lambda d, t: counted.append(t)), repeats)
    reruns = counted[-1]
    peer = _median(lambda: naive_sweep(bundle, clean, corrupted), max(1, repeats // 2))
    print("## Patching sweep (every residual point × position and every head)\n")
    print("| model | T (stream) | reruns | sweep s | per rerun ms | naive sweep s | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    t_stream = len(read_text(bundle, clean).stream_tokens)
    print(
        f"| {DEFAULT_MODEL} (example pair) | {t_stream} | {reruns} | {ours:.3f} | {1000 * ours / reruns:.1f} "
        f"| {peer:.3f} | {peer / ours:.1f}× faster |"
    )
    from transformer.hf.random_folder import gpt2_folder

    sizes, n_tokens = (QUICK, 16) if args.quick else (GPT2_SMALL, 64)
    with tempfile.TemporaryDirectory() as tmp:
        big = load_model(gpt2_folder(Path(tmp) / "gpt2-sized", **sizes))  # type: ignore[arg-type]
    a, b = _pair(big, n_tokens)
    seen: list[tuple[int, int]] = []
    start = time.perf_counter()
    try:
        patch(big, a, b, progress=lambda d, t: seen.append((d, t)), cancelled=lambda: time.perf_counter() - start > args.budget_s)
        note = ""
    except Cancelled:  # the page's Cancel, here after --budget-s: the rest is projected from the pace so far
        note = f" (cancelled after {seen[-1][0]} of {seen[-1][1]}; whole sweep projected)"
    elapsed = time.perf_counter() - start
    done, total = seen[-1]
    whole = elapsed * total / max(1, done)
    label = "GPT-2-sized random (converted)" if not args.quick else "2-layer GPT-2 (quick)"
    t_big = len(text_rows(big, a).prefix)
    print(f"| {label}{note} | {t_big} | {total} | {whole:.1f} | {1000 * whole / total:.1f} | – | – |")
    print(f"\ndefault model's full sweep: {ours:.2f} s (target ≤ 2 s)")


if __name__ == "__main__":
    main()
