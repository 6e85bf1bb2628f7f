"""Everything the LayerNorm page (views/layernorm.py) draws, one call per section.

The page has three independent sections (each a fragment with its own widgets), so three calls:

- `network`: LayerNorm statistics at every norm of one stack for the user's text, every norm's gain
  and bias (the site picker only chooses which one is drawn), the residual stream's norm;
- `norm_pair`: the same text through two random models that differ only in where the norm sits
  (post vs pre), compared by their residual-stream norms;
- `contrast`: LayerNorm vs BatchNorm on a padded batch of the user's sentences.

The captured activations come from the byte-bounded run caches (`ui.caches`), so these functions
take them as arguments; `capture`/`reads_text`/`pair_refs` say what to run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from runs.model_ref import ModelRef
from runs.teaching_arrays import layernorm_affine, norm_pair_settings, stack_reading_text
from transformer.storage.checkpoint import ModelBundle
from viz.batchnorm_contrast import Contrast, PaddedBatch
from viz.layernorm import StackStats, capture_names

POSITIONS = ("post", "pre")  # where the norm sits: LayerNorm(x + Sublayer(x)) or x + Sublayer(LayerNorm(x))


@dataclass(frozen=True)
class NetworkView:
    """Statistics at every LayerNorm of one stack for the user's text (batch item 0)."""

    stats: StackStats
    tokens: tuple[str, ...]
    affine: tuple[tuple[np.ndarray, np.ndarray], ...]  # per site of `stats.sites`: (gain (d,), bias (d,))
    d_model: int
    norm_position: str  # "post" or "pre"
    raw: tuple[str, ...] = ()  # each token's raw bytes as hex ("e4 bd"; "" where the label is the text), for a hover


@dataclass(frozen=True)
class NormPair:
    """Two random models with the same seed, post- and pre-norm, on the same text."""

    settings: Mapping[str, object]  # `runs.teaching_arrays.norm_pair_settings`
    stats: Mapping[str, StackStats]  # position → statistics of the stack that reads the text
    finals: Mapping[str, float]  # position → mean residual-stream norm at the last sublayer

    @property
    def d_model(self) -> int:
        return int(self.settings["d_model"])


@dataclass(frozen=True)
class BatchContrast:
    """LayerNorm vs BatchNorm on sentence 1 of a padded batch, and the feature to show."""

    contrast: Contrast
    feature: int  # the feature whose batch mean moves most when the last sentence joins


def capture(bundle: ModelBundle, stack: str) -> tuple[str, ...]:
    """The hook names the network section records for `stack`."""
    return capture_names(list(bundle.model.hook_names), stack)


def text_stack(bundle: ModelBundle) -> str:
    """The stack that reads the user's text: "encoder", or a decoder-only model's "decoder"."""
    return stack_reading_text(bundle)[0]


def reads_text(bundle: ModelBundle, stack: str) -> bool:
    """Whether `stack` reads the user's text (one padded forward pass) or the model's own output
    (an encoder-decoder's decoder: it needs the decoding run)."""
    return stack == text_stack(bundle)


def network(
    bundle: ModelBundle, stack: str, arrays: Mapping[str, np.ndarray], tokens: tuple[str, ...], raw: Sequence[str] = ()
) -> NetworkView:
    """The network section's numbers from `arrays` (the `capture(bundle, stack)` activations of one run); `raw`: the
    tokens' raw bytes (hex), carried for the hovers."""
    stats = StackStats.compute(arrays, list(bundle.model.hook_names), stack)
    return NetworkView(
        stats=stats,
        tokens=tuple(tokens),
        affine=tuple(layernorm_affine(bundle, site.prefix) for site in stats.sites),
        d_model=bundle.config.d_model,
        norm_position=bundle.config.norm_position,
        raw=tuple(raw),
    )


def pair_refs(bundle: ModelBundle, n_layers: int, seed: int) -> dict[str, str]:
    """position → model key of the two random models compared: the current model's shape at `n_layers`, one seed."""
    common = norm_pair_settings(bundle.config, n_layers, seed)
    return {position: ModelRef.random(norm_position=position, **common).key for position in POSITIONS}


def norm_pair(
    bundle: ModelBundle, n_layers: int, seed: int, pair: Mapping[str, tuple[ModelBundle, Mapping[str, PaddedBatch]]]
) -> NormPair:
    """The comparison from `pair`: position → (that model, its `capture(model, stack)` batch of the text)."""
    stack = text_stack(bundle)
    stats = {
        position: StackStats.compute({name: b.values for name, b in batch.items()}, list(model.model.hook_names), stack)
        for position, (model, batch) in pair.items()
    }
    return NormPair(
        settings=norm_pair_settings(bundle.config, n_layers, seed),
        stats=stats,
        finals={position: s.last_stream_norm(position) for position, s in stats.items()},
    )


def contrast(padded: PaddedBatch) -> BatchContrast:
    """Sentence 1 in the batch of the first n−1 sentences vs all n (`viz.batchnorm_contrast.Contrast`)."""
    c = Contrast.compute(padded)
    return BatchContrast(contrast=c, feature=c.most_shifted_feature())
