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
    return [f"{package}.{m.name}" for m in pkgutil.iter_modules([str(ROOT / package)]) if m.name != "__main__"]


def _loaded_after_importing(modules: list[str], check: str) -> subprocess.CompletedProcess:
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + check
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=180)


def test_below_ui_nothing_loads_streamlit_or_the_app():
    result = _loaded_after_importing(
        _modules("transformer") + _modules("runs") + _modules("viz"),
        "bad = [m for m in sys.modules if m.split('.')[0] in ('streamlit', 'ui', 'views')]\nassert not bad, bad\n",
    )
    assert result.returncode == 0, result.stderr + result.stdout


def test_importing_viz_loads_neither_torch_nor_the_model():
    result = _loaded_after_importing(
        _modules("viz"),
        "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'transformer')]\nassert not bad, bad\n",
    )
    assert result.returncode == 0, result.stderr + result.stdout


def test_the_command_line_has_no_import_circle():
    """`python -m transformer` once imported train → train_cli → __main__ (a circle); now one way."""
    for path in _files("transformer"):
        if path.name != "__main__.py":
            assert "transformer.__main__" not in _imports(path), path


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


CLI_MODULES = {"transformer.__main__", "transformer.train_cli", "transformer.importance_cli"}


def test_no_command_line_module_is_imported_below_the_command_line():
    """The pages and the library read recipes from the tasks (`transformer.tasks.recipes`), never from the CLI."""
    bad = [
        f"{path.relative_to(ROOT)}: {name}"
        for package in ("transformer", "runs", "viz", "ui", "views")
        for path in _files(package)
        if ".".join(path.relative_to(ROOT).with_suffix("").parts) not in CLI_MODULES
        for name in _imports(path)
        if name in CLI_MODULES or any(name.startswith(f"{cli}.") for cli in CLI_MODULES)
    ]
    assert not bad, bad


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
