"""Shared helpers for the benchmark scripts: configs, inputs, interleaved timing, tables, the machine.

Every script prints Markdown tables (medians, ratios, sizes) that paste straight into
benchmarks/README.md, and never passes or fails on wall time: the numbers depend on the machine
and on whatever else it is doing, so each run also prints the machine and its load average.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from importlib import metadata

import torch

from transformer.config import TransformerConfig

LENGTHS = (16, 64, 256, 512)
QUICK_LENGTHS = (16,)
SMALL = "small (2×4, d=64)"
BASE = "base (6×8, d=512)"
CONFIGS: dict[str, TransformerConfig] = {
    # max_len 512 so T=512 fits; vocab sizes are irrelevant to timing (ids are drawn below 512).
    SMALL: TransformerConfig(
        n_layers=2, n_heads=4, d_model=64, d_ff=256, dropout=0.0, max_len=512, src_vocab_size=512, tgt_vocab_size=512
    ),
    BASE: TransformerConfig.base(dropout=0.0, src_vocab_size=512, tgt_vocab_size=512),
}
# The heads page's base model as the app's sidebar builds it (URL keys of ui/sidebar.py).
BASE_QUERY = {"model": "random", "r_layers": "6", "r_dmodel": "512", "r_heads": "8"}


def arguments(description: str | None, *, lengths: Sequence[int] = LENGTHS) -> argparse.ArgumentParser:
    """The options every script shares; `--quick` is the smoke-test size (seconds, not minutes)."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny run for the smoke test: T=16, small config, 1 repeat")
    parser.add_argument("--lengths", type=int, nargs="*", default=list(lengths), help="input lengths T in tokens")
    return parser


def machine() -> str:
    """One line naming the machine and software, so a table always says where it was measured."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        ram = float("nan")
    versions = ", ".join(f"{name} {_version(name)}" for name in ("torch", "streamlit", "plotly", "numpy"))
    return (
        f"{datetime.date.today()}; {os.cpu_count()} cores ({cpu}), {ram:.0f} GiB RAM, "
        f"{torch.get_num_threads()} torch threads; Python {platform.python_version()}, {versions}; "
        f"load average {load():.1f}"
    )


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


def load() -> float:
    """The 1-minute load average (numbers taken above ~2 on 2 cores are inflated)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def header(title: str) -> None:
    print(f"## {title}\n\n{machine()}\n")


def random_ids(length: int, vocab: int = 512, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(4, vocab, (1, length), generator=g)  # (1, T), no padding


def random_text(n_symbols: int, seed: int = 0) -> str:
    """Text of `n_symbols` characters the random models' character vocabulary knows (letters and spaces),
    different for every seed, so a cached run is never reused by accident."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz     "
    chars = [rng.choice(letters) for _ in range(n_symbols)]
    chars[0] = chars[-1] = "x"  # no leading/trailing space: the text box strips them
    return "".join(chars)


def interleaved_medians(
    fns: dict[str, Callable[[], object]], repeats: int, warmup: int = 1, min_seconds: float = 0.0, max_rounds: int = 200
) -> dict[str, float]:
    """Median seconds of each function, run in turn (a, b, a, b, ...) so drift hits both alike.

    At least `repeats` rounds, and more (up to `max_rounds`) until `min_seconds` have passed: fast
    calls get many samples, so a burst of load from elsewhere moves the median less.
    """
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    began = time.perf_counter()
    rounds = 0
    while rounds < repeats or (time.perf_counter() - began < min_seconds and rounds < max_rounds):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
        rounds += 1
    return {name: statistics.median(ts) for name, ts in times.items()}


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """(seconds, result) of one call."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def quantile(values: list[float], q: float) -> float:
    """The `q` quantile (0.5, 0.95) of `values`, inclusive method; NaN for none."""
    if not values:
        return float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[int(q * 100) - 1] if len(values) > 1 else values[0]


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.0f}" if seconds >= 0.1 else f"{1000 * seconds:.1f}"


def size(n_bytes: float) -> str:
    """Bytes in the unit a reader compares: B, kB, MB (powers of 1000, like a network tab)."""
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.2f} {unit}"
    return f"{n_bytes:.0f} B"


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A Markdown table, so results paste straight into benchmarks/README.md."""
    print("| " + " | ".join(headers) + " |")
    print("|" + "|".join(" --- " for _ in headers) + "|")
    for row in rows:
        print("| " + " | ".join(str(cell) for cell in row) + " |")
    print()
