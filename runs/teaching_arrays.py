"""Arrays the teaching pages (positional encoding, LayerNorm, step by step, architecture) read from a model.

Parameters (a LayerNorm's gain and bias, a learned position table, W^O) are copied out read-only:
the shared model is never changed. A padded batch of several sentences is run once under `capture`
(cached by `ui.caches.get_padded_batch`), so the LayerNorm-vs-BatchNorm demo uses real activations.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import torch

from hook_names import EMBED_PREFIX, attn_module, embed_module, hook_name, pos_module
from transformer.activation_cache import as_numpy
from transformer.config import TransformerConfig
from transformer.hooks import capture
from transformer.positional import SINUSOID_TABLES
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import list_models
from transformer.text.batch import pad_batch
from transformer.text.reading import reader as text_reader
from transformer.text.rows import encode_text, reading_row
from viz.batchnorm_contrast import PaddedBatch


def _read_only(array: np.ndarray) -> np.ndarray:
    array = array.copy()
    array.setflags(write=False)
    return array


def sinusoid_table(n_positions: int, d_model: int, layout: str = "sinusoidal") -> np.ndarray:
    """The sinusoidal position table (n_positions, d_model), as the model computes it: the paper's interleaved
    sines and cosines, or (`layout="sinusoidal-split"`, Marian's) every sine first and every cosine after."""
    return _read_only(SINUSOID_TABLES[layout](n_positions, d_model).numpy())


def layernorm_affine(bundle: ModelBundle, prefix: str) -> tuple[np.ndarray, np.ndarray]:
    """The learned gain g and bias b (d_model,) of the LayerNorm at `prefix` (e.g. "encoder.layers.0.sublayer.1.norm");
    an RMSNorm has no bias: zeros, which remove nothing (`transformer.rmsnorm`)."""
    norm = bundle.model.get_submodule(prefix)
    return _read_only(as_numpy(norm.gain)), _read_only(_bias_or_zeros(getattr(norm, "bias", None), norm.gain.shape[0]))


def _bias_or_zeros(bias: torch.Tensor | None, size: int) -> np.ndarray:
    """A layer's bias as an array, or zeros where it has none (Llama's and Qwen's layers)."""
    return as_numpy(bias) if bias is not None else np.zeros(size, dtype=np.float32)


def position_table(bundle: ModelBundle, stack: str) -> np.ndarray | None:
    """The (max_len, d_model) learned position table of `stack` ("encoder" or "decoder"), or None if not learned."""
    if bundle.config.positional != "learned":
        return None
    return _read_only(as_numpy(bundle.model.get_submodule(pos_module(stack)).table()))


def models_with_learned_positions() -> list[str]:
    """Shipped models whose config says positional = "learned" (read from config.json, nothing loaded)."""
    names = []
    for info in list_models():
        try:
            config = json.loads((info.path / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(config, dict) and config.get("positional") == "learned":
            names.append(info.name)
    return names


def padded_batch(bundle: ModelBundle, texts: Sequence[str], names: Sequence[str]) -> dict[str, PaddedBatch]:
    """Run the stack that reads the text (encoder, or the decoder of a decoder-only model) on a padded
    batch of `texts` and return each captured name as a PaddedBatch.

    Rows follow `transformer.text.batch.reading_row`: encoder rows are the text's tokens + <eos>;
    decoder-only rows are <bos> + tokens (as `trace_text`).
    """
    model, config = bundle.model, bundle.config
    reader = text_reader(bundle)
    limit = config.max_len - config.is_encoder_only  # an encoder-only row adds <bos> and <eos>
    rows = [reading_row(encode_text(reader, t, limit).ids, config.is_encoder_decoder, config.is_encoder_only) for t in texts]
    ids = pad_batch(rows, config.pad_id)  # (B, T)
    with torch.no_grad(), capture(model, names) as cache:
        if config.has_encoder:
            model.encode(ids)
        else:
            model.decode(ids)
    tokens = tuple(tuple(reader.symbols(r)) for r in rows)
    raw = tuple(tuple(reader.raw_bytes(r)) for r in rows)  # beside the labels, for a byte-level piece's hover
    lengths = np.array([len(r) for r in rows])
    lengths.setflags(write=False)
    return {name: PaddedBatch(_read_only(as_numpy(cache[name])), lengths, tokens, raw) for name in names}


def stack_reading_text(bundle: ModelBundle) -> tuple[str, str]:
    """(stack, embedding prefix) of the side that reads the user's text: ("encoder", "src") or ("decoder", "tgt")."""
    stack = "encoder" if bundle.config.has_encoder else "decoder"
    return stack, EMBED_PREFIX[stack]


def embedding_names(stack: str) -> tuple[str, str, str]:
    """The scaled token embeddings, the positional encoding and their sum, for the stack `stack`."""
    return hook_name(embed_module(stack), "tokens"), hook_name(pos_module(stack), "pe"), hook_name(pos_module(stack), "out")


def parameter_sizes(bundle: ModelBundle) -> dict[str, int]:
    """Parameter name → number of elements, in model order."""
    return {name: p.numel() for name, p in bundle.model.named_parameters()}


def output_projection(bundle: ModelBundle, kind: str, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """W^O (d_model, H·d_k) and its bias (d_model,) of one attention module, as read-only copies."""
    w_o = bundle.model.get_submodule(attn_module(kind, layer)).w_o
    return _read_only(as_numpy(w_o.weight)), _read_only(_bias_or_zeros(w_o.bias, w_o.weight.shape[0]))


RANDOM_D_MODELS = (32, 64, 128, 256, 512)  # the d_model choices of a random model (the sidebar's slider)


def norm_pair_settings(config: TransformerConfig, n_layers: int, seed: int) -> dict[str, object]:
    """Settings of the two random models (post- and pre-norm, `ModelRef.random(norm_position=..., **these)`)
    the LayerNorm page compares: the current model's shape at `n_layers` layers, the same seed."""
    d = config.d_model if config.d_model in RANDOM_D_MODELS else 64
    return {
        "architecture": config.architecture,
        "n_layers": n_layers,
        "d_model": d,
        "n_heads": config.n_heads if d % config.n_heads == 0 else 4,
        "positional": config.positional,
        "seed": seed,
    }
