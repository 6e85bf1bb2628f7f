"""What each head does across many sentences: its detector scores over a sentence set, and where they peak.

One sentence shows where a head looks once; a set of sentences shows what it does. For every sentence the model
is run as the heads page runs it (`trace_text`: a trained model decodes greedily, then its output is read
teacher-forced; an untrained one is teacher-forced on the text), every attention pattern is captured, and each
head gets the per-head scores of `transformer.probes.head_scores` on that sentence alone (`ATLAS_SCORE_NAMES`,
the ones that need no gold alignment; cross-attention only the ones meaningful between two sequences). Across
the set a head then has, per score, a mean and a spread (the standard deviation over the sentences where the
score applies: induction and duplicate token need a token that repeats) and its top sentences, highest first.

A head's *chosen* score is the behaviour it shows most: the largest mean among `BEHAVIOUR_SCORE_NAMES` (entropy
describes a row's shape, not a behaviour, so it never is); its "top" sentences are the chosen score's.

The shipped models store the result beside their weights (`atlas.json`, `python -m transformer atlas --model M`,
computed on a seeded held-out sample of the model's task); a model without a task (a converted folder) is read on
the bundled sentence set (`assets/atlas/sentences.json`, Tatoeba, CC BY 2.0 FR), and says so (`source`).
Pure torch + NumPy: the run layer (`runs.atlas_page`) caches and shows it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hook_names import act_name, attn_module
from transformer.engine.decoding import trace_text
from transformer.probes.head_scores import (
    ANTI_DIAGONAL,
    DIAGONAL,
    DUPLICATE_TOKEN,
    ENTROPY,
    FIRST_TOKEN,
    INDUCTION,
    PREVIOUS_TOKEN,
    ScoreName,
    head_scores,
    names_for,
)
from transformer.storage.checkpoint import ModelBundle, attention_kinds
from transformer.storage.registry import MODELS_DIR

ATLAS_JSON = "atlas.json"
ATLAS_VERSION = 1
BUNDLED_SENTENCES = MODELS_DIR.parent / "atlas" / "sentences.json"
HELDOUT, BUNDLED = "heldout", "bundled"  # where a set of sentences came from (`Atlas.source`)
TOP_K = 5  # sentences kept per head and score
MAX_TEXT_CHARS = 200  # a stored sentence is cut here (held-out sentences are far shorter)

ATLAS_SCORE_NAMES: tuple[ScoreName, ...] = (
    PREVIOUS_TOKEN,
    INDUCTION,
    DUPLICATE_TOKEN,
    FIRST_TOKEN,
    DIAGONAL,
    ANTI_DIAGONAL,
    ENTROPY,
)
"""The scores a corpus page shows, in table order: every per-head score that needs no gold alignment."""
BEHAVIOUR_SCORE_NAMES: tuple[ScoreName, ...] = tuple(n for n in ATLAS_SCORE_NAMES if n != ENTROPY)
"""The scores a head's chosen score is picked from (weights on a position, 0..1; entropy is in bits)."""

Progress = Callable[[int, int], None]
"""Called as progress(done, total) after each sentence (and once with done = 0 before the first)."""


def head_key(kind: str, layer: int, head: int) -> str:
    """A head's key in `atlas.json`: its attention hook name prefix and 0-based head index,
    e.g. ("cross", 1, 2) → "decoder.layers.1.cross_attn.2"."""
    return f"{attn_module(kind, layer)}.{head}"


def bundled_sentences(path: Path = BUNDLED_SENTENCES) -> list[str]:
    """The bundled English + Chinese sentence set (its provenance and licence are in the file)."""
    return [row["text"] for row in json.loads(path.read_text(encoding="utf-8"))["sentences"]]


def heldout_sentences(bundle: ModelBundle, n: int, seed: int = 0) -> list[str] | None:
    """`n` held-out source sentences of the model's task (seeded), distinct; None if the model has no task."""
    from transformer.probes.importance import sample  # the one place a model's held-out sample is drawn

    try:
        examples = sample(bundle, n, seed)
    except ValueError:
        return None
    return list(dict.fromkeys(e.source for e in examples)) or None


