"""Inputs for the head detectors: a repeated random sequence run through a model, patterns captured.

Induction and duplicate-token heads show themselves on text that repeats: `x1 … xn x1 … xn` with
distinct random symbols, so the second half can only be predicted by finding the earlier occurrence
of the current symbol and copying what followed it (Olsson et al., 2022). Random symbols, rather
than a sentence, keep the model from predicting by grammar instead.

The model reads the sequence teacher-forced (one pass, as in training):
  decoder-only:     decoder <bos> x1 … xn x1 … xn
  encoder-decoder:  encoder x1 … xn x1 … xn <eos>   and   decoder <bos> x1 … xn x1 … xn
Every attention stack's patterns come back as numpy (L, H, Tq, Tk) with the ids they were computed on.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import torch

from hook_names import act_name
from transformer.hooks import capture
from transformer.storage.checkpoint import ModelBundle
from transformer.text.rows import decoder_row, source_row
from transformer.text.tokenizer import SPECIALS, Tokenizer

ENCODER_SELF, DECODER_SELF, DECODER_CROSS = "encoder", "decoder", "cross"  # the attention kinds of hook_names


def pattern_name(kind: str, layer: int) -> str:
    """The hook name of one layer's attention pattern, e.g. ("cross", 1) → decoder.layers.1.cross_attn.hook_pattern."""
    return act_name(kind, layer, "pattern")


@dataclass(frozen=True)
class DetectorInputs:
    """One repeated random sequence and what every attention stack did on it.

    Attributes:
        half: n, the length of the random half.
        ids: attention kind ("encoder", "decoder", "cross") → (Tq,) query ids (the keys are the same
            sequence, except cross-attention's, which are the encoder's: `ids[ENCODER_SELF]`).
        tokens: kind → query token labels, for axes.
        patterns: kind → (L, H, Tq, Tk) float32 attention weights.
    """

    half: int
    ids: dict[str, np.ndarray]
    tokens: dict[str, list[str]]
    patterns: dict[str, np.ndarray]


def repeated_random_ids(tokenizer: Tokenizer, half: int = 20, seed: int = 0) -> list[int]:
    """`half` distinct random non-special ids (fewer if the vocabulary is smaller), then the same again.

    Seeded with a string (hashed by SHA-512), so the sequence is the same on every run and machine.
    """
    choices = [i for i, s in enumerate(tokenizer.vocab) if s not in SPECIALS]
    if len(choices) < 2:
        raise ValueError(f"the vocabulary has {len(choices)} ordinary symbols; a repeated sequence needs at least 2")
    if half < 2:
        raise ValueError(f"half must be at least 2, got {half}")
    picked = random.Random(f"repeated/{seed}").sample(choices, min(half, len(choices)))
    return picked + picked


@torch.no_grad()
def detector_inputs(bundle: ModelBundle, half: int = 20, seed: int = 0) -> DetectorInputs:
    """Run `bundle` teacher-forced on a repeated random sequence and capture every attention pattern."""
    model, config = bundle.model, bundle.config
    half = min(half, (config.max_len - 1) // 2)
    target = bundle.target_tokenizer
    repeated = repeated_random_ids(target, half, seed)
    n = len(repeated) // 2
    tgt = torch.tensor([decoder_row(repeated)])  # (1, 2n + 1)
    ids = {DECODER_SELF: tgt[0].numpy()}
    stacks = [DECODER_SELF]
    src = None
    if config.is_encoder_only:  # the encoder alone reads the sequence, laid out as an encoder's source row
        src = torch.tensor([source_row(repeated)])  # (1, 2n + 1)
        ids, stacks, tgt = {ENCODER_SELF: src[0].numpy()}, [ENCODER_SELF], None
    elif config.is_encoder_decoder:
        source = bundle.source_tokenizer or target
        # the same symbols by name where the source vocabulary has them, else its own random draw
        shared = [source.index.get(target.vocab[i]) for i in repeated]
        src_ids = shared if None not in shared else repeated_random_ids(source, n, seed)
        src = torch.tensor([source_row(src_ids)])  # (1, 2n + 1)
        ids[ENCODER_SELF] = src[0].numpy()
        ids[DECODER_CROSS] = tgt[0].numpy()
        stacks = [ENCODER_SELF, DECODER_SELF, DECODER_CROSS]
    names = [pattern_name(kind, layer) for kind in stacks for layer in range(config.n_layers)]
    with capture(model, names) as cache:
        model(src, tgt)
    patterns = {
        kind: np.stack([cache[pattern_name(kind, layer)][0].numpy() for layer in range(config.n_layers)])  # (L, H, Tq, Tk)
        for kind in stacks
    }
    readers = {ENCODER_SELF: bundle.source_tokenizer or target, DECODER_SELF: target, DECODER_CROSS: target}
    tokens = {kind: readers[kind].symbols(ids[kind].tolist()) for kind in stacks}
    return DetectorInputs(n, ids, tokens, patterns)
