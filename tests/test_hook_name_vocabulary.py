"""Hook names are built by `hook_names.py` only: no f-string or string concatenation spells one.

A name like `decoder.layers.1.cross_attn.hook_pattern` follows from how `model.py` nests its modules;
spelled by hand in a dozen files, a renamed module would leave most of them silently reading nothing.
This test reads every .py file of the repository (its syntax tree, so comments and docstrings do not
count) and fails on a built string with a dotted token that contains a piece of that nesting. Plain
literals stay allowed: the golden name list (tests/transformer/test_capture.py) is one on purpose.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VOCABULARY = ROOT / "hook_names.py"
MARKERS = re.compile(r"layers\.|hook_|\.self_attn|\.cross_attn|sublayer\.")
HOLE = "\x00"  # where a built string has a value put in
DOTTED = re.compile(rf"[\w.{HOLE}]+")  # a token that reads as a module path, holes included
EDGES = "'\"(),;:[]"


def _text(parts: list[ast.expr]) -> str:
    """The constant text of a built string with every non-constant part replaced by a hole."""
    return "".join(p.value if _is_str(p) else HOLE for p in parts)


def _is_str(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _added(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _added(node.left) + _added(node.right)
    return [node]


def _built_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every f-string, `+` of strings, `%` formatting and `.format` call."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            found.append((node.lineno, _text(node.values)))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            parts = _added(node)
            if any(_is_str(p) for p in parts):
                found.append((node.lineno, _text(parts)))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_str(node.left):
            found.append((node.lineno, re.sub(r"%[sdr]", HOLE, node.left.value)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            if not _is_str(node.func.value):
                continue
            found.append((node.lineno, re.sub(r"\{[^{}]*\}", HOLE, node.func.value.value)))
    return found


def spelled_hook_names(source: str) -> list[tuple[int, str]]:
    """(line, text) of each built string in `source` that spells a hook name or module path by hand."""
    hits = []
    for line, text in _built_strings(ast.parse(source)):
        tokens = (tok.strip(EDGES) for tok in text.split())
        if any("." in tok and DOTTED.fullmatch(tok) and MARKERS.search(tok) for tok in tokens):
            hits.append((line, text.replace(HOLE, "{…}")))
    return hits


def _python_files() -> list[Path]:
    skip = {".git", ".venv", "venv", "node_modules", "__pycache__"}
    return sorted(p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts) and p != VOCABULARY)


@pytest.mark.parametrize(
    "code",
    [
        'f"decoder.layers.{i}.cross_attn.hook_pattern"',
        'f"{module}.hook_z"',
        'stack + ".layers." + str(i)',
        '"%s.hook_pattern" % module',
        '"{}.sublayer.{}".format(stack, i)',
        'f"decoder.layers.0.self_attn head {h}"',
    ],
)
def test_the_check_sees_a_hand_built_name(code: str) -> None:
    assert spelled_hook_names(code), code


@pytest.mark.parametrize(
    "code",
    [
        '"decoder.layers.1.cross_attn.hook_pattern"',  # a literal, as the golden list spells them
        'f"unknown hook names {bad}; see transformer.hooks.hook_names(model)"',  # names a function, builds no name
        'f"layer {layer}, head {head}"',
        'f"see hook_names for {what}"',  # a word, not a dotted path
    ],
)
def test_the_check_lets_literals_and_prose_pass(code: str) -> None:
    assert not spelled_hook_names(code), code


def test_no_file_spells_a_hook_name_by_hand() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in _python_files()
        for line, text in spelled_hook_names(path.read_text(encoding="utf-8"))
    ]
    assert not found, "build these with hook_names (act_name, hook_name, layer_module, head_label, …):\n" + "\n".join(found)