@dataclass(frozen=True)
class SentenceScores:
    """Every head's scores on every sentence of a set.

    Attributes:
        texts: the sentences, in order (as the model read them: cut to its length).
        heads: (kind, layer, head) per column, in the order of `attention_kinds`, layer, head.
        names: the score names, in `ATLAS_SCORE_NAMES` order.
        scores: (N, S, heads) float64; NaN where a score does not apply (a cross head's previous token, no repeat).
    """

    texts: tuple[str, ...]
    heads: tuple[tuple[str, int, int], ...]
    names: tuple[ScoreName, ...]
    scores: np.ndarray


def pattern_hooks(bundle: ModelBundle) -> list[str]:
    """Hook names of every attention pattern of `bundle`, kind by kind, layer by layer."""
    return [act_name(kind, layer, "pattern") for kind in attention_kinds(bundle) for layer in range(bundle.config.n_layers)]


def _ids(trace: Any, kind: str) -> list[int]:
    """The query ids of `kind` in a trace (the encoder's for "encoder", the decoder's otherwise)."""
    return list(trace.src_ids if kind == "encoder" else trace.tgt_ids)


def sentence_scores(
    bundle: ModelBundle,
    texts: Sequence[str],
    *,
    generate: bool = True,
    progress: Progress | None = None,
) -> SentenceScores:
    """Run `bundle` on each text (as `trace_text(generate=...)` does for the heads page) and score every head."""
    if not texts:
        raise ValueError("the atlas needs at least one sentence")
    kinds = attention_kinds(bundle)
    n_layers, n_heads = bundle.config.n_layers, bundle.config.n_heads
    heads = tuple((kind, layer, head) for kind in kinds for layer in range(n_layers) for head in range(n_heads))
    names = ATLAS_SCORE_NAMES
    scores = np.full((len(texts), len(names), len(heads)), np.nan)  # (N, S, heads)
    read: list[str] = []
    hooks = pattern_hooks(bundle)
    model = bundle.model
    was_training = model.training
    model.eval()
    if progress:
        progress(0, len(texts))
    try:
        for i, text in enumerate(texts):
            trace = trace_text(bundle, text, names=hooks, generate=generate)
            read.append(trace.text)
            for k, kind in enumerate(kinds):
                stack = [trace.cache[act_name(kind, layer, "pattern")][0].float().numpy() for layer in range(n_layers)]
                tokens = None if kind == "cross" else _ids(trace, kind)
                table = head_scores(stack, tokens=tokens, names=names_for(names, kind))
                columns = slice(k * n_layers * n_heads, (k + 1) * n_layers * n_heads)  # this kind's heads
                for name in table.names:
                    scores[i, names.index(name), columns] = table.score(name).ravel()
            if progress:
                progress(i + 1, len(texts))
    finally:
        model.train(was_training)
    return SentenceScores(tuple(read), heads, names, scores)


def _number(x: float) -> float | None:
    """A score as JSON keeps it: 4 decimals, None where it does not apply."""
    return None if not math.isfinite(x) else round(float(x), 4)


def top_sentences(texts: Sequence[str], values: np.ndarray, k: int = TOP_K) -> list[dict[str, Any]]:
    """The `k` sentences where `values` (N,) is highest, highest first (NaN never counts; ties by set order)."""
    finite = np.flatnonzero(np.isfinite(values))
    order = finite[np.argsort(-values[finite], kind="stable")][:k]
    return [{"text": texts[i][:MAX_TEXT_CHARS], "score": _number(values[i]), "index": int(i)} for i in order]


