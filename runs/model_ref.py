"""Which model a page runs, as a hashable value: a shipped name, a checkpoint folder, or random weights.

The URL and the caches carry a model as a string key: a shipped model's name (or a checkpoint
folder), or "random?architecture=...&d_model=64&...&seed=0" for untrained weights. `ModelRef`
is that key parsed, so code asks `ref.is_random` instead of looking at string prefixes, and
`ModelRef.parse(ref.key) == ref`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from runs.pretrained import PRETRAINED_PREFIX, load_pretrained_named
from transformer.config import TransformerConfig
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import RANDOM, list_models, load_model, random_bundle
from transformer.tasks import get_task

TRAINED_PREFIX = "trained:"  # "trained:<job id>": a model trained on the training page (runs.training.registry)
Loader = Callable[[str], ModelBundle]
_LOADERS: dict[str, Loader] = {}  # key prefix → loader, filled by the layers that own such models
RANDOM_DEFAULTS: dict[str, object] = {
    "architecture": "encoder-decoder",
    "n_layers": 2,
    "d_model": 64,
    "n_heads": 4,
    "norm_position": "post",
    "positional": "sinusoidal",
    "seed": 0,
    "max_len": 512,  # the base config's length (TransformerConfig.base), so 511 characters + <eos> fit
}


@dataclass(frozen=True)
class ModelRef:
    """A model reference: `source` names a shipped model or a checkpoint folder, or is "random";
    a random model's `settings` are its sorted (name, value) pairs (config fields and the seed)."""

    source: str
    settings: tuple[tuple[str, object], ...] = ()

    @classmethod
    def random(cls, **settings: object) -> ModelRef:
        """Untrained weights: RANDOM_DEFAULTS overridden by `settings`."""
        return cls(RANDOM, tuple(sorted({**RANDOM_DEFAULTS, **settings}.items())))

    @classmethod
    def parse(cls, key: str) -> ModelRef:
        """A key as the URL and caches carry it ("translate-en-zh", "random?d_model=64&...")."""
        name, _, query = key.partition("?")
        if name != RANDOM:
            return cls(key)
        settings: dict[str, object] = {}
        for field_name, raw in parse_qsl(query):
            try:
                settings[field_name] = json.loads(raw)
            except json.JSONDecodeError:
                settings[field_name] = raw
        return cls.random(**settings)

    @property
    def is_random(self) -> bool:
        return self.source == RANDOM

    @property
    def key(self) -> str:
        """The string form, stable for equal settings: "random?architecture=...&d_model=64&..."."""
        return f"{RANDOM}?{urlencode(self.settings)}" if self.is_random else self.source

    def random_config(self) -> tuple[TransformerConfig, int]:
        """(config, seed) of a random model; d_ff is 4·d_model (the paper's ratio), no dropout."""
        settings = dict(self.settings)
        seed = int(settings.pop("seed", 0))  # type: ignore[call-overload]
        settings["d_ff"] = 4 * int(settings["d_model"])  # type: ignore[call-overload]
        settings["dropout"] = 0.0
        return TransformerConfig.from_dict(settings), seed


def random_key(**settings: object) -> str:
    """`ModelRef.random(**settings).key`: the key of untrained weights with these settings."""
    return ModelRef.random(**settings).key


def register_loader(prefix: str, loader: Loader) -> None:
    """Let `load_bundle` hand keys starting with `prefix` to `loader`.

    The training registry registers the models it trains ("trained:<job id>") this way, so this
    module, which the registry itself imports, never imports the registry back (no import circle).
    """
    _LOADERS[prefix] = loader


def trained_model_gone(key: str) -> str:
    """The message for a "trained:" key whose job this server does not hold (restarted, forgotten)."""
    return f"{key}: this trained model is gone (the server restarted or forgot it); train it again"


def load_bundle(ref: ModelRef) -> ModelBundle:
    """Load (or, for random weights, build) the model a reference names. Raises CheckpointError/ValueError."""
    if ref.is_random:
        config, seed = ref.random_config()
        return random_bundle(config, seed=seed)
    for prefix, loader in _LOADERS.items():
        if ref.source.startswith(prefix):
            return loader(ref.source)
    if ref.source.startswith(PRETRAINED_PREFIX):  # a folder of this server's models dirs, by name only
        return load_pretrained_named(ref.source)
    if ref.source.startswith(TRAINED_PREFIX):  # no training registry loaded yet: this server trained nothing
        raise ValueError(trained_model_gone(ref.source))
    return load_model(ref.source)


def is_untrained(bundle: ModelBundle) -> bool:
    return bundle.card.get("task") == RANDOM


@functools.lru_cache(maxsize=1)
def shipped_models() -> tuple[str, ...]:
    """Shipped model names: the natural translators first, then the grammar demos (each group by name).

    Read once per process: shipped models do not change while serving, and the model picker asks on every rerun,
    where reading the eight cards was 4 % of a class's burst (each file read lets another session's thread take
    the interpreter, and waiting to get it back costs more than the read)."""
    infos = list_models()
    return tuple(info.name for info in infos if not is_grammar_demo(info.card)) + tuple(
        info.name for info in infos if is_grammar_demo(info.card)
    )


def is_grammar_demo(card: dict[str, Any]) -> bool:
    """A model of a generated task (a toy grammar, reversing, induction), not of real sentences: the picker says so."""
    try:
        return not hasattr(get_task(str(card.get("task", ""))), "references")
    except ValueError:
        return False
