"""The import ladder (docs/DESIGN.md §1): app.py, views/ → ui/ → runs/ → viz/ + transformer/, never upward.

- nothing below ui/ (transformer/, runs/, viz/) imports streamlit;
- viz/ imports neither torch nor `transformer`: the one thing both read, the hook-name vocabulary,
  is the plain-Python `hook_names.py` at the bottom of the ladder, which imports nothing of the project;
- views/ and ui/ do no tensor math: neither imports torch; views/ imports neither numpy nor `transformer`
  either (a page reads its numbers from one call into runs/, so array work has no place there);
- nothing imports upward: transformer/ imports none of runs/viz/ui/views, runs/ none of ui/views,
  viz/ none of runs/ui/views, ui/ not views/;
- benchmarks/ and serve/ import nothing from tests/ (the helpers both need live in `serve.processes` and
  `benchmarks.chromium`);
- inside transformer/ (docs/DESIGN.md §2), the library (the paper's model at the top, the rooms `text/`,
  `storage/`, `engine/`, and `hf/`) imports nothing of `training/`, `probes/` or `cli/`; the paper's model files
  import no task and nothing of the engine, storage or text rooms (none of them imports scratch memory, record
  memory or precision: the engine takes over through `transformer.attention.run_by`); and nothing outside
  `transformer/cli/` (and the two-line `transformer/__main__.py`) imports the command line.
- a page's room `ui/pages/<page>/` serves `views/<page>.py` alone: no other page, no other room and no shared
  widget of `ui/` imports it (what two pages need is shared, one floor up).

The import graph of transformer/, runs/, viz/, ui/ and hook_names.py has no circle, counting imports
inside functions too (a function-level import only hides a circle, it does not remove it).

Checked twice: statically (every `import` statement, also inside functions) and by importing the
packages in a fresh interpreter and looking at `sys.modules`.
"""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN: dict[str, set[str]] = {
    # package → top-level modules it must never import
    "transformer": {"runs", "viz", "ui", "views", "streamlit", "plotly", "app"},
    "runs": {"ui", "views", "streamlit", "app"},
    "viz": {"transformer", "runs", "ui", "views", "streamlit", "torch", "app"},
    "ui": {"views", "torch", "app"},
    "views": {"torch", "numpy", "transformer", "app"},
    # the school server and the benchmarks share their process and browser helpers (`serve.processes`,
    # `benchmarks.chromium`) with the tests, never the other way round
    "serve": {"tests", "ui", "views", "streamlit"},
    "benchmarks": {"tests"},
}


def _imports(path: Path) -> list[str]:
    """Every module an `import` / `from ... import` in `path` names (absolute imports only)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
            names += [f"{node.module}.{alias.name}" for alias in node.names]  # `from transformer import hooks`
    return names


def _files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_goes_up_the_ladder(package):
    bad = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in _files(package)
        for name in _imports(path)
        if name.split(".")[0] in FORBIDDEN[package]
    ]
    assert not bad, bad


def test_the_hook_name_vocabulary_imports_nothing_of_the_project():
    project = {"transformer", "runs", "viz", "ui", "views", "app", "torch", "numpy", "streamlit", "plotly"}
    bad = [name for name in _imports(ROOT / "hook_names.py") if name.split(".")[0] in project]
    assert not bad, bad


def _modules(package: str) -> list[str]:
    """The modules directly in `package` (dotted, e.g. "transformer.probes"), `__main__` left out."""
    folder = ROOT.joinpath(*package.split("."))
    return [f"{package}.{m.name}" for m in pkgutil.iter_modules([str(folder)]) if m.name != "__main__"]


def _loaded_after_importing(modules: list[str], check: str) -> subprocess.CompletedProcess:
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + check
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=180)


def test_below_ui_nothing_loads_streamlit_or_the_app():
    result = _loaded_after_importing(
        _modules("transformer")
        + _modules("transformer.training")
        + _modules("transformer.probes")
        + _modules("transformer.cli")
        + _modules("runs")
        + _modules("viz"),
        "bad = [m for m in sys.modules if m.split('.')[0] in ('streamlit', 'ui', 'views')]\nassert not bad, bad\n",
    )
    assert result.returncode == 0, result.stderr + result.stdout


def test_importing_viz_loads_neither_torch_nor_the_model():
    result = _loaded_after_importing(
        _modules("viz"),
        "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'transformer')]\nassert not bad, bad\n",
    )
    assert result.returncode == 0, result.stderr + result.stdout


GRAPH_PACKAGES = ("transformer", "runs", "viz", "ui")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Module → the project modules its import statements name (also inside functions; relative ones resolved).

    `from a.b import c` points at the module a.b.c if there is one, else at a.b (which defines c).
    """
    paths = {_module_name(p): p for package in GRAPH_PACKAGES for p in _files(package)}
    paths["hook_names"] = ROOT / "hook_names.py"
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                edges |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: `from . import x` in a package, `from .y import x` beside y
                    base = ".".join([*package[: len(package) - node.level + 1], base]).strip(".")
                for alias in node.names:
                    edges.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in paths else base)
        graph[name] = {e for e in edges if e in paths and e != name}
    return graph


