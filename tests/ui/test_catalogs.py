"""Both UI languages have every string the code asks for, and no placeholder is lost in translation."""

import json
import re
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


# ---- every key the code asks for exists in both catalogs -----------------------------------------

ROOT = Path(__file__).resolve().parents[2]
_LITERAL = re.compile(r"""\bt\(\s*(["'])([a-z_]+\.[A-Za-z0-9_]+)\1""")  # t("heads.title")
_FAMILY = re.compile(r"""\bt\(\s*f(["'])([a-z_]+\.[A-Za-z0-9_]*)\{""")  # t(f"heads.metric_{m}") → "heads.metric_"


def _sources() -> list[Path]:
    return [ROOT / "app.py", *sorted((ROOT / "ui").glob("*.py")), *sorted((ROOT / "views").glob("*.py"))]


def _all_keys(lang: str) -> set[str]:
    return {f"{path.stem}.{name}" for path in (CATALOGS / lang).glob("*.json") for name in _load(lang, path.stem)}


def test_every_key_the_code_uses_exists_in_both_catalogs():
    """A missing key would show as the key itself ("heads.titel"): find it here instead."""
    used = {m.group(2): path.name for path in _sources() for m in _LITERAL.finditer(path.read_text(encoding="utf-8"))}
    assert len(used) > 100, "the pattern no longer finds the code's keys"
    for lang in ("en", "zh"):
        missing = sorted(f"{key} ({where})" for key, where in used.items() if key not in _all_keys(lang))
        assert not missing, f"{lang}: {missing}"


def test_every_key_family_the_code_builds_has_keys_in_both_catalogs():
    """`t(f"heads.metric_{m}")`: some key must start with "heads.metric_" (the family exists)."""
    families = {m.group(2): path.name for path in _sources() for m in _FAMILY.finditer(path.read_text(encoding="utf-8"))}
    assert families, "the pattern no longer finds the code's f-string keys"
    for lang in ("en", "zh"):
        keys = _all_keys(lang)
        missing = sorted(
            f"{family}… ({where})" for family, where in families.items() if not any(key.startswith(family) for key in keys)
        )
        assert not missing, f"{lang}: {missing}"
