"""Loading models once per process and running them once per input.

Models are `st.cache_resource`: loaded once, shared by every session, never mutated (interventions
are per call). Runs are cached too, as read-only `TraceData`, keyed by model key, text, the hook
names a page needs and the interventions — so changing which head is shown never reruns a model.
(`cache_resource` rather than `cache_data`: a run can hold tens of MB of arrays, and cache_data
would copy them on every rerun.)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
from collections.abc import Sequence
from urllib.parse import parse_qsl, urlencode

import streamlit as st

from transformer.checkpoint import ModelBundle
from transformer.config import TransformerConfig
from transformer.decoding import trace_text
from transformer.interventions import InterventionSpec, build_interventions
from transformer.registry import RANDOM, list_models, load_model, random_bundle
from viz.trace import TraceData


def keep_freed_memory(mmap_threshold: int = 32 << 20, trim_threshold: int = 1 << 30) -> bool:
    """Ask glibc to keep freed blocks up to `mmap_threshold` bytes in the heap for reuse (Linux only).

    Why: a capture keeps every recorded tensor alive, so the next call cannot reuse their buffers,
    and by default glibc hands freed multi-MB blocks back to the kernel; every captured call then
    page-faults fresh memory (measured on the base config at T=256: 43k page faults a call, 1.39× a
    plain forward; with this, 0 faults and 1.07×). Process-wide, so the app does it here, once,
    and the `transformer` package never does. Returns False where mallopt is unavailable (not glibc).
    """
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3  # from <malloc.h>
        return bool(libc.mallopt(m_mmap_threshold, mmap_threshold)) and bool(libc.mallopt(m_trim_threshold, trim_threshold))
    except (OSError, AttributeError):
        return False


keep_freed_memory()  # captured runs then reuse freed heap memory instead of page-faulting fresh pages

RANDOM_DEFAULTS: dict[str, object] = {
    "architecture": "encoder-decoder",
    "n_layers": 2,
    "d_model": 64,
    "n_heads": 4,
    "norm_position": "post",
    "positional": "sinusoidal",
    "seed": 0,
    "max_len": 512,  # the base config's length (TransformerConfig.base), so 511 characters + <eos> fit
}


def is_untrained(bundle: ModelBundle) -> bool:
    return bundle.card.get("task") == RANDOM


def shipped_models() -> list[str]:
    return [info.name for info in list_models()]


def random_key(**settings: object) -> str:
    """A random model's key: "random?n_layers=2&d_model=64&...", stable for equal settings."""
    merged = {**RANDOM_DEFAULTS, **settings}
    return f"{RANDOM}?{urlencode(sorted(merged.items()))}"


def _parse_random_key(key: str) -> tuple[TransformerConfig, int]:
    settings: dict[str, object] = dict(RANDOM_DEFAULTS)
    for name, raw in parse_qsl(key.partition("?")[2]):
        try:
            settings[name] = json.loads(raw)
        except json.JSONDecodeError:
            settings[name] = raw
    seed = int(settings.pop("seed", 0))  # type: ignore[call-overload]
    settings["d_ff"] = 4 * int(settings["d_model"])  # type: ignore[call-overload]  # the paper's ratio
    settings["dropout"] = 0.0
    return TransformerConfig.from_dict(settings), seed


@st.cache_resource(max_entries=8, show_spinner=False)
def get_bundle(model_key: str) -> ModelBundle:
    """A shipped model by name, or a random one by `random_key(...)`; loaded once per process."""
    if model_key.split("?")[0] == RANDOM:
        config, seed = _parse_random_key(model_key)
        return random_bundle(config, seed=seed)
    return load_model(model_key)


@st.cache_resource(max_entries=48, ttl=3600, show_spinner=False)
def get_trace(
    model_key: str,
    text: str,
    names: tuple[str, ...] | None = None,
    interventions: tuple[InterventionSpec, ...] = (),
) -> TraceData:
    """Run the model on `text` (greedy decoding + one captured pass); cached per arguments.

    An untrained model is teacher-forced on the text instead (`trace_text(generate=False)`): what it
    would generate is noise, and generating it cost a minute at 512 tokens on the base config
    (every step reruns the decoder over the whole prefix), where one teacher-forced pass takes 0.4 s
    and shows the decoder's attention over the user's own words.
    """
    bundle = get_bundle(model_key)
    trace = trace_text(bundle, text, names=names, interventions=build_interventions(interventions),
                       generate=not is_untrained(bundle))
    return TraceData.from_trace(trace)


def attention_names(bundle: ModelBundle, hooks: Sequence[str] = ("hook_pattern",)) -> tuple[str, ...]:
    """Hook names of every attention module's `hooks` (e.g. all patterns), for `get_trace(names=...)`."""
    return tuple(n for n in bundle.model.hook_names if n.endswith(tuple(f"attn.{h}" for h in hooks)))
