"""Mask builders: shapes and exact values on a small hand-written batch (True = may attend)."""

from __future__ import annotations

import torch

from transformer.attention import MultiHeadAttention, scaled_dot_product_attention
from transformer.hooks import capture, name_hook_points
from transformer.masks import causal_mask, cross_mask, decoder_self_mask, padding_mask

PAD = 0
# Two sentences: lengths 3 and 2, padded to 4.
IDS = torch.tensor([[5, 6, 7, PAD], [8, 9, PAD, PAD]])


def test_padding_mask_values() -> None:
    m = padding_mask(IDS, PAD)
    assert m.dtype == torch.bool
    assert m.shape == (2, 1, 1, 4)
    assert m[:, 0, 0].tolist() == [[True, True, True, False], [True, True, False, False]]


def test_padding_mask_respects_pad_id() -> None:
    ids = torch.tensor([[1, 0, 2, 1]])
    assert padding_mask(ids, pad_id=1)[0, 0, 0].tolist() == [False, True, True, False]


def test_causal_mask_values() -> None:
    m = causal_mask(4)
    assert m.dtype == torch.bool
    assert m.shape == (1, 1, 4, 4)
    assert m[0, 0].tolist() == [
        [True, False, False, False],
        [True, True, False, False],
        [True, True, True, False],
        [True, True, True, True],
    ]


def test_decoder_self_mask_values() -> None:
    m = decoder_self_mask(IDS, PAD)
    assert m.dtype == torch.bool
    assert m.shape == (2, 1, 4, 4)
    assert m[0, 0].tolist() == [
        [True, False, False, False],
        [True, True, False, False],
        [True, True, True, False],
        [True, True, True, False],  # the pad key stays hidden even from the pad query
    ]
    assert m[1, 0].tolist() == [
        [True, False, False, False],
        [True, True, False, False],
        [True, True, False, False],
        [True, True, False, False],
    ]


def test_cross_mask_values() -> None:
    m = cross_mask(IDS, PAD, tgt_len=3)
    assert m.dtype == torch.bool
    assert m.shape == (2, 1, 3, 4)
    assert m[0, 0].tolist() == [[True, True, True, False]] * 3
    assert m[1, 0].tolist() == [[True, True, False, False]] * 3


def test_fully_masked_row_gives_zero_pattern_and_finite_output() -> None:
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, 3, 4, generator=g) for _ in range(3))
    allowed = torch.tensor([[True, True, False], [False, False, False], [True, False, False]])[None, None]
    out, pattern = scaled_dot_product_attention(q, k, v, allowed)
    assert not torch.isnan(pattern).any() and torch.isfinite(out).all()
    assert torch.all(pattern[0, :, 1] == 0.0)
    assert torch.allclose(pattern[0, :, 0].sum(-1), torch.ones(2))
    assert torch.all(pattern[0, :, 2, 0] == 1.0)


def test_fully_masked_row_in_multi_head_attention() -> None:
    torch.manual_seed(1)
    mha = MultiHeadAttention(8, 2).eval()
    name_hook_points(mha)
    x = torch.randn(1, 3, 8)
    allowed = torch.ones(1, 1, 3, 3, dtype=torch.bool)
    allowed[..., 2, :] = False
    with torch.no_grad(), capture(mha) as cache:
        out = mha(x, x, x, allowed)
    assert torch.isfinite(out).all()
    assert torch.all(cache["hook_pattern"][0, :, 2] == 0.0)
    assert torch.isfinite(cache["hook_masked_scores"]).all()
    assert cache["hook_mask"].shape == (1, 1, 3, 3) and cache["hook_mask"].dtype == torch.bool
