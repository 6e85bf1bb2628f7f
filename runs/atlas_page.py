"""What the corpus pages (views/atlas.py) show of a model: its atlas (stored, or computed and cached on disk), the
head finder's rows and filter, and the heads-page link of a head on one sentence.

A shipped model's atlas is read from `atlas.json` beside its weights (computed on its held-out sentences by
`python -m transformer atlas`), so the page opens instantly. Any other model (a converted folder, a model trained
in this session, random weights) is computed on demand: on its task's held-out sentences if it has a task, else on
the bundled sentence set (`transformer.probes.atlas.BUNDLED_SENTENCES`), and cached on disk in the user's data
folder (`cache_dir()`: `<data dir>/attention-atlas/atlas-cache/`, never inside a models dir the user named), keyed by
a hash of the weights and the sentences, so a second visit opens instantly too.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from hook_names import ordinal
from runs.model_ref import is_untrained, shipped_models
from transformer.probes.atlas import (
    ATLAS_JSON,
    BUNDLED,
    HELDOUT,
    Atlas,
    Progress,
    build_atlas,
    bundled_sentences,
    heldout_sentences,
    load_atlas,
    save_atlas,
)
from transformer.probes.importance import fingerprint
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import MODELS_DIR

CACHE_ENV = "ATLAS_CACHE_DIR"  # where computed atlases go (tests point it at a temporary folder)
ON_DEMAND_N = 40  # held-out sentences for a model that has a task but no stored atlas (as the shipped ones)


def cache_dir() -> Path:
    """`$ATLAS_CACHE_DIR`, else `atlas-cache/` in the user's data folder (the class mode's, `runs.classroom_store`)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    from runs.classroom_store import default_dir  # the one place the user's data folder is named

    return default_dir() / "atlas-cache"


def stored_atlas(model_key: str) -> Atlas | None:
    """A shipped model's precomputed atlas, or None (not shipped, or no readable file)."""
    if model_key not in shipped_models():
        return None
    return load_atlas(MODELS_DIR / model_key / ATLAS_JSON)


def atlas_sentences(bundle: ModelBundle) -> tuple[list[str], str]:
    """(sentences, source) a model without a stored atlas is read on: its held-out set, else the bundled set."""
    texts = None if is_untrained(bundle) else heldout_sentences(bundle, ON_DEMAND_N)
    return (texts, HELDOUT) if texts else (bundled_sentences(), BUNDLED)


def cache_path(bundle: ModelBundle, texts: Sequence[str]) -> Path:
    """Where the atlas of these weights on these sentences is cached."""
    digest = hashlib.sha256(fingerprint(bundle).encode())
    digest.update(json.dumps(list(texts), ensure_ascii=False).encode())
    digest.update(str(is_untrained(bundle)).encode())
    return cache_dir() / f"{digest.hexdigest()[:24]}.json"


def cached_atlas(bundle: ModelBundle) -> Atlas | None:
    """The on-demand atlas if it was computed before (on disk), else None: the page then offers to compute it."""
    texts, _ = atlas_sentences(bundle)
    return load_atlas(cache_path(bundle, texts))


def compute_atlas(bundle: ModelBundle, progress: Progress | None = None) -> Atlas:
    """Compute the atlas of a model without a stored one and cache it on disk (a failed write only loses the cache)."""
    texts, source = atlas_sentences(bundle)
    atlas = build_atlas(
        bundle, texts, source=source, generate=not is_untrained(bundle), progress=progress, fingerprint=fingerprint(bundle)
    )
    path = cache_path(bundle, texts)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        save_atlas(atlas, tmp)
        tmp.replace(path)
    except OSError:
        pass
    return atlas


@dataclass(frozen=True)
class HeadRow:
    """One row of the head finder: a head and its corpus means (layer and head 0-based, shown from 1)."""

    key: str
    kind: str
    layer: int
    head: int
    scores: dict[str, float | None]
    chosen: str | None


def head_rows(atlas: Atlas) -> list[HeadRow]:
    """Every head of the atlas, in stored order (kind, layer, head)."""
    return [
        HeadRow(key, h["kind"], int(h["layer"]), int(h["head"]), dict(h["scores"]), h.get("chosen"))
        for key, h in atlas.heads.items()
    ]


def filter_rows(
    rows: Sequence[HeadRow],
    *,
    score: str | None = None,
    at_least: float | None = None,
    layers: tuple[int, int] | None = None,
    kinds: Sequence[str] | None = None,
) -> list[HeadRow]:
    """The rows whose `score` mean is ≥ `at_least` (a head without that score never passes), in layers
    `layers` (first, last) counted from 1 as the page shows them, of `kinds`; sorted by `score`, highest first."""
    kept = []
    for row in rows:
        if kinds is not None and row.kind not in kinds:
            continue
        if layers is not None and not layers[0] <= ordinal(row.layer) <= layers[1]:
            continue
        value = row.scores.get(score) if score else None
        if at_least is not None and (value is None or value < at_least):
            continue
        kept.append(row)
    if score:
        kept.sort(key=lambda r: -(r.scores.get(score) if r.scores.get(score) is not None else float("-inf")))
    return kept


def heads_query(model_key: str, text: str, kind: str, layer: int, head: int, lang: str | None = None) -> dict[str, str]:
    """The heads page's URL parameters that open `text` with head (kind, layer, head) enlarged (layer and head
    0-based here; the URL counts from 1, as the page does)."""
    params = {"model": model_key, "text": text, "kind": kind, "layer": str(ordinal(layer)), "head": str(ordinal(head))}
    if lang and lang != "en":
        params["lang"] = lang
    return params


def heads_url(model_key: str, text: str, kind: str, layer: int, head: int, lang: str | None = None) -> str:
    """`heads_query` as a relative link ("heads?model=…")."""
    return "heads?" + urlencode(heads_query(model_key, text, kind, layer, head, lang))
