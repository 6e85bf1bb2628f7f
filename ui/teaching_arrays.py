"""Arrays the positional-encoding and LayerNorm pages read straight from a model, as NumPy.

Parameters (a LayerNorm's gain and bias, a learned position table) are copied out read-only: the
shared model is never changed. A padded batch of several sentences is run once under `capture`
and cached like `ui.models.get_trace`, so the LayerNorm-vs-BatchNorm demo uses real activations.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import streamlit as st
import torch

from transformer.checkpoint import ModelBundle
from transformer.hooks import as_numpy, capture
from transformer.registry import list_models
from transformer.tokenizer import BOS_ID, EOS_ID
from ui.models import get_bundle
from viz.batchnorm_contrast import PaddedBatch


def _read_only(array: np.ndarray) -> np.ndarray:
    array = array.copy()
    array.setflags(write=False)
    return array


def layernorm_affine(bundle: ModelBundle, prefix: str) -> tuple[np.ndarray, np.ndarray]:
    """The learned gain g and bias b (d_model,) of the LayerNorm at `prefix` (e.g. "encoder.layers.0.sublayer.1.norm")."""
    norm = bundle.model.get_submodule(prefix)
    return _read_only(as_numpy(norm.gain)), _read_only(as_numpy(norm.bias))


def position_table(bundle: ModelBundle, stack: str) -> np.ndarray | None:
    """The (max_len, d_model) learned position table of `stack` ("src" or "tgt"), or None if not learned."""
    if bundle.config.positional != "learned":
        return None
    return _read_only(as_numpy(bundle.model.get_submodule(f"{stack}_pos").table()))


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


@st.cache_resource(max_entries=16, ttl=3600, show_spinner=False)
def get_padded_batch(model_key: str, texts: tuple[str, ...], names: tuple[str, ...]) -> dict[str, PaddedBatch]:
    """Run the stack that reads the text (encoder, or the decoder of a decoder-only model) on a padded
    batch of `texts` and return each captured name as a PaddedBatch.

    Encoder rows are the text's tokens + <eos>; decoder-only rows are <bos> + tokens (as `trace_text`).
    """
    bundle = get_bundle(model_key)
    model, config = bundle.model, bundle.config
    reader = bundle.source_tokenizer or bundle.target_tokenizer
    rows = []
    for text in texts:
        ids = reader.encode(text)[: config.max_len - 1]
        rows.append([*ids, EOS_ID] if config.is_encoder_decoder else [BOS_ID, *ids])
    lengths = np.array([len(r) for r in rows])
    ids = torch.full((len(rows), int(lengths.max())), config.pad_id, dtype=torch.long)  # (B, T)
    for b, row in enumerate(rows):
        ids[b, : len(row)] = torch.tensor(row)
    with torch.no_grad(), capture(model, names) as cache:
        if config.is_encoder_decoder:
            model.encode(ids)
        else:
            model.decode(ids)
    tokens = tuple(tuple(reader.symbols(r)) for r in rows)
    lengths.setflags(write=False)
    return {name: PaddedBatch(_read_only(as_numpy(cache[name])), lengths, tokens) for name in names}


def stack_reading_text(bundle: ModelBundle) -> tuple[str, str]:
    """(stack, embedding prefix) of the side that reads the user's text: ("encoder", "src") or ("decoder", "tgt")."""
    return ("encoder", "src") if bundle.config.is_encoder_decoder else ("decoder", "tgt")


def batch_sites(bundle: ModelBundle, candidates: Sequence[str]) -> list[str]:
    """The subset of `candidates` (hook names) that a batch run of the text-reading stack captures."""
    stack, embed = stack_reading_text(bundle)
    return [n for n in candidates if n.startswith((f"{stack}.", f"{embed}_"))]
