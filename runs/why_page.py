"""Everything the Why page (views/why.py) shows, as plain numbers: the logit lens and direct logit attribution of one
sentence, and the patching sweep of a clean / corrupted pair, with the example pair of each shipped model, the
numbers the page's verdict states, a per-pair cache and the export (.npz, CSV).

The probes are `transformer.probes.lens`, `.patching` and `.attribution`; this module only runs them and turns their
results into arrays and labels for `viz.why_figures` and the page.
"""

from __future__ import annotations

import csv
import io
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from hook_names import hook_name, ordinal, parse
from transformer.probes.attribution import attribute
from transformer.probes.lens import logit_lens
from transformer.probes.patching import patch
from transformer.probes.stream import Cancelled, ProbeRefusal, read_text
from transformer.storage.checkpoint import ModelBundle

# One pair per shipped model, the clean sentence first: each changes one word, the two runs write different tokens,
# and a head restores a real part of the difference (tests/runs/test_why_numbers.py measures every one).
EXAMPLES: dict[str, tuple[str, str]] = {
    "en-zh": ("The animal was too tired.", "The animal was too happy."),
    "zh-en": ("我打算明年出国。", "他打算明年出国。"),
    "translate-en-zh": ("i read a book in the library today", "you read a book in the library today"),
    "translate-zh-en": ("我今天在图书馆读一本书", "你今天在图书馆读一本书"),
    "translate-en-fr": ("the girl reads a french book in the garden", "the boy reads a french book in the garden"),
    "gpt-en-zh": ("The animal was too tired.", "The animal was too happy."),
    "gpt-translate-en-zh": ("i read a book in the library today", "i read a book in the garden today"),
    "reverse": ("hello 世界", "hellx 世界"),
    "induction": ("aKq7xbN3aKq", "aKq7xbM3aKq"),
}
CACHE_PAIRS = 16  # patching results kept per process (a sweep of a GPT-2-sized model takes minutes)


def example_pair(model_name: str) -> tuple[str, str] | None:
    """The shipped model's example pair, or None (a converted folder, a random model: the reader types one)."""
    return EXAMPLES.get(model_name)


@dataclass(frozen=True)
class LensTable:
    position: int  # from 1
    token: str  # what the model writes there
    names: list[str]  # hook names of the reads
    layers: list[int | None]  # 0-based; None: the embeddings
    parts: list[str]  # embeddings / self_attn / cross_attn / feed_forward
    layer_end: list[bool]
    p_token: np.ndarray  # (n_reads,)
    top_tokens: list[list[str]]
    top_probs: np.ndarray  # (n_reads, k)
    top_hex: list[list[str]] = field(default_factory=list)  # raw bytes of each top token ("" where it is text)


@dataclass(frozen=True)
class AttributionTable:
    position: int
    token: str
    logit: float
    names: list[str]  # components in the model's order: embeddings, heads and feed-forwards, biases
    shares: np.ndarray  # (n_components,)

    @property
    def total(self) -> float:
        return float(self.shares.sum())


@dataclass(frozen=True)
class SentenceView:
    """One sentence's run: what it writes, the lens and the attribution at one output position."""

    inputs: list[str]
    written: list[str]
    lens: LensTable
    attribution: AttributionTable | None
    attribution_refused: ProbeRefusal | None


@dataclass(frozen=True)
class PairView:
    """The patching sweep of one pair, as numbers and labels."""

    clean_inputs: list[str]
    corrupted_inputs: list[str]
    differs: list[int]  # input positions (0-based) where the two inputs read different tokens
    clean_written: list[str]
    corrupted_written: list[str]
    stream_tokens: list[str]  # the stream's positions (the decoder's input, or BERT's tokens)
    position: int
    row: int  # the output position's stream row
    target: str
    foil: str
    clean_diff: float
    corrupted_diff: float
    residual_names: list[str]
    residual: np.ndarray  # (n_layers + 1, T)
    modules: list[str]  # attention modules, each a row of `heads`
    heads: np.ndarray  # (n_modules, n_heads)
    stream_hex: list[str] = field(default_factory=list)  # raw bytes of each stream token ("e4 bd"; "" if text)

    def best_head(self) -> tuple[str, int, float]:
        """(module, head 0-based, restored fraction) of the head that restores the most."""
        flat = int(self.heads.argmax())
        m, h = divmod(flat, self.heads.shape[1])
        return self.modules[m], h, float(self.heads[m, h])

    def best_point(self) -> tuple[int, int, float]:
        """(residual row, position, fraction) restoring the most before the final row (which restores 1 at the
        output position by construction)."""
        inner = self.residual[:-1]
        r, p = np.unravel_index(int(inner.argmax()), inner.shape)
        return int(r), int(p), float(inner[r, p])


