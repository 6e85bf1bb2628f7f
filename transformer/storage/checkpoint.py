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

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save_file

from transformer.config import TransformerConfig
from transformer.model import Transformer
from transformer.storage.untrusted_files import CheckpointError, one_line, read_card, read_json, regular_file, write_json
from transformer.text.tokenizer import Tokenizer

WEIGHTS, CONFIG, VOCAB, CARD_JSON, CARD_MD = "model.safetensors", "config.json", "vocab.json", "card.json", "card.md"
MAX_WEIGHTS_BYTES = 1 << 30  # 1 GiB: far above any model this app ships; refuses absurd files early


@dataclass
class ModelBundle:
    """A model with the tokenizers and card it needs to be used on text."""

    model: Transformer
    target_tokenizer: Tokenizer
    source_tokenizer: Tokenizer | None = None
    card: dict[str, Any] = field(default_factory=dict)
    name: str = "model"
    # Problems that did not stop loading (e.g. an unreadable optional card.json), for the app to show.
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        problem = pad_mismatch(self.model.config, self.target_tokenizer, self.source_tokenizer)
        if problem:
            raise ValueError(problem)

    @property
    def config(self) -> TransformerConfig:
        return self.model.config


def attention_kinds(bundle: ModelBundle) -> tuple[str, ...]:
    """The attention kinds the model has, in the paper's order: the one rule every page, probe and film reads.

    An encoder–decoder model has all three; a decoder-only model (GPT) only masked self-attention, called
    "decoder"; an encoder-only model (BERT) only the encoder's unmasked self-attention.
    """
    if bundle.config.is_encoder_only:
        return ("encoder",)
    return ("encoder", "decoder", "cross") if bundle.config.is_encoder_decoder else ("decoder",)


def pad_mismatch(config: TransformerConfig, *tokenizers: Tokenizer | None) -> str | None:
    """Why `config.pad_id` disagrees with the vocabularies' <pad>, or None if it agrees.

    Tokenizers and the training/decoding code pad with <pad>; masks hide `config.pad_id`. If the
    two differ, padding stays visible and a real symbol becomes invisible to attention.
    """
    for tokenizer in tokenizers:
        if tokenizer is not None and tokenizer.pad_id != config.pad_id:
            return f"pad_id={config.pad_id} in the config, but the vocabulary's <pad> is id {tokenizer.pad_id}; they must agree"
    return None


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
    write_json(out / CONFIG, bundle.config.to_dict())
    vocab = {"target": bundle.target_tokenizer.to_dict()}
    if bundle.source_tokenizer is not None:
        vocab["source"] = bundle.source_tokenizer.to_dict()
    write_json(out / VOCAB, vocab)
    write_json(out / CARD_JSON, bundle.card)
    if card_md is not None:
        (out / CARD_MD).write_text(card_md, encoding="utf-8")
    return out


