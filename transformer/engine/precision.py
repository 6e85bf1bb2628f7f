"""The arithmetic a run computes in: float32, exactly, or bfloat16 matrix products for a large model's long input.

Every run is float32 unless told otherwise, and every shipped model always is: the engine matches `torch.nn` and
`transformers` to float rounding, and the lesson's identities hold on its numbers. A GPT-2-sized model reading
1,022 tokens is another matter: its float32 run takes 1.63 s on two cores, where the default model's whole heads
page takes 0.6 s. On a CPU with native bfloat16 (AVX-512 BF16 or AMX), bfloat16 matrix products run about 4.8×
faster (measured: 978 against 208 GFLOPS on a 1,024 × 768 × 3,072 product), and that run takes 0.63 s (its softmax
and masks are float32 either way, computed a block of query rows at a time: `transformer.engine.by_rows`).
Its weights are recorded as float16 (`transformer.engine.records.keeping`): 302 MB instead of 604, which is what brings that
page's server under 2 GB.

`arithmetic("bfloat16")` is PyTorch's CPU autocast (what training's `--bf16` uses, and how large models are
commonly run): the linear layers multiply in bfloat16, which keeps 8 significant bits (about 2-3 decimal
digits), while LayerNorm, the residual stream and softmax stay float32. Attention scores are also kept float32
(`transformer.engine.steps.scores_in_float32`): q·kᵀ/√d_k of the rounded queries and keys, unrounded, because a
softmax turns an error δ in a score into a factor e^δ on its weight, and rounding a score of 10 to bfloat16 would
move its weight by up to 2 %.
Decoding steps that read one new position multiply in float32 even then (`transformer.engine.kv_cache.KeyValueCache`):
for one row, casting every weight to bfloat16 costs more than the products it speeds up (GPT-2 small, 64 tokens
written after a 498-token text: 2.3 s against 2.4-3.9).

Which runs may use it is the caller's choice (`runs.text_run.run_precision`): only runs that record nothing but
attention weights (their numbers are shown, not checked against one another), only when the work is large
(`FAST_WORK`), only on a CPU that has native bfloat16 (elsewhere bfloat16 is slower than float32), and never when
the reader asked for exact arithmetic. The trace says which it was, and the page says so.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Iterator
from functools import cache
from typing import Literal, get_args

import numpy as np
import torch

from transformer.engine.attend import engaged
from transformer.engine.steps import float32_scores

Precision = Literal["float32", "bfloat16"]
PRECISIONS: tuple[Precision, ...] = get_args(Precision)
EXACT: Precision = "float32"
FAST: Precision = "bfloat16"

FAST_WORK = 5 * 10**10
"""Parameters × positions above which a run may compute in bfloat16: about half a second of float32 on two cores.
No shipped model comes near it (the largest at its longest input does a fiftieth); GPT-2 small passes it at about
400 tokens."""


@cache
def native_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 natively (AVX-512 BF16 or AMX tiles): without it, PyTorch emulates
    bfloat16 products and they are slower than float32's."""
    return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())


def large_work(parameters: int, positions: int) -> bool:
    """Whether a run of a model of `parameters` over `positions` positions is large enough for bfloat16 to pay."""
    return parameters * positions > FAST_WORK


@contextlib.contextmanager
def arithmetic(precision: Precision) -> Iterator[None]:
    """Compute the model calls inside in `precision`: float32 (nothing changes) or bfloat16 matrix products."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision == EXACT:
        yield
        return
    # cache_enabled=False: no bfloat16 copy of every weight is kept for the whole call (0.25 GB for GPT-2 small)
    with engaged(), float32_scores(), torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=False):
        yield


_QUIET = threading.Lock()  # one `catch_warnings` at a time (`widen_into`)


def widen_into(src: np.ndarray, out: np.ndarray) -> np.ndarray:
    """`out[...] = src`: float16 weights (a bfloat16 run keeps them so) widened into a float32 buffer already in
    hand, through PyTorch; returns `out`.

    Why not NumPy: its float16 → float32 conversion is about six times slower (one GPT-2-sized layer at 1,024
    tokens, a block of rows at a time: 16 ms against 2.7), and the heads page's statistics and rollout each widen
    all 144 heads. `src` may be any strided view; a read-only one is only read (PyTorch's warning about it is
    silenced while the view is made: under a lock, since the statistics and the rollout widen on two threads and
    `catch_warnings` saves and restores the process's filters, which two threads interleaving would leave changed).
    """
    with _QUIET, warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The given NumPy array is not writable", UserWarning)
        source = torch.from_numpy(src)  # a view: microseconds under the lock
    torch.from_numpy(out).copy_(source)
    return out
