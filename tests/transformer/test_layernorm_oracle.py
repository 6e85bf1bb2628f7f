"""Oracle test: our LayerNorm against torch.nn.LayerNorm, with copied gain and bias."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from transformer.hooks import capture, name_hook_points
from transformer.layernorm import LayerNorm

D = 24


def _pair(seed: int) -> tuple[LayerNorm, nn.LayerNorm]:
    g = torch.Generator().manual_seed(seed)
    ours, ref = LayerNorm(D), nn.LayerNorm(D)
    with torch.no_grad():
        ours.gain.copy_(torch.randn(D, generator=g))
        ours.bias.copy_(torch.randn(D, generator=g))
        ref.weight.copy_(ours.gain)
        ref.bias.copy_(ours.bias)
    assert ours.eps == ref.eps
    return ours, ref


@pytest.mark.parametrize("offset,scale", [(0.0, 1.0), (-50.0, 30.0), (3.0, 0.5)])
def test_layernorm_matches_torch(offset: float, scale: float) -> None:
    ours, ref = _pair(0)
    x = torch.randn(3, 7, D, generator=torch.Generator().manual_seed(1)) * scale + offset
    with torch.no_grad():
        got, want = ours(x), ref(x)
    assert torch.allclose(got, want, atol=1e-5)


def _float64_layernorm(ln: LayerNorm, x: torch.Tensor) -> torch.Tensor:
    xd = x.double()
    normalized = (xd - xd.mean(-1, keepdim=True)) / torch.sqrt(xd.var(-1, unbiased=False, keepdim=True) + ln.eps)
    return ln.gain.double() * normalized + ln.bias.double()


@pytest.mark.parametrize("offset,scale", [(1000.0, 1.0), (1e4, 3.0), (5.0, 1e-2)])
def test_layernorm_large_offsets_as_accurate_as_torch(offset: float, scale: float) -> None:
    """Offsets far above the spread lose float32 digits in any implementation (the input itself is
    quantized to ~offset * 6e-8), so compare both against float64 and require ours to be as good."""
    ours, ref = _pair(0)
    x = torch.randn(3, 7, D, generator=torch.Generator().manual_seed(1)) * scale + offset
    with torch.no_grad():
        got, want, exact = ours(x), ref(x), _float64_layernorm(ours, x)
    our_err = (got.double() - exact).abs().max().item()
    torch_err = (want.double() - exact).abs().max().item()
    assert our_err <= 2 * torch_err + 1e-5, (our_err, torch_err)
    assert torch.allclose(got, want, atol=2 * torch_err + 1e-5)
    assert torch.isfinite(got).all()


def test_layernorm_differs_from_unbiased_std_variant() -> None:
    """The Annotated Transformer's (x - mean) / (std + eps) with unbiased std would fail the oracle."""
    ours, _ = _pair(2)
    x = torch.randn(2, 5, D, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        got = ours(x)
        mean, std = x.mean(-1, keepdim=True), x.std(-1, keepdim=True)
        annotated = ours.gain * (x - mean) / (std + ours.eps) + ours.bias
    assert not torch.allclose(got, annotated, atol=1e-3)


def test_layernorm_statistics_before_gain_and_bias() -> None:
    ln = LayerNorm(D)  # gain 1, bias 0: the output is the normalized input itself
    name_hook_points(ln)
    x = torch.randn(4, 6, D, generator=torch.Generator().manual_seed(4)) * 7.0 + 300.0
    with torch.no_grad(), capture(ln) as cache:
        y = ln(x)
    assert torch.equal(cache["hook_in"], x)
    assert torch.equal(cache["hook_out"], y)
    assert torch.allclose(y.mean(-1), torch.zeros(4, 6), atol=1e-4)
    assert torch.allclose(y.var(-1, unbiased=False), torch.ones(4, 6), atol=1e-3)
    # Each token is normalized on its own: changing another token changes nothing here.
    x2 = x.clone()
    x2[:, 1:] *= 5
    with torch.no_grad():
        assert torch.equal(ln(x2)[:, 0], y[:, 0])


@pytest.mark.parametrize("offset,scale", [(0.0, 1.0), (-50.0, 30.0), (3.0, 0.5)])
def test_the_fused_layernorm_computes_the_formula_written_out(offset: float, scale: float) -> None:
    ours, _ = _pair(2)
    x = torch.randn(2, 5, D, generator=torch.Generator().manual_seed(3)) * scale + offset
    with torch.no_grad():
        torch.testing.assert_close(ours(x), ours.reference(x), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(ours(x).double(), _float64_layernorm(ours, x), atol=1e-5, rtol=1e-5)
