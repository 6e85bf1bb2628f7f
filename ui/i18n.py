"""One lookup for every user-visible string, in English and Simplified Chinese.

Catalogs are JSON files `assets/i18n/<lang>/<section>.json`; a key is "<section>.<name>", so each
page keeps its strings in its own file. Missing Chinese strings fall back to English (a test
checks there are none).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path

import streamlit as st

CATALOG_DIR = Path(__file__).resolve().parent.parent / "assets" / "i18n"
LANGUAGES: dict[str, str] = {"en": "English", "zh": "简体中文"}
DEFAULT_LANGUAGE = "en"
LANG_KEY = "lang"  # session-state key of the language switch (also its query parameter)


@functools.cache
def catalog(lang: str) -> dict[str, str]:
    """All strings of one language, keyed "<section>.<name>"."""
    strings: dict[str, str] = {}
    for path in sorted((CATALOG_DIR / lang).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        strings.update({f"{path.stem}.{name}": value for name, value in data.items()})
    return strings


def language_code(raw: object) -> str | None:
    """A language code from what a URL or an old link carries: the code ("zh", "EN"), a region variant
    ("zh-CN", "en_US") or the switch's display label ("简体中文"); None for anything else."""
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    for code, label in LANGUAGES.items():
        if text == label or text.lower().replace("_", "-").split("-")[0] == code:
            return code
    return None


def current_language() -> str:
    lang = st.session_state.get(LANG_KEY, DEFAULT_LANGUAGE)
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def t(key: str, **values: object) -> str:
    """The string `key` in the current language, with `{name}` placeholders filled from `values`."""
    text = catalog(current_language()).get(key) or catalog(DEFAULT_LANGUAGE).get(key) or key
    return text.format(**values) if values else text


def labels_of(names: dict) -> Callable[[object], str]:
    """A widget's `format_func` from labels translated now, while the script runs.

    A `format_func` that called `t` later (AppTest calls it outside any run) would see the default
    language and no longer find the option label it drew.
    """
    return names.__getitem__
