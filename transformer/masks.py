"""Attention masks, all in one polarity: `allowed` is True where a query may attend to a key.

Masks are boolean and broadcast against attention scores of shape (B, H, Tq, Tk). Builders return
the smallest broadcastable shape; `MultiHeadAttention` expands them to (B, 1, Tq, Tk) before its
`hook_mask`, so what the app shows and what an intervention edits is one full matrix per sentence.
"""

from __future__ import annotations

import torch
from torch import Tensor


def padding_mask(ids: Tensor, pad_id: int) -> Tensor:
    """Keys that are real tokens, not padding.

    Args:
        ids: token ids, (B, T).
    Returns:
        allowed, (B, 1, 1, T): broadcasts over heads and queries.
    """
    return (ids != pad_id)[:, None, None, :]  # (B, 1, 1, T)


def causal_mask(size: int, device: torch.device | None = None) -> Tensor:
    """The decoder's "subsequent" mask: position i may attend to positions j <= i only.

    This is what keeps training (all positions at once) consistent with auto-regressive decoding,
    where later tokens do not exist yet.

    Returns:
        allowed, (1, 1, T, T), lower triangular.
    """
    return torch.ones(size, size, dtype=torch.bool, device=device).tril()[None, None]  # (1, 1, T, T)


def decoder_self_mask(tgt_ids: Tensor, pad_id: int) -> Tensor:
    """Masked decoder self-attention: not a padding key and not a future position.

    Returns:
        allowed, (B, 1, T, T).
    """
    return padding_mask(tgt_ids, pad_id) & causal_mask(tgt_ids.shape[1], tgt_ids.device)  # (B, 1, T, T)


def cross_mask(src_ids: Tensor, pad_id: int, tgt_len: int) -> Tensor:
    """Encoder-decoder attention: every decoder query may see every real source token.

    Returns:
        allowed, (B, 1, Tq, Tk) with Tq = tgt_len and Tk = source length.
    """
    return padding_mask(src_ids, pad_id).expand(-1, -1, tgt_len, -1)  # (B, 1, Tq, Tk)
