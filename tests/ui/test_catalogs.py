"""Both UI languages have every string, and no placeholder is lost in translation."""

import json
import string
from pathlib import Path

import pytest

CATALOGS = Path(__file__).resolve().parents[2] / "assets" / "i18n"
SECTIONS = sorted(p.stem for p in (CATALOGS / "en").glob("*.json"))


def _load(lang: str, section: str) -> dict[str, str]:
    return json.loads((CATALOGS / lang / f"{section}.json").read_text(encoding="utf-8"))


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_same_sections_in_both_languages():
    assert SECTIONS, "no English catalogs found"
    assert sorted(p.stem for p in (CATALOGS / "zh").glob("*.json")) == SECTIONS


@pytest.mark.parametrize("section", SECTIONS)
def test_same_keys_no_empty_values_same_placeholders(section):
    en, zh = _load("en", section), _load("zh", section)
    assert sorted(en) == sorted(zh), f"{section}: keys differ: {sorted(set(en) ^ set(zh))}"
    for key in en:
        assert isinstance(en[key], str) and en[key].strip(), f"en {section}.{key} is empty"
        assert isinstance(zh[key], str) and zh[key].strip(), f"zh {section}.{key} is empty"
        assert _placeholders(en[key]) == _placeholders(zh[key]), f"{section}.{key}: placeholders differ"


@pytest.mark.parametrize("section", SECTIONS)
def test_chinese_catalog_is_translated(section):
    """At least most Chinese strings contain CJK characters (catches copy-pasted English)."""
    zh = _load("zh", section)
    translated = [v for v in zh.values() if any("\u4e00" <= ch <= "\u9fff" for ch in v)]
    assert len(translated) >= 0.6 * len(zh), f"{section}: only {len(translated)}/{len(zh)} strings look Chinese"
