"""A padded batch of token sequences and every attention mask the model builds for it.

Sentences of different lengths are right-padded with <pad> to one length so a batch is one
tensor; `Transformer.encode`/`decode` then build their masks from the ids with `transformer.masks`.
`batch_masks` calls those same functions, so a view of the masks shows exactly what the model uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import torch
from torch import Tensor

from transformer.masks import causal_mask, cross_mask, decoder_self_mask, padding_mask
from transformer.tokenizer import UNK_ID


class BatchMasks(NamedTuple):
    """Every mask of one padded batch, boolean `allowed` (True = may attend), head dimension dropped."""

    tgt_padding: Tensor  # (B, Tt): key is a real token
    causal: Tensor  # (Tt, Tt): lower triangular
    decoder_self: Tensor  # (B, Tt, Tt): padding AND causal
    src_padding: Tensor | None = None  # (B, Ts)
    encoder_self: Tensor | None = None  # (B, Ts, Ts): padding keys, the same for every query
    cross: Tensor | None = None  # (B, Tt, Ts): every decoder query × the real source keys


def token_ids(tokens: Sequence[str], index: Mapping[str, int]) -> list[int]:
    """Symbols (as a trace lists them, specials included) → ids; unknown symbols → <unk>."""
    return [index.get(tok, UNK_ID) for tok in tokens]


def pad_batch(sequences: Sequence[Sequence[int]], pad_id: int) -> Tensor:
    """Id sequences → (B, T) right-padded with `pad_id` to the longest."""
    width = max((len(s) for s in sequences), default=0)
    ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)  # (B, T)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
    return ids


def batch_masks(tgt_ids: Tensor, pad_id: int, src_ids: Tensor | None = None) -> BatchMasks:
    """The masks `Transformer.forward(src_ids, tgt_ids)` applies, one matrix per sentence.

    Args:
        tgt_ids: (B, Tt) decoder input. src_ids: (B, Ts) source, or None for decoder-only models.
    """
    tt = tgt_ids.shape[1]
    masks = BatchMasks(
        tgt_padding=padding_mask(tgt_ids, pad_id)[:, 0, 0],  # (B, Tt)
        causal=causal_mask(tt, tgt_ids.device)[0, 0],  # (Tt, Tt)
        decoder_self=decoder_self_mask(tgt_ids, pad_id)[:, 0],  # (B, Tt, Tt)
    )
    if src_ids is None:
        return masks
    keys = padding_mask(src_ids, pad_id)  # (B, 1, 1, Ts)
    return masks._replace(
        src_padding=keys[:, 0, 0],  # (B, Ts)
        encoder_self=keys.expand(-1, -1, src_ids.shape[1], -1)[:, 0],  # (B, Ts, Ts)
        cross=cross_mask(src_ids, pad_id, tt)[:, 0],  # (B, Tt, Ts)
    )
