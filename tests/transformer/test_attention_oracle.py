"""Oracle tests: our attention against PyTorch's own implementations, with copied weights."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transformer.attention import MultiHeadAttention, scaled_dot_product_attention
from transformer.hooks import capture, name_hook_points

ATOL = 1e-5


def _qkv(seed: int, b: int = 2, h: int = 4, tq: int = 5, tk: int = 5, d: int = 8) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    return (
        torch.randn(b, h, tq, d, generator=g),
        torch.randn(b, h, tk, d, generator=g),
        torch.randn(b, h, tk, d, generator=g),
    )


def test_sdpa_matches_torch_without_mask() -> None:
    q, k, v = _qkv(0)
    out, pattern = scaled_dot_product_attention(q, k, v)
    ref = F.scaled_dot_product_attention(q, k, v)
    assert out.shape == ref.shape == (2, 4, 5, 8)
    assert torch.allclose(out, ref, atol=ATOL)
    by_hand = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    assert torch.allclose(pattern, by_hand, atol=1e-6)


@pytest.mark.parametrize("tq,tk", [(5, 5), (3, 7)])
def test_sdpa_matches_torch_with_boolean_mask(tq: int, tk: int) -> None:
    q, k, v = _qkv(1, tq=tq, tk=tk)
    g = torch.Generator().manual_seed(2)
    allowed = torch.rand(2, 1, tq, tk, generator=g) > 0.4
    allowed[..., 0] = True  # every row keeps one key: SDPA's fully masked rows are NaN
    out, pattern = scaled_dot_product_attention(q, k, v, allowed)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)  # same polarity: True = may attend
    assert torch.allclose(out, ref, atol=ATOL)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    by_hand = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    assert torch.allclose(pattern, by_hand, atol=1e-6)
    assert torch.all(pattern.masked_select(~allowed.expand_as(pattern)) == 0.0)
    # The mask must matter, or this test would pass with any mask at all.
    assert not torch.allclose(out, F.scaled_dot_product_attention(q, k, v), atol=1e-3)


def test_sdpa_causal_matches_is_causal() -> None:
    q, k, v = _qkv(3, tq=6, tk=6)
    allowed = torch.ones(6, 6, dtype=torch.bool).tril()
    out, pattern = scaled_dot_product_attention(q, k, v, allowed)
    assert torch.allclose(out, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=ATOL)
    assert torch.all(pattern.triu(diagonal=1) == 0.0)


def test_sdpa_fully_masked_row_is_zero_not_nan() -> None:
    q, k, v = _qkv(4, tq=3, tk=4)
    allowed = torch.ones(1, 1, 3, 4, dtype=torch.bool)
    allowed[..., 1, :] = False
    out, pattern = scaled_dot_product_attention(q, k, v, allowed)
    assert torch.isfinite(out).all() and torch.isfinite(pattern).all()
    assert torch.all(pattern[:, :, 1] == 0.0)
    assert torch.all(out[:, :, 1] == 0.0)
    assert torch.allclose(pattern[:, :, [0, 2]].sum(-1), torch.ones(2, 4, 2), atol=1e-6)


@pytest.mark.parametrize("fully_masked_row", [False, True])
def test_masked_keys_weigh_exactly_zero_whether_or_not_a_row_is_fully_masked(fully_masked_row: bool) -> None:
    """The engine zeroes weights at masked keys only where some row has no allowed key (`masked_softmax`): elsewhere
    the softmax's exp(min - max) is exactly 0 already, so skipping the pass changes no bit; the paper's steps
    (`transformer.attention`), which always zero, give the same bits."""
    from transformer import attention
    from transformer.engine.steps import apply_mask, masked_softmax

    scores = torch.randn(2, 3, 6, 6, generator=torch.Generator().manual_seed(5)) * 30
    allowed = torch.ones(6, 6, dtype=torch.bool).tril()[None, None].clone()  # (1, 1, 6, 6) causal
    if fully_masked_row:
        allowed[..., 2, :] = False
    zeroed = apply_mask(scores, allowed).softmax(dim=-1).masked_fill(~allowed, 0.0)  # the explicit formula
    assert torch.equal(attention.masked_softmax(attention.apply_mask(scores, allowed), allowed), zeroed)
    for in_place in (False, True):
        pattern = masked_softmax(apply_mask(scores.clone(), allowed, in_place), allowed, in_place)
        assert torch.equal(pattern, zeroed)
        assert torch.all(pattern.masked_select(~allowed.expand_as(pattern)) == 0.0)


# ---- MultiHeadAttention vs torch.nn.MultiheadAttention -------------------------------------------

D_MODEL, N_HEADS = 16, 4


def _pair(seed: int) -> tuple[MultiHeadAttention, nn.MultiheadAttention]:
    torch.manual_seed(seed)
    ours = MultiHeadAttention(D_MODEL, N_HEADS).eval()
    ref = nn.MultiheadAttention(D_MODEL, N_HEADS, dropout=0.0, batch_first=True).eval()
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        ref.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        ref.out_proj.weight.copy_(ours.w_o.weight)
        ref.out_proj.bias.copy_(ours.w_o.bias)
    name_hook_points(ours)
    return ours, ref


def _run_ours(mha: MultiHeadAttention, q, k, v, allowed=None) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.no_grad(), capture(mha, names=["hook_pattern"]) as cache:
        out = mha(q, k, v, allowed)
    return out, cache["hook_pattern"]


def _inputs(seed: int, b: int = 3, tq: int = 6, tk: int = 6) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(b, tq, D_MODEL, generator=g), torch.randn(b, tk, D_MODEL, generator=g)


def test_mha_matches_torch_no_mask() -> None:
    ours, ref = _pair(0)
    x, _ = _inputs(10)
    out, pattern = _run_ours(ours, x, x, x)
    ref_out, ref_w = ref(x, x, x, need_weights=True, average_attn_weights=False)
    assert pattern.shape == ref_w.shape == (3, N_HEADS, 6, 6)
    assert torch.allclose(out, ref_out, atol=ATOL)
    assert torch.allclose(pattern, ref_w, atol=ATOL)


def test_mha_matches_torch_key_padding_mask() -> None:
    ours, ref = _pair(1)
    x, _ = _inputs(11)
    lengths = torch.tensor([6, 4, 2])
    ignore = torch.arange(6)[None, :] >= lengths[:, None]  # (B, Tk), PyTorch polarity: True = ignore
    out, pattern = _run_ours(ours, x, x, x, (~ignore)[:, None, None, :])
    ref_out, ref_w = ref(x, x, x, key_padding_mask=ignore, need_weights=True, average_attn_weights=False)
    assert torch.allclose(out, ref_out, atol=ATOL)
    assert torch.allclose(pattern, ref_w, atol=ATOL)
    assert torch.all(pattern[1, :, :, 4:] == 0.0) and torch.all(pattern[2, :, :, 2:] == 0.0)


def test_mha_matches_torch_causal_attn_mask() -> None:
    ours, ref = _pair(2)
    x, _ = _inputs(12)
    future = torch.ones(6, 6, dtype=torch.bool).triu(diagonal=1)  # PyTorch polarity: True = not allowed
    out, pattern = _run_ours(ours, x, x, x, ~future)
    ref_out, ref_w = ref(x, x, x, attn_mask=future, need_weights=True, average_attn_weights=False)
    assert torch.allclose(out, ref_out, atol=ATOL)
    assert torch.allclose(pattern, ref_w, atol=ATOL)
    assert torch.all(pattern.triu(diagonal=1) == 0.0)


def test_mha_matches_torch_cross_attention_tq_ne_tk() -> None:
    ours, ref = _pair(3)
    query, memory = _inputs(13, tq=4, tk=7)
    ignore = torch.zeros(3, 7, dtype=torch.bool)
    ignore[0, 5:] = True
    out, pattern = _run_ours(ours, query, memory, memory, (~ignore)[:, None, None, :])
    ref_out, ref_w = ref(query, memory, memory, key_padding_mask=ignore, need_weights=True, average_attn_weights=False)
    assert out.shape == (3, 4, D_MODEL)
    assert pattern.shape == ref_w.shape == (3, N_HEADS, 4, 7)
    assert torch.allclose(out, ref_out, atol=ATOL)
    assert torch.allclose(pattern, ref_w, atol=ATOL)


def test_mha_differs_when_weights_not_copied() -> None:
    """Guards the oracle: an un-synchronized reference must not match."""
    ours, _ = _pair(4)
    torch.manual_seed(99)
    other = nn.MultiheadAttention(D_MODEL, N_HEADS, batch_first=True).eval()
    x, _ = _inputs(14)
    out, _ = _run_ours(ours, x, x, x)
    ref_out, _ = other(x, x, x, need_weights=True, average_attn_weights=False)
    assert not torch.allclose(out, ref_out, atol=1e-3)
