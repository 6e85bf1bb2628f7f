"""Save and load a model directory: weights in safetensors, everything else in JSON.

A checkpoint is a folder:

    model.safetensors   the state dict (float32), no pickle: loading cannot run code
    config.json         TransformerConfig fields
    vocab.json          {"source": tokenizer, "target": tokenizer} ("source" absent for decoder-only)
    card.json           machine-readable facts (task, metrics, training time, command)
    card.md             the human-readable model card

Loading trusts nothing in the folder: every file is checked and every failure becomes a
`CheckpointError` that says which file is wrong and how.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save_file

from transformer.config import TransformerConfig
from transformer.model import Transformer
from transformer.tokenizer import Tokenizer

WEIGHTS, CONFIG, VOCAB, CARD_JSON, CARD_MD = "model.safetensors", "config.json", "vocab.json", "card.json", "card.md"
MAX_WEIGHTS_BYTES = 1 << 30  # 1 GiB: far above any model this app ships; refuses absurd files early
MAX_JSON_BYTES = 16 << 20


class CheckpointError(ValueError):
    """A checkpoint folder that is missing, corrupt, truncated or does not match its config."""


@dataclass
class ModelBundle:
    """A model with the tokenizers and card it needs to be used on text."""

    model: Transformer
    target_tokenizer: Tokenizer
    source_tokenizer: Tokenizer | None = None
    card: dict[str, Any] = field(default_factory=dict)
    name: str = "model"

    @property
    def config(self) -> TransformerConfig:
        return self.model.config


def save_checkpoint(bundle: ModelBundle, directory: str | Path, card_md: str | None = None) -> Path:
    """Write `bundle` to `directory` (created if needed). Returns the directory."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    # Tied weights (share_embeddings) are one matrix under several names: write it once and name the others in the
    # metadata ("tied": "copy=original,..."), so a shared 3,600-symbol embedding costs 1.8 MB instead of 5.5 MB.
    state: dict[str, torch.Tensor] = {}
    first_name: dict[int, str] = {}
    tied: list[str] = []
    for name, tensor in bundle.model.state_dict().items():
        original = first_name.setdefault(tensor.data_ptr(), name)
        if original != name:
            tied.append(f"{name}={original}")
            continue
        state[name] = tensor.detach().float().clone().contiguous()
    metadata = {"format": "attention-atlas/1", **({"tied": ",".join(tied)} if tied else {})}
    save_file(state, str(out / WEIGHTS), metadata=metadata)
    _write_json(out / CONFIG, bundle.config.to_dict())
    vocab = {"target": bundle.target_tokenizer.to_dict()}
    if bundle.source_tokenizer is not None:
        vocab["source"] = bundle.source_tokenizer.to_dict()
    _write_json(out / VOCAB, vocab)
    _write_json(out / CARD_JSON, bundle.card)
    if card_md is not None:
        (out / CARD_MD).write_text(card_md, encoding="utf-8")
    return out


def load_checkpoint(directory: str | Path) -> ModelBundle:
    """Load and validate a checkpoint folder; the model comes back in eval mode.

    Raises:
        CheckpointError: naming the file and the problem (missing, not JSON, invalid config,
            corrupt or truncated weights, missing/unexpected tensors, wrong shapes or dtypes,
            non-finite values, vocabulary sizes that disagree with the config).
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise CheckpointError(f"{folder} is not a checkpoint folder")
    try:
        config = TransformerConfig.from_dict(_read_json(folder / CONFIG))
    except (ValueError, TypeError) as err:
        if isinstance(err, CheckpointError):
            raise
        raise CheckpointError(f"{folder / CONFIG}: {err}") from None
    vocab = _read_json(folder / VOCAB)
    target, source = _tokenizers(folder / VOCAB, vocab, config)
    card_path = folder / CARD_JSON
    card = _read_json(card_path) if card_path.exists() else {}
    model = Transformer(config)
    model.load_state_dict(_read_weights(folder / WEIGHTS, model))
    model.eval()
    return ModelBundle(model, target, source, card if isinstance(card, dict) else {}, folder.name)


def _tokenizers(path: Path, vocab: Any, config: TransformerConfig) -> tuple[Tokenizer, Tokenizer | None]:
    if not isinstance(vocab, dict) or "target" not in vocab:
        raise CheckpointError(f"{path}: expected an object with a 'target' tokenizer")
    try:
        target = Tokenizer.from_dict(vocab["target"])
        source = Tokenizer.from_dict(vocab["source"]) if config.is_encoder_decoder else None
    except KeyError:
        raise CheckpointError(f"{path}: an encoder-decoder model needs a 'source' tokenizer") from None
    except ValueError as err:
        raise CheckpointError(f"{path}: {err}") from None
    if len(target) != config.tgt_vocab_size:
        raise CheckpointError(f"{path}: target vocabulary has {len(target)} symbols, config says {config.tgt_vocab_size}")
    if source is not None and len(source) != config.src_vocab_size:
        raise CheckpointError(f"{path}: source vocabulary has {len(source)} symbols, config says {config.src_vocab_size}")
    return target, source


def _read_weights(path: Path, model: Transformer) -> dict[str, torch.Tensor]:
    if not path.is_file():
        raise CheckpointError(f"{path} is missing")
    if path.stat().st_size > MAX_WEIGHTS_BYTES:
        raise CheckpointError(f"{path} is {path.stat().st_size} bytes, larger than any model this app can use")
    try:
        state = load_file(str(path))
        with safe_open(str(path), "pt") as weights:
            tied = (weights.metadata() or {}).get("tied", "")
    except (SafetensorError, OSError, ValueError, RuntimeError) as err:
        raise CheckpointError(f"{path} is not a readable safetensors file (corrupt or truncated?): {err}") from None
    for pair in filter(None, tied.split(",")):  # tied weights were written once: give each name its matrix
        name, _, original = pair.partition("=")
        if original not in state or name in state:
            raise CheckpointError(f"{path}: tied weight {pair!r} does not fit the file's tensors")
        state[name] = state[original]
    expected = model.state_dict()
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    if missing or unexpected:
        raise CheckpointError(
            f"{path} does not match its config: missing {missing[:5]}{'…' if len(missing) > 5 else ''}, "
            f"unexpected {unexpected[:5]}{'…' if len(unexpected) > 5 else ''}"
        )
    for name, tensor in state.items():
        want = expected[name]
        if tensor.shape != want.shape:
            raise CheckpointError(f"{path}: {name} has shape {tuple(tensor.shape)}, config needs {tuple(want.shape)}")
        if tensor.dtype != want.dtype:
            raise CheckpointError(f"{path}: {name} has dtype {tensor.dtype}, expected {want.dtype}")
        if not torch.isfinite(tensor).all():
            raise CheckpointError(f"{path}: {name} contains NaN or infinite values")
    return state


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise CheckpointError(f"{path} is missing")
    if path.stat().st_size > MAX_JSON_BYTES:
        raise CheckpointError(f"{path} is too large to be a checkpoint's JSON")
    try:
        return json.loads(path.read_text(encoding="utf-8"), parse_constant=_reject_constant)
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError) as err:
        raise CheckpointError(f"{path} is not valid JSON: {err}") from None


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed")


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1, allow_nan=False) + "\n", encoding="utf-8")