def sentence_view(bundle: ModelBundle, text: str, position: int | None = None) -> SentenceView:
    """The lens and the attribution of `text` at `position` (default: `logit_lens`'s). Raises ProbeRefusal."""
    reading = read_text(bundle, text)
    lens = logit_lens(bundle, text, position, reading=reading)
    table = LensTable(
        lens.position,
        lens.token,
        [r.name for r in lens.reads],
        [r.layer for r in lens.reads],
        [r.part for r in lens.reads],
        [r.layer_end for r in lens.reads],
        lens.p_token,
        [[t for t, _ in r.top] for r in lens.reads],
        np.array([[p for _, p in r.top] for r in lens.reads]),
        [r.top_hex for r in lens.reads],
    )
    try:
        shares = attribute(bundle, text, lens.position, reading=reading)
        attribution: AttributionTable | None = AttributionTable(
            shares.position, shares.token, shares.logit, list(shares.shares), np.array(list(shares.shares.values()))
        )
        refused = None
    except ProbeRefusal as err:
        attribution, refused = None, err
    return SentenceView(reading.input_tokens, reading.written, table, attribution, refused)


def pair_view(
    bundle: ModelBundle,
    clean: str,
    corrupted: str,
    position: int | None = None,
    target: str | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> PairView:
    """Patch `clean` into `corrupted` (`transformer.probes.patching.patch`). Raises ProbeRefusal or Cancelled."""
    result = patch(bundle, clean, corrupted, position, target, progress=progress, cancelled=cancelled)
    stream = result.clean.tgt if result.clean.tgt is not None else result.clean.src  # (1, T): the stream's ids
    return PairView(
        result.clean.input_tokens,
        result.corrupted.input_tokens,
        result.differs,
        result.clean.written,
        result.corrupted.written,
        result.clean.stream_tokens,
        result.position,
        result.row,
        result.target,
        result.foil,
        result.clean_diff,
        result.corrupted_diff,
        result.residual_names,
        result.residual,
        list(result.heads),
        np.stack(list(result.heads.values())),
        bundle.target_tokenizer.raw_bytes(stream[0].tolist()) if stream is not None else [],
    )


_CACHE: OrderedDict[tuple[object, ...], PairView] = OrderedDict()
_LOCK = threading.Lock()


def cached_pair(key: tuple[object, ...]) -> PairView | None:
    """The sweep of `key` = (model key, clean, corrupted, position, target) if this process computed it."""
    with _LOCK:
        view = _CACHE.get(key)
        if view is not None:
            _CACHE.move_to_end(key)
        return view


def remember_pair(key: tuple[object, ...], view: PairView) -> None:
    with _LOCK:
        _CACHE[key] = view
        _CACHE.move_to_end(key)
        while len(_CACHE) > CACHE_PAIRS:
            _CACHE.popitem(last=False)


def module_parts(module: str) -> tuple[str, int]:
    """An attention module → (kind, 0-based layer): "decoder.layers.2.cross_attn" → ("cross", 2)."""
    parsed = parse(hook_name(module, "z"))
    assert parsed.kind is not None and parsed.layer is not None
    return parsed.kind, parsed.layer


def export_arrays(pair: PairView | None, sentence: SentenceView) -> tuple[dict[str, np.ndarray], dict[str, list[str]]]:
    """The numbers the page shows, for `.npz` (arrays, and string labels beside them)."""
    arrays: dict[str, np.ndarray] = {"lens.p_token": sentence.lens.p_token, "lens.top_probs": sentence.lens.top_probs}
    labels: dict[str, list[str]] = {"lens.names": sentence.lens.names, "written": sentence.written}
    if sentence.attribution is not None:
        arrays["dla.shares"] = sentence.attribution.shares
        labels["dla.names"] = sentence.attribution.names
    if pair is not None:
        arrays["patch.residual"] = pair.residual
        arrays["patch.heads"] = pair.heads
        arrays["patch.diffs"] = np.array([pair.clean_diff, pair.corrupted_diff])
        labels |= {
            "patch.residual_names": pair.residual_names,
            "patch.modules": pair.modules,
            "patch.stream_tokens": pair.stream_tokens,
            "patch.target_foil": [pair.target, pair.foil],
        }
    return arrays, labels


def export_csv(pair: PairView | None, sentence: SentenceView) -> str:
    """One CSV of every number: measure, where (hook name or module), position or head (from 1), value."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["measure", "where", "index", "value"])
    for name, p in zip(sentence.lens.names, sentence.lens.p_token, strict=True):
        writer.writerow(["lens_p_token", name, sentence.lens.position, f"{p:.6g}"])
    if sentence.attribution is not None:
        for name, share in zip(sentence.attribution.names, sentence.attribution.shares, strict=True):
            writer.writerow(["dla_share", name, sentence.attribution.position, f"{share:.6g}"])
    if pair is not None:
        for name, row in zip(pair.residual_names, pair.residual, strict=True):
            for pos, value in enumerate(row):
                writer.writerow(["patch_residual", name, ordinal(pos), f"{value:.6g}"])
        for module, row in zip(pair.modules, pair.heads, strict=True):
            for head, value in enumerate(row):
                writer.writerow(["patch_head", module, ordinal(head), f"{value:.6g}"])
    return out.getvalue()


__all__ = [
    "EXAMPLES",
    "AttributionTable",
    "Cancelled",
    "LensTable",
    "PairView",
    "ProbeRefusal",
    "SentenceView",
    "cached_pair",
    "example_pair",
    "export_arrays",
    "export_csv",
    "module_parts",
    "pair_view",
    "remember_pair",
    "sentence_view",
]