def load_checkpoint(directory: str | Path) -> ModelBundle:
    """Load and validate a checkpoint folder; the model comes back in eval mode.

    Raises:
        CheckpointError: naming the file and the problem (missing, not a regular file, not JSON,
            nested too deeply, invalid config or sizes over the limits, mistyped vocabulary, pad_id
            other than <pad>'s id, corrupt or truncated weights, missing/unexpected tensors, wrong
            shapes or dtypes, non-finite values, tied embeddings that differ, vocabulary sizes that
            disagree with the config). A broken optional card.json is not an error: the bundle
            loads without it and says why in `bundle.warnings`.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise CheckpointError(f"{folder} is not a checkpoint folder")
    try:
        config = TransformerConfig.from_dict(read_json(folder / CONFIG))
    except (ValueError, TypeError) as err:
        if isinstance(err, CheckpointError):
            raise
        raise CheckpointError(one_line(f"{folder / CONFIG}: {err}")) from None
    vocab = read_json(folder / VOCAB)
    target, source = _tokenizers(folder / VOCAB, vocab, config)
    problem = pad_mismatch(config, target, source)
    if problem:
        raise CheckpointError(f"{folder / CONFIG}: {problem}")
    card, warnings = read_card(folder / CARD_JSON)
    model = Transformer.unfilled(config)  # sizes were bounded by the config's limits before this allocation
    model.assign(_read_weights(folder / WEIGHTS, model))
    model.eval()
    return ModelBundle(model, target, source, card, folder.name, warnings)


def _tokenizers(path: Path, vocab: Any, config: TransformerConfig) -> tuple[Tokenizer, Tokenizer | None]:
    if not isinstance(vocab, dict) or "target" not in vocab:
        raise CheckpointError(f"{path}: expected an object with a 'target' tokenizer")
    if config.is_encoder_decoder and "source" not in vocab:
        raise CheckpointError(f"{path}: an encoder-decoder model needs a 'source' tokenizer")
    try:
        target = Tokenizer.from_dict(_tokenizer_data(vocab["target"], "target"))
        source = Tokenizer.from_dict(_tokenizer_data(vocab["source"], "source")) if config.is_encoder_decoder else None
    except (ValueError, TypeError, KeyError) as err:  # TypeError/KeyError: a shape from_dict did not foresee
        raise CheckpointError(one_line(f"{path}: {err}")) from None
    if len(target) != config.tgt_vocab_size:
        raise CheckpointError(f"{path}: target vocabulary has {len(target)} symbols, config says {config.tgt_vocab_size}")
    if source is not None and len(source) != config.src_vocab_size:
        raise CheckpointError(f"{path}: source vocabulary has {len(source)} symbols, config says {config.src_vocab_size}")
    return target, source


def _tokenizer_data(data: Any, role: str) -> dict[str, Any]:
    """Check the JSON types of one tokenizer entry, so a wrong type is named rather than crashing."""
    if not isinstance(data, dict):
        raise ValueError(f"the {role!r} tokenizer must be a JSON object, got {type(data).__name__}")
    if not isinstance(data.get("level"), str):
        raise ValueError(f"the {role!r} tokenizer's 'level' must be a string, got {data.get('level')!r}")
    if not isinstance(data.get("vocab"), list) or not all(isinstance(s, str) for s in data["vocab"]):
        raise ValueError(f"the {role!r} tokenizer's 'vocab' must be a list of strings")
    options = data.get("options", {})
    # options are flags (lowercase, segment, graphemes) or a string of ignored characters; Tokenizer.from_dict
    # names the ones it knows
    if not isinstance(options, dict) or not all(isinstance(v, (bool, str)) for v in options.values()):
        raise ValueError(f"the {role!r} tokenizer's 'options' must be an object of true/false or text values, got {options!r}")
    return data


def _tied_disagree(state: dict[str, torch.Tensor], config: TransformerConfig) -> str | None:
    """With share_embeddings the file stores one matrix under several names; they must be identical."""
    if not config.share_embeddings:
        return None
    names = ["tgt_embed.lut.weight", "generator.proj.weight"] + (["src_embed.lut.weight"] if config.is_encoder_decoder else [])
    for name in names[1:]:
        if not torch.equal(state[name], state[names[0]]):
            return f"share_embeddings is true but {name} differs from {names[0]}"
    return None


def _read_weights(path: Path, model: Transformer) -> dict[str, torch.Tensor]:
    size = regular_file(path).st_size
    if size > MAX_WEIGHTS_BYTES:
        raise CheckpointError(f"{path} is {size} bytes, larger than any model this app can use")
    try:
        state = load_file(str(path))
        with safe_open(str(path), "pt") as weights:
            tied = (weights.metadata() or {}).get("tied", "")
    except (SafetensorError, OSError, ValueError, RuntimeError) as err:
        raise CheckpointError(one_line(f"{path} is not a readable safetensors file (corrupt or truncated?): {err}")) from None
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
    problem = _tied_disagree(state, model.config)
    if problem:
        raise CheckpointError(f"{path}: {problem}")
    return state