@dataclass(frozen=True)
class Atlas:
    """A model's corpus table: every head's mean and spread of each score and its top sentences (`atlas.json`).

    `heads` maps `head_key(kind, layer, head)` to {"kind", "layer", "head" (0-based), "scores": {name: mean},
    "spread": {name: std}, "n": {name: sentences where it applies}, "chosen": name, "top": [{"text", "score",
    "index"}...] of the chosen score, "top_by_score": {name: [...]}}.
    """

    model: str
    source: str  # HELDOUT or BUNDLED
    n_sentences: int
    seed: int
    names: tuple[str, ...]
    heads: dict[str, dict[str, Any]]
    generated: bool = True  # the decoder read its own greedy output (False: teacher-forced on the text)
    version: int = ATLAS_VERSION
    fingerprint: str = ""
    texts: tuple[str, ...] = ()  # the sentences read, in order (a top sentence's "index" is its place here)
    extra: dict[str, Any] = field(default_factory=dict)

    def head(self, kind: str, layer: int, head: int) -> dict[str, Any]:
        return self.heads[head_key(kind, layer, head)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "model": self.model,
            "source": self.source,
            "n_sentences": self.n_sentences,
            "seed": self.seed,
            "generated": self.generated,
            "fingerprint": self.fingerprint,
            "names": list(self.names),
            "heads": self.heads,
            "sentences": list(self.texts),
            **({"extra": self.extra} if self.extra else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Atlas:
        if data.get("version") != ATLAS_VERSION or not isinstance(data.get("heads"), dict):
            raise ValueError("not an atlas of this version")
        return cls(
            model=str(data["model"]),
            source=str(data["source"]),
            n_sentences=int(data["n_sentences"]),
            seed=int(data.get("seed", 0)),
            names=tuple(data["names"]),
            heads=data["heads"],
            generated=bool(data.get("generated", True)),
            fingerprint=str(data.get("fingerprint", "")),
            texts=tuple(str(t) for t in data.get("sentences", ())),
            extra=dict(data.get("extra", {})),
        )


def summarize(run: SentenceScores, *, model: str, source: str, seed: int = 0, generated: bool = True, k: int = TOP_K) -> Atlas:
    """`run`'s per-sentence scores → the stored table (means, spreads, chosen score, top sentences)."""
    heads: dict[str, dict[str, Any]] = {}
    for column, (kind, layer, head) in enumerate(run.heads):
        values = run.scores[:, :, column]  # (N, S)
        applies = np.isfinite(values)
        count = applies.sum(axis=0)  # (S,)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(count > 0, np.nansum(values, axis=0) / np.maximum(count, 1), np.nan)
            spread = np.array([np.nanstd(values[:, s]) if count[s] else np.nan for s in range(len(run.names))])
        kept = {name: s for s, name in enumerate(run.names) if count[s] > 0}
        behaviours = [n for n in BEHAVIOUR_SCORE_NAMES if n in kept]
        chosen = max(behaviours, key=lambda n: mean[kept[n]]) if behaviours else next(iter(kept), None)
        by_score = {name: top_sentences(run.texts, values[:, s], k) for name, s in kept.items()}
        heads[head_key(kind, layer, head)] = {
            "kind": kind,
            "layer": layer,
            "head": head,
            "scores": {name: _number(mean[s]) for name, s in kept.items()},
            "spread": {name: _number(spread[s]) for name, s in kept.items()},
            "n": {name: int(count[s]) for name, s in kept.items()},
            "chosen": chosen,
            "top": by_score.get(chosen, []) if chosen else [],
            "top_by_score": by_score,
        }
    texts = tuple(t[:MAX_TEXT_CHARS] for t in run.texts)
    return Atlas(model, source, len(run.texts), seed, tuple(run.names), heads, generated, texts=texts)


def build_atlas(
    bundle: ModelBundle,
    texts: Sequence[str],
    *,
    source: str,
    seed: int = 0,
    generate: bool = True,
    progress: Progress | None = None,
    fingerprint: str = "",
) -> Atlas:
    """Score every head of `bundle` on `texts` and summarize (see the module docstring)."""
    run = sentence_scores(bundle, texts, generate=generate, progress=progress)
    atlas = summarize(run, model=bundle.name, source=source, seed=seed, generated=generate)
    return Atlas(**{**atlas.__dict__, "fingerprint": fingerprint})


def save_atlas(atlas: Atlas, path: Path) -> None:
    """Write `atlas` as compact JSON (a shipped model's must stay under 1 MB)."""
    path.write_text(json.dumps(atlas.to_dict(), ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def load_atlas(path: Path) -> Atlas | None:
    """The atlas stored at `path`, or None if there is none or it cannot be read as one."""
    try:
        return Atlas.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
