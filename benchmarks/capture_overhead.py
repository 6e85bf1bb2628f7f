"""Capture overhead: a forward pass under `capture()` vs a plain forward, as a ratio of medians.

Run:  python -m benchmarks.capture_overhead [--repeats N] [--lengths 16 64 ...] [--quick]

Three ways of running the same teacher-forced pass (source and target both T tokens), interleaved
so drift and other load hit them alike:
- plain: no capture at all (every hook point is one ContextVar lookup);
- capture-all: every hook point recorded ("everything the app shows": what `python -m transformer
  trace` and the step-by-step pages ask for);
- patterns: only each attention module's `hook_pattern`, what the heads page requests
  (`runs.text_run.attention_names`).
Target: capture-all ≤ 1.15× plain at T ≤ 256 (the floor is 1.0×). "kept" is the memory the
cache holds on to (unique tensor storage), the price of recording. `--allocator default` shows
the cost before the app's allocator setting: the kept tensors' memory was page-faulted afresh on
every call.
"""

from __future__ import annotations

import torch

from benchmarks.common import CONFIGS, SMALL, arguments, header, interleaved_medians, ms, print_table, random_ids, size
from hook_names import attention_hooks
from runs.memory import keep_freed_memory
from transformer.activation_cache import ActivationCache
from transformer.hooks import capture
from transformer.model import Transformer


def pattern_names(model: Transformer) -> list[str]:
    """What the heads page records (`runs.text_run.attention_names`, for a bare model)."""
    return list(attention_hooks(model.hook_names))


def kept_bytes(cache: ActivationCache) -> int:
    """Bytes of the distinct storages a cache keeps alive (an expanded mask is one small storage)."""
    storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in cache.values()}
    return sum(storages.values())


def measure(model: Transformer, length: int, repeats: int) -> list[object]:
    src, tgt = random_ids(length, seed=1), random_ids(length, seed=2)
    patterns = pattern_names(model)
    kept: dict[str, int] = {}

    def plain() -> None:
        with torch.no_grad():
            model(src, tgt)

    def run(names: list[str] | None, label: str):
        def captured() -> None:
            with torch.no_grad(), capture(model, names) as cache:
                model(src, tgt)
            kept[label] = kept_bytes(cache)

        return captured

    medians = interleaved_medians(
        {"plain": plain, "all": run(None, "all"), "patterns": run(patterns, "patterns")},
        repeats=repeats,
        min_seconds=0.0 if repeats == 1 else 3.0,
    )
    return [
        ms(medians["plain"]),
        ms(medians["all"]),
        f"{medians['all'] / medians['plain']:.3f}×",
        size(kept["all"]),
        ms(medians["patterns"]),
        f"{medians['patterns'] / medians['plain']:.3f}×",
        size(kept["patterns"]),
    ]


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument(
        "--allocator",
        choices=("app", "default"),
        default="app",
        help="app: glibc keeps freed memory for reuse, as the app sets it (runs.memory.keep_freed_memory); "
        "default: glibc's defaults (freed multi-MB blocks go back to the kernel)",
    )
    args = parser.parse_args()
    if args.allocator == "app":
        keep_freed_memory()
    configs = {SMALL: CONFIGS[SMALL]} if args.quick else CONFIGS
    lengths = [16] if args.quick else args.lengths
    header(f"Capture overhead (forward under capture() vs plain forward, median of interleaved runs; {args.allocator} allocator)")
    rows = []
    for label, config in configs.items():
        torch.manual_seed(0)
        model = Transformer(config).eval()
        for length in lengths:
            long_base = length > 256 and config is not CONFIGS[SMALL]  # seconds a run: fewer repeats
            repeats = 1 if args.quick else max(3, args.repeats // 2) if long_base else args.repeats
            rows.append([label, length, *measure(model, length, repeats)])
    print_table(
        ["config", "T", "plain ms", "capture-all ms", "ratio", "kept (all)", "patterns-only ms", "ratio", "kept (patterns)"], rows
    )


if __name__ == "__main__":
    main()
