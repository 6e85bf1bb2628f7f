"""Oracle test: a whole EncoderLayer against torch.nn.TransformerEncoderLayer with copied weights."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
from torch import nn

from transformer.config import TransformerConfig
from transformer.layers import EncoderLayer
from transformer.masks import padding_mask

D_MODEL, N_HEADS, D_FF = 32, 4, 64
ATOL = 1e-5


@pytest.fixture(autouse=True)
def _no_fastpath() -> Iterator[None]:
    """PyTorch's eval fast path returns zeros at padded positions; compare the plain math path."""
    before = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        yield
    finally:
        torch.backends.mha.set_fastpath_enabled(before)


def _pair(norm_position: str, seed: int) -> tuple[EncoderLayer, nn.TransformerEncoderLayer]:
    torch.manual_seed(seed)
    config = TransformerConfig(d_model=D_MODEL, n_heads=N_HEADS, d_ff=D_FF, dropout=0.0, norm_position=norm_position)
    ours = EncoderLayer(config).eval()
    with torch.no_grad():  # random gains/biases everywhere, so a swapped norm or bias cannot hide
        for p in ours.parameters():
            p.copy_(torch.randn_like(p) * (0.3 if p.dim() > 1 else 0.5) + (1.0 if p.dim() == 1 else 0.0) * 0.1)
    ref = nn.TransformerEncoderLayer(
        D_MODEL,
        N_HEADS,
        dim_feedforward=D_FF,
        dropout=0.0,
        activation="relu",
        batch_first=True,
        norm_first=norm_position == "pre",
    ).eval()
    a = ours.self_attn
    with torch.no_grad():
        ref.self_attn.in_proj_weight.copy_(torch.cat([a.w_q.weight, a.w_k.weight, a.w_v.weight]))
        ref.self_attn.in_proj_bias.copy_(torch.cat([a.w_q.bias, a.w_k.bias, a.w_v.bias]))
        ref.self_attn.out_proj.weight.copy_(a.w_o.weight)
        ref.self_attn.out_proj.bias.copy_(a.w_o.bias)
        ref.linear1.weight.copy_(ours.feed_forward.w_1.weight)
        ref.linear1.bias.copy_(ours.feed_forward.w_1.bias)
        ref.linear2.weight.copy_(ours.feed_forward.w_2.weight)
        ref.linear2.bias.copy_(ours.feed_forward.w_2.bias)
        for ref_norm, our_sub in ((ref.norm1, ours.sublayer[0]), (ref.norm2, ours.sublayer[1])):
            ref_norm.weight.copy_(our_sub.norm.gain)
            ref_norm.bias.copy_(our_sub.norm.bias)
    return ours, ref


def _input(seed: int) -> torch.Tensor:
    return torch.randn(3, 7, D_MODEL, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("norm_position", ["post", "pre"])
def test_encoder_layer_matches_torch_without_mask(norm_position: str) -> None:
    ours, ref = _pair(norm_position, seed=0)
    x = _input(1)
    with torch.no_grad():
        got = ours(x, None)
        want = ref(x)
    assert torch.allclose(got, want, atol=ATOL)


@pytest.mark.parametrize("norm_position", ["post", "pre"])
def test_encoder_layer_matches_torch_with_padding(norm_position: str) -> None:
    ours, ref = _pair(norm_position, seed=2)
    x = _input(3)
    ids = torch.tensor([[5, 6, 7, 8, 9, 10, 11], [5, 6, 7, 0, 0, 0, 0], [5, 0, 0, 0, 0, 0, 0]])
    allowed = padding_mask(ids, pad_id=0)
    with torch.no_grad():
        got = ours(x, allowed)
        want = ref(x, src_key_padding_mask=ids == 0)  # PyTorch polarity: True = ignore
        unmasked = ours(x, None)
    lengths = [7, 3, 1]
    for i, n in enumerate(lengths):  # padded query positions are compared too: the fast path is off
        assert torch.allclose(got[i, :n], want[i, :n], atol=ATOL)
    assert torch.allclose(got, want, atol=ATOL)
    assert not torch.allclose(got[1:], unmasked[1:], atol=1e-3)  # the mask mattered


def test_post_and_pre_norm_differ() -> None:
    post, _ = _pair("post", seed=4)
    pre, _ = _pair("pre", seed=4)
    x = _input(5)
    assert torch.equal(post.self_attn.w_q.weight, pre.self_attn.w_q.weight)
    with torch.no_grad():
        assert not torch.allclose(post(x, None), pre(x, None), atol=1e-3)
