"""The one batch convention: shifting, padding and the masks of a batch, built in one place.

Compare The Annotated Transformer's `Batch`. For a (source, target) pair of id sequences:

    source ids   = tokens + [<eos>]            (the encoder reads the whole sentence and its end)
    decoder input = [<bos>] + target tokens     (shifted right: position i predicts token i)
    labels        = target tokens + [<eos>]

The rows themselves (and `encode_text`, which cuts a text to fit) are plain lists in `transformer.text.rows`.
Sentences of different lengths are right-padded with <pad> to one length so a batch is one tensor;
`Transformer.encode`/`decode` build their masks from the ids with `transformer.masks`, and `batch_masks`
calls those same functions, so a view of the masks shows exactly what the model uses. Training (`evaluate.make_batch`), the app's
padded batches (`runs/`) and the text run (`decoding.trace_text`) follow this file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import torch
from torch import Tensor

from transformer.masks import causal_mask, cross_mask, decoder_self_mask, padding_mask
from transformer.text.rows import decoder_row, label_row, source_row
from transformer.text.tokenizer import PAD_ID


class BatchMasks(NamedTuple):
    """Every mask of one padded batch, boolean `allowed` (True = may attend), head dimension dropped."""

    tgt_padding: Tensor  # (B, Tt): key is a real token
    causal: Tensor  # (Tt, Tt): lower triangular
    decoder_self: Tensor  # (B, Tt, Tt): padding AND causal
    src_padding: Tensor | None = None  # (B, Ts)
    encoder_self: Tensor | None = None  # (B, Ts, Ts): padding keys, the same for every query
    cross: Tensor | None = None  # (B, Tt, Ts): every decoder query × the real source keys


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


@dataclass(frozen=True)
class Batch:
    """A padded batch of (source, target) pairs, shifted for teacher forcing, with its masks.

    Built by `Batch.from_pairs` from unpadded id sequences (no specials); `src` is None for a
    batch that only feeds a decoder.
    """

    src: Tensor | None  # (B, Ts) source ids + <eos>, padded
    tgt_in: Tensor  # (B, Tt) <bos> + target ids, padded
    tgt_out: Tensor  # (B, Tt) target ids + <eos>, padded (the labels)
    pad_id: int = PAD_ID

    @classmethod
    def from_pairs(cls, sources: Sequence[Sequence[int]] | None, targets: Sequence[Sequence[int]], pad_id: int = PAD_ID) -> Batch:
        src = None if sources is None else pad_batch([source_row(s) for s in sources], pad_id)  # (B, Ts)
        return cls(
            src,
            pad_batch([decoder_row(t) for t in targets], pad_id),  # (B, Tt)
            pad_batch([label_row(t) for t in targets], pad_id),
            pad_id,
        )

    def masks(self) -> BatchMasks:
        """Every mask the model applies to this batch (`batch_masks`)."""
        return batch_masks(self.tgt_in, self.pad_id, self.src)
