"""Finding shipped models by name, and building seeded random ones.

Shipped models live in `assets/models/<name>/` (see `checkpoint.py` for the folder layout).
A "random" model has the same architecture with untrained weights: useful to compare against a
trained one, and to explore configs no one has trained.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from transformer.config import TransformerConfig
from transformer.hf.folder import looks_pretrained
from transformer.model import Transformer
from transformer.storage.checkpoint import CARD_JSON, CONFIG, CheckpointError, ModelBundle, load_checkpoint, read_card
from transformer.tasks import get_task
from transformer.tasks.recipes import RECIPES
from transformer.text.tokenizer import CharTokenizer

MODELS_DIR = Path(__file__).resolve().parents[2] / "assets" / "models"
DEFAULT_MODEL = "en-zh"  # issue 20: a newcomer meets the translator of everyday English
RANDOM = "random"
MAX_SEED = 2**64 - 1  # torch.manual_seed takes a 64-bit unsigned seed
# Shipped models are named after their task; each task's recipe names the shipped model of the same data with the
# other architecture (one sentence through both shows cross-attention becoming self-attention over the prompt) and
# the one translating it the other way round (a class that types Chinese into an English reader is offered it).
COUNTERPARTS: dict[str, str] = {name: r.counterpart for name, r in RECIPES.items() if r.counterpart}
OTHER_DIRECTION: dict[str, str] = {name: r.other_direction for name, r in RECIPES.items() if r.other_direction}


def other_direction(name: str) -> str | None:
    """The shipped model that translates `name`'s data the other way round, if one is shipped."""
    other = OTHER_DIRECTION.get(name)
    return other if other is not None and (MODELS_DIR / other / CONFIG).is_file() else None


def counterpart(name: str) -> str | None:
    """The shipped model that does `name`'s task with the other architecture, if there is one."""
    return COUNTERPARTS.get(name)


@dataclass(frozen=True)
class ModelInfo:
    name: str
    path: Path
    card: dict[str, Any]


def list_models(root: Path = MODELS_DIR) -> list[ModelInfo]:
    """Shipped model folders under `root` (those with a config.json), sorted by name."""
    if not root.is_dir():
        return []
    infos = []
    for folder in sorted(p for p in root.iterdir() if (p / CONFIG).is_file()):
        infos.append(ModelInfo(folder.name, folder, read_card(folder / CARD_JSON)[0]))
    return infos


def resolve_model(name_or_path: str | Path, root: Path = MODELS_DIR) -> Path:
    """A shipped model's name or a checkpoint folder's path → that folder."""
    candidate = Path(name_or_path)
    if candidate.is_dir():
        return candidate
    named = root / str(name_or_path)
    if named.is_dir() and str(name_or_path) not in ("", ".", ".."):
        return named
    known = ", ".join(info.name for info in list_models(root)) or "none shipped yet"
    raise CheckpointError(f"no model named {str(name_or_path)!r}; known models: {known}; or pass a checkpoint folder")


def load_model(name_or_path: str | Path, root: Path = MODELS_DIR) -> ModelBundle:
    """Load a shipped model by name, or any checkpoint folder by path: the project's own, or a pretrained
    GPT-2, BERT or Marian folder (or Hugging Face cache folder), converted (`transformer.hf`)."""
    folder = resolve_model(name_or_path, root)
    if looks_pretrained(folder):
        from transformer.hf.load import load_pretrained  # torch-heavy conversion code, only when a folder needs it

        return load_pretrained(folder)
    return load_checkpoint(folder)


def default_symbols() -> list[str]:
    """The character vocabulary of random models: the char tasks' alphabet (ASCII + common hanzi)."""
    return list(get_task("reverse").source_vocabulary())


def check_seed(seed: int) -> int:
    """`seed` if torch.manual_seed can take it (0..MAX_SEED); otherwise a clear ValueError instead of
    torch's "Overflow when unpacking long long"."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an integer from 0 to {MAX_SEED} (2**64 - 1)")
    return seed


def random_bundle(config: TransformerConfig | None = None, seed: int = 0, symbols: Iterable[str] | None = None) -> ModelBundle:
    """An untrained model with a character tokenizer; the same seed gives the same weights.

    The config's vocabulary sizes are replaced by the tokenizer's.

    Raises:
        ValueError: a seed outside 0..MAX_SEED (see `check_seed`).
    """
    check_seed(seed)
    tokenizer = CharTokenizer(default_symbols() if symbols is None else symbols)
    config = (config or TransformerConfig()).replace(src_vocab_size=len(tokenizer), tgt_vocab_size=len(tokenizer))
    generator_state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        model = Transformer(config).eval()
    finally:
        torch.random.set_rng_state(generator_state)
    source = tokenizer if config.is_encoder_decoder else None
    card = {"task": RANDOM, "seed": seed, "summary": "untrained weights (seeded)"}
    return ModelBundle(model, tokenizer, source, card, name=RANDOM)
