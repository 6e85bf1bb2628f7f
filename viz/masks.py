"""The masks of a padded batch, computed the way the model computes them.

A batch of sentences of different lengths is padded to one length with <pad>; the model then
needs masks so that padding never receives attention and, in the decoder, no position sees the
future. This module pads real token sequences to ids and builds every mask with the model's own
`transformer.masks` functions (tensor math on ids only: no model is built or run), so what the
Masks page shows is exactly what the model uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from transformer.masks import causal_mask, cross_mask, decoder_self_mask, padding_mask

UNK = "<unk>"


@dataclass(frozen=True)
class MaskBatch:
    """A padded batch and its masks; every mask is boolean `allowed` (True = may attend).

    Decoder-only models have no source: `src_*` are empty / None there.
    """

    src_tokens: tuple[tuple[str, ...], ...]  # (B, Ts) with pad tokens
    tgt_tokens: tuple[tuple[str, ...], ...]  # (B, Tt) with pad tokens: the decoder's input
    src_ids: np.ndarray | None  # (B, Ts) int64
    tgt_ids: np.ndarray  # (B, Tt) int64
    src_padding: np.ndarray | None  # (B, Ts): key is a real token
    tgt_padding: np.ndarray  # (B, Tt)
    causal: np.ndarray  # (Tt, Tt) lower triangular
    decoder_self: np.ndarray  # (B, Tt, Tt) = padding & causal
    encoder_self: np.ndarray | None  # (B, Ts, Ts): padding keys only
    cross: np.ndarray | None  # (B, Tt, Ts): decoder queries × real source keys

    @property
    def size(self) -> int:
        return len(self.tgt_tokens)

    @property
    def has_source(self) -> bool:
        return self.src_ids is not None

    @property
    def most_padded(self) -> int:
        """The sentence with the most padding (source side if any): the most telling one to inspect."""
        lengths = self.lengths("src" if self.has_source else "tgt")
        return lengths.index(min(lengths))

    def lengths(self, side: str) -> list[int]:
        """Real (unpadded) length of each sentence on the "src" or "tgt" side."""
        padding = self.src_padding if side == "src" else self.tgt_padding
        return [] if padding is None else [int(n) for n in padding.sum(axis=1)]


def pad_ids(sequences: Sequence[Sequence[str]], index: Mapping[str, int], pad_id: int) -> np.ndarray:
    """Token sequences → (B, T) ids, right-padded with `pad_id` to the longest; unknown → <unk>."""
    unk_id = index.get(UNK, pad_id)
    width = max((len(s) for s in sequences), default=0)
    ids = np.full((len(sequences), width), pad_id, dtype=np.int64)  # (B, T)
    for row, tokens in enumerate(sequences):
        ids[row, : len(tokens)] = [index.get(tok, unk_id) for tok in tokens]
    return ids


def _padded_tokens(sequences: Sequence[Sequence[str]], width: int, pad_token: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(s) + (pad_token,) * (width - len(s)) for s in sequences)


def build_mask_batch(
    tgt_tokens: Sequence[Sequence[str]],
    tgt_index: Mapping[str, int],
    pad_id: int,
    pad_token: str,
    src_tokens: Sequence[Sequence[str]] | None = None,
    src_index: Mapping[str, int] | None = None,
) -> MaskBatch:
    """Pad a batch and build all of its masks with `transformer.masks`.

    Args:
        tgt_tokens: each sentence's decoder input (<bos> + output), unpadded.
        src_tokens: each sentence's source (tokens + <eos>), unpadded; None for decoder-only.
        tgt_index, src_index: the tokenizers' symbol → id maps.
    """
    tgt = torch.from_numpy(pad_ids(tgt_tokens, tgt_index, pad_id))  # (B, Tt)
    tt = tgt.shape[1]
    tgt_padding = padding_mask(tgt, pad_id)[:, 0, 0].numpy()  # (B, Tt)
    src_ids = src_padding = encoder_self = cross = None
    padded_src: tuple[tuple[str, ...], ...] = ()
    if src_tokens is not None:
        src = torch.from_numpy(pad_ids(src_tokens, src_index or {}, pad_id))  # (B, Ts)
        ts = src.shape[1]
        keys = padding_mask(src, pad_id)  # (B, 1, 1, Ts)
        src_ids, src_padding = src.numpy(), keys[:, 0, 0].numpy()
        encoder_self = keys.expand(-1, -1, ts, -1)[:, 0].numpy()  # (B, Ts, Ts): what the encoder layers get
        cross = cross_mask(src, pad_id, tt)[:, 0].numpy()  # (B, Tt, Ts)
        padded_src = _padded_tokens(src_tokens, ts, pad_token)
    return MaskBatch(
        src_tokens=padded_src,
        tgt_tokens=_padded_tokens(tgt_tokens, tt, pad_token),
        src_ids=src_ids,
        tgt_ids=tgt.numpy(),
        src_padding=src_padding,
        tgt_padding=tgt_padding,
        causal=causal_mask(tt)[0, 0].numpy(),
        decoder_self=decoder_self_mask(tgt, pad_id)[:, 0].numpy(),
        encoder_self=encoder_self,
        cross=cross,
    )


def key_padding_matrix(padding: np.ndarray) -> np.ndarray:
    """One sentence's key padding (T,) as the (T, T) matrix an attention layer applies: every
    query row is the same, since padding hides keys, not queries."""
    return np.broadcast_to(padding[None, :], (padding.shape[0], padding.shape[0]))  # (Tq, Tk)