def _a_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `graph` as a path that returns to its start, or None (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_the_search_finds_a_circle():
    assert _a_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _a_circle({"a": {"b"}, "b": set()}) is None


def test_the_import_graph_has_no_circle():
    graph = _import_graph()
    assert {"transformer.tasks", "runs.model_ref", "hook_names"} <= set(graph)
    assert "runs.model_ref" in graph["runs.training.registry"]  # edges are read (a from-import of a name)
    circle = _a_circle(graph)
    assert circle is None, " → ".join(circle or [])


def _names_module(name: str, modules: tuple[str, ...]) -> bool:
    """Whether an imported `name` is one of `modules` or inside one of them."""
    return any(name == m or name.startswith(f"{m}.") for m in modules)


COMMAND_LINE = ("transformer.cli", "transformer.__main__")


def test_nothing_below_the_command_line_imports_it():
    """The command line sits on top of the library: `python -m transformer` (`transformer/__main__.py`) calls
    `transformer.cli`, and nothing else of the project imports either. The pages and the library read recipes
    from the tasks (`transformer.tasks.recipes`), never from the CLI. (`python -m transformer` once imported
    train → train_cli → __main__: a circle.)"""
    bad = [
        f"{path.relative_to(ROOT)}: {name}"
        for package in ("transformer", "runs", "viz", "ui", "views", "benchmarks", "serve")
        for path in _files(package)
        if not _names_module(_module_name(path), COMMAND_LINE)
        for name in _imports(path)
        if _names_module(name, COMMAND_LINE)
    ]
    assert not bad, bad


THE_LIBRARY_BENEATH = ("transformer.training", "transformer.probes", "transformer.cli")
# The paper's model: what `Transformer` is built from. It reads no task, trains nothing and measures nothing.
MODEL_FILES = (
    "config",
    "masks",
    "attention",
    "layernorm",
    "positional",
    "feedforward",
    "dropout",
    "layers",
    "model",
    "hooks",
    "activation_cache",
    "interventions",
    # today's decoder-only parts (Llama / Qwen), written beside the paper's
    "rotary",
    "rmsnorm",
    "swiglu",
    "grouped_query_attention",
    "block_parts",
)
# The rooms beside the model (`transformer/<room>/`): the model's files import none of them.
ROOMS = ("text", "storage", "engine")


def test_the_top_of_transformer_holds_the_model_and_its_init():
    top = {p.stem for p in (ROOT / "transformer").glob("*.py")}
    assert top == {*MODEL_FILES, "__init__", "__main__"}, sorted(top - {*MODEL_FILES, "__init__", "__main__"})
    assert {p.name for p in (ROOT / "transformer").iterdir() if (p / "__init__.py").exists()} >= set(ROOMS)


def test_the_top_of_transformer_imports_nothing_of_training_probes_or_the_command_line():
    library = [p for p in (ROOT / "transformer").glob("*.py") if p.stem != "__main__"] + _files("transformer/hf")
    library += [p for room in ROOMS for p in _files(f"transformer/{room}")]
    assert {p.stem for p in library} >= set(MODEL_FILES)
    bad = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in library
        for name in _imports(path)
        if _names_module(name, THE_LIBRARY_BENEATH)
    ]
    assert not bad, bad


def test_the_model_files_import_no_task_and_no_room():
    beneath = (*THE_LIBRARY_BENEATH, "transformer.tasks", "transformer.hf", *(f"transformer.{room}" for room in ROOMS))
    bad = [
        f"transformer/{stem}.py: {name}"
        for stem in MODEL_FILES
        for name in _imports(ROOT / "transformer" / f"{stem}.py")
        if _names_module(name, beneath)
    ]
    assert not bad, bad


def test_the_layer_rules_see_an_import_of_the_rooms_beneath():
    """The rules above can fail: a from-import of a name in one of the rooms is caught by name."""
    assert _names_module("transformer.training.train", THE_LIBRARY_BENEATH)
    assert _names_module("transformer.cli", COMMAND_LINE) and not _names_module("transformer.client", COMMAND_LINE)
    assert _names_module("transformer.engine.workspace", tuple(f"transformer.{room}" for room in ROOMS))


def _room_of(name: str) -> str | None:
    """The page room an imported module name lies in (`ui.pages.masks.view` → "masks"), or None."""
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["ui", "pages"] else None


def test_a_page_room_serves_its_page_alone():
    rooms = sorted(p.name for p in (ROOT / "ui" / "pages").iterdir() if (p / "__init__.py").exists())
    assert {"masks", "heads", "lesson", "training"} <= set(rooms)
    assert all((ROOT / "views" / f"{room}.py").exists() for room in rooms), "a room without its page"
    bad = []
    for path in _files("ui") + _files("views"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        own = parts[2] if parts[:2] == ("ui", "pages") and len(parts) > 3 else parts[1] if parts[0] == "views" else None
        bad += [
            f"{path.relative_to(ROOT)}: {name}" for name in _imports(path) if _room_of(name) is not None and _room_of(name) != own
        ]
    assert not bad, bad
