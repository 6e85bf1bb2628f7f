"""One home for caches: every cache in ui/ is in `ui/caches.py`, or named in its docstring with why it stays
beside the code it serves; and the docstring says what each of them keys on and bounds.

Read from the syntax tree, so a cache added anywhere in ui/ without a line in `ui.caches`'s docstring fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ui.caches

ROOT = Path(__file__).resolve().parents[2]
CACHE_DECORATORS = ("cache_resource", "cache_data", "byte_cached")


def _cached_functions(path: Path) -> list[str]:
    """Names of the functions in `path` under a Streamlit or byte cache decorator."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and any(word in ast.unparse(decorator) for decorator in node.decorator_list for word in CACHE_DECORATORS)
    ]


def test_every_cache_in_ui_is_listed_in_the_one_home():
    doc = ui.caches.__doc__ or ""
    home = ROOT / "ui" / "caches.py"
    here = _cached_functions(home)
    assert {"get_bundle", "_trace", "get_detectors", "get_stored_importance", "get_shipped_film_scores"} <= set(here)
    missing = [name for name in here if f"`{name}`" not in doc]
    elsewhere = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts): names
        for path in sorted((ROOT / "ui").rglob("*.py"))
        if path != home and (names := _cached_functions(path))
    }
    missing += [f"{module}.{name}" for module, names in elsewhere.items() for name in names if f"`{module}.{name}`" not in doc]
    assert not missing, f"caches not described in ui/caches.py's docstring: {missing}"


def test_a_cache_outside_the_home_is_not_a_run_layer_cache():
    """Results of `runs/` (byte-cached) live in `ui.caches` alone; the few caches elsewhere hold drawn words or a connection."""
    byte_cached = [
        f"{path.relative_to(ROOT)}"
        for path in sorted((ROOT / "ui").rglob("*.py"))
        if path.name != "caches.py" and "byte_cached" in path.read_text(encoding="utf-8")
    ]
    assert not byte_cached, byte_cached


def test_a_large_run_lets_the_other_large_runs_and_their_large_results_go():
    """Before a GPT-2-sized run, the last text's run and its rollout (50 MB at 1,024 tokens) are dropped; a shipped
    model's runs and results (kilobytes) stay. Six long texts in one session otherwise held six rollouts."""
    import numpy as np

    from runs.byte_cache import shared_cache

    cache = shared_cache()
    cache.clear()
    sizes = {"old-run": ui.caches.LARGE_RUN_BYTES, "old-rollout": ui.caches.LARGE_RESULT_BYTES, "small-run": 4096}
    for key, size in sizes.items():
        cache.get_or_compute(("test", key), lambda size=size: np.zeros(size, dtype=np.uint8))
    try:
        ui.caches.release_for(1 << 10)  # a small run: nothing is dropped
        kept = cache.keys()
        assert {key for _, key in kept} == set(sizes)
        ui.caches.release_for(ui.caches.LARGE_RUN_BYTES)
        kept = cache.keys()
        assert [key for _, key in kept] == ["small-run"]
    finally:
        cache.clear()
