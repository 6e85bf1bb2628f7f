"""One convention for a figure's words (docs/DESIGN.md §4): every figure function takes them as one frozen
`*Text` dataclass, never as loose string keywords or a mapping with magic keys."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import typing

import plotly.graph_objects as go

import viz

NOT_WORDS = {"fmt"}  # a number format, the same in every language


def _figure_functions():
    """Every public viz function that makes a figure (helpers that take a `fig` and finish it are not)."""
    for info in pkgutil.iter_modules(viz.__path__):
        module = importlib.import_module(f"viz.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if fn.__module__ != module.__name__ or name.startswith("_"):
                continue
            hints = typing.get_type_hints(fn)
            if hints.get("return") is go.Figure and "fig" not in inspect.signature(fn).parameters:
                yield f"{module.__name__}.{name}", hints


def _is_words(annotation: object) -> bool:
    """A plain string, a tuple of strings or a str → str mapping: words passed one by one."""
    if annotation is str:
        return True
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is tuple:
        return bool(args) and all(a is str or a is Ellipsis for a in args)
    return origin is not None and "Mapping" in str(origin) and args == (str, str)


def test_figures_take_their_words_as_one_text_record():
    figures = list(_figure_functions())
    assert len(figures) > 30
    for name, hints in figures:
        loose = [p for p, a in hints.items() if p not in NOT_WORDS | {"return"} and _is_words(a)]
        assert not loose, f"{name} takes words {loose} outside its *Text"
        texts = [a for p, a in hints.items() if p != "return" and dataclasses.is_dataclass(a) and a.__name__.endswith("Text")]
        assert len(texts) == 1 and texts[0].__dataclass_params__.frozen, f"{name} takes no one frozen *Text"
