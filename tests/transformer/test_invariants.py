"""Invariants the app's pictures rely on, on small seeded random models of every variant."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from hook_names import act_name, attn_module, hook_name
from transformer.config import TransformerConfig
from transformer.hooks import capture
from transformer.model import Transformer
from transformer.positional import sinusoidal_encoding

PAD, BOS = 0, 1
VOCAB = 20


VARIANTS = {
    "enc-dec-post-sinusoidal": {},
    "decoder-only": {"architecture": "decoder-only"},
    "pre-norm": {"norm_position": "pre"},
    "learned-pe": {"positional": "learned"},
}


def _model(variant: str) -> Transformer:
    torch.manual_seed(0)
    config = TransformerConfig(
        src_vocab_size=VOCAB,
        tgt_vocab_size=VOCAB,
        n_layers=2,
        d_model=32,
        n_heads=4,
        d_ff=64,
        dropout=0.0,
        max_len=32,
        **VARIANTS[variant],
    )
    return Transformer(config).eval()


def _padded(rows: list[list[int]]) -> torch.Tensor:
    width = max(len(r) for r in rows)
    return torch.tensor([r + [PAD] * (width - len(r)) for r in rows])


SRC = [[4, 5, 6, 7, 8, 2], [9, 10, 2], [11, 4, 12, 13, 2]]
TGT = [[BOS, 14, 15, 16, 17], [BOS, 18], [BOS, 19, 4, 5]]


def _run(model: Transformer, src_rows: list[list[int]], tgt_rows: list[list[int]]):
    src = _padded(src_rows) if model.config.is_encoder_decoder else None
    with torch.no_grad(), capture(model) as cache:
        logits = model(src, _padded(tgt_rows))
    return logits, cache


def _attn_prefixes(model: Transformer) -> list[str]:
    n = model.config.n_layers
    out = [attn_module("decoder", i) for i in range(n)]
    if model.config.is_encoder_decoder:
        out += [attn_module("encoder", i) for i in range(n)]
        out += [attn_module("cross", i) for i in range(n)]
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_pattern_rows_sum_to_one(variant: str) -> None:
    model = _model(variant)
    _, cache = _run(model, SRC, TGT)
    for prefix in _attn_prefixes(model):
        pattern, allowed = cache[hook_name(prefix, "pattern")], cache[hook_name(prefix, "mask")]
        live = allowed.any(dim=-1).expand(-1, pattern.shape[1], -1)  # (B, H, Tq): rows with a key to see
        assert live.any()
        sums = pattern.sum(dim=-1)
        assert torch.allclose(sums[live], torch.ones_like(sums[live]), atol=1e-5), prefix
        assert torch.all(pattern >= 0.0)


@pytest.mark.parametrize("variant", VARIANTS)
def test_decoder_causal_upper_triangle_is_exactly_zero(variant: str) -> None:
    model = _model(variant)
    _, cache = _run(model, SRC, TGT)
    for i in range(model.config.n_layers):
        pattern = cache[act_name("decoder", i, "pattern")]
        t = pattern.shape[-1]
        future = torch.ones(t, t, dtype=torch.bool).triu(diagonal=1)
        assert torch.all(pattern[..., future] == 0.0)
        assert torch.all(pattern[..., ~future].sum() > 0)


@pytest.mark.parametrize("variant", VARIANTS)
def test_padding_keys_get_exactly_zero_weight(variant: str) -> None:
    model = _model(variant)
    _, cache = _run(model, SRC, TGT)
    src_pad = _padded(SRC) == PAD  # (B, Ts)
    tgt_pad = _padded(TGT) == PAD  # (B, Tt)
    checked = 0
    for prefix in _attn_prefixes(model):
        pattern = cache[hook_name(prefix, "pattern")]  # (B, H, Tq, Tk)
        key_pad = tgt_pad if ".self_attn" in prefix and prefix.startswith("decoder") else src_pad
        for b in range(pattern.shape[0]):
            cols = key_pad[b].nonzero().flatten()
            if len(cols):
                assert torch.all(pattern[b, :, :, cols] == 0.0), prefix
                checked += 1
    assert checked >= 2  # the batch really has padding


@pytest.mark.parametrize("variant", VARIANTS)
def test_sentence_alone_equals_sentence_padded_in_batch(variant: str) -> None:
    model = _model(variant)
    batch_logits, batch_cache = _run(model, SRC, TGT)
    for b in (1, 2):  # the shorter sentences, padded in the batch
        alone_logits, alone_cache = _run(model, [SRC[b]], [TGT[b]])
        ts, tt = len(SRC[b]), len(TGT[b])
        assert alone_logits.shape[1] == tt
        assert torch.allclose(alone_logits[0], batch_logits[b, :tt], atol=1e-5)
        for prefix in _attn_prefixes(model):
            tq, tk = (
                (tt, tt)
                if prefix.startswith("decoder") and "self_attn" in prefix
                else ((tt, ts) if "cross" in prefix else (ts, ts))
            )
            alone = alone_cache[hook_name(prefix, "pattern")][0]
            batched = batch_cache[hook_name(prefix, "pattern")][b, :, :tq, :tk]
            assert alone.shape == batched.shape
            assert torch.allclose(alone, batched, atol=1e-5), prefix


def test_learned_and_sinusoidal_models_differ() -> None:
    """Guards the parametrization: the variants really are different models."""
    a, _ = _run(_model("enc-dec-post-sinusoidal"), SRC, TGT)
    b, _ = _run(_model("learned-pe"), SRC, TGT)
    assert not torch.allclose(a, b, atol=1e-3)


# ---- Positional encoding ---------------------------------------------------------------------------


def _numpy_sinusoid(max_len: int, d: int) -> np.ndarray:
    pe = np.zeros((max_len, d), dtype=np.float64)
    for pos in range(max_len):
        for i in range(0, d, 2):
            angle = pos / 10000 ** (i / d)  # i here is the even index 2i of the paper
            pe[pos, i] = math.sin(angle)
            if i + 1 < d:
                pe[pos, i + 1] = math.cos(angle)
    return pe


@pytest.mark.parametrize("d", [16, 32, 7])
def test_sinusoid_matches_formula(d: int) -> None:
    got = sinusoidal_encoding(100, d)
    assert got.shape == (100, d) and got.dtype == torch.float32
    assert np.allclose(got.numpy(), _numpy_sinusoid(100, d), atol=1e-6, rtol=0)
    assert torch.equal(got[0, 0::2], torch.zeros(len(range(0, d, 2))))  # sin(0)
    assert torch.equal(got[0, 1::2], torch.ones(d // 2))  # cos(0)


def test_model_adds_the_sinusoid() -> None:
    model = _model("enc-dec-post-sinusoidal")
    _, cache = _run(model, SRC, TGT)
    pe = cache["src_pos.hook_pe"]
    assert pe.shape == (1, 6, 32)
    assert np.allclose(pe[0].numpy(), _numpy_sinusoid(6, 32), atol=1e-6)
    assert torch.allclose(cache["src_pos.hook_out"], cache["src_embed.hook_tokens"] + pe)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_pe_at_pos_plus_k_is_a_linear_function_of_pe_at_pos(k: int) -> None:
    """Paper §3.5: for any fixed offset k, PE(pos+k) is a linear function of PE(pos)."""
    d, n = 16, 5000  # many positions, so even the slowest wavelength turns far enough to fit
    pe = sinusoidal_encoding(n + k, d).double().numpy()
    x, y = pe[:n], pe[k : n + k]
    solution, *_ = np.linalg.lstsq(x, y, rcond=None)  # x @ solution ≈ y
    m_k = solution.T  # PE(pos+k) ≈ m_k @ PE(pos)
    assert np.abs(x @ solution - y).max() < 1e-6  # float32 rounding only
    rotation = np.zeros((d, d))
    for i in range(0, d, 2):
        w = 1 / 10000 ** (i / d)
        c, s = math.cos(k * w), math.sin(k * w)
        # sin((p+k)w) = sin(pw)cos(kw) + cos(pw)sin(kw);  cos((p+k)w) = cos(pw)cos(kw) - sin(pw)sin(kw)
        rotation[i : i + 2, i : i + 2] = [[c, s], [-s, c]]
    assert np.abs(m_k - rotation).max() < 1e-6
    assert np.abs(pe[k : k + 50] - pe[:50] @ rotation.T).max() < 1e-5  # the formula's matrix works exactly


def test_embeddings_are_scaled_by_sqrt_d_model() -> None:
    model = _model("enc-dec-post-sinusoidal")
    _, cache = _run(model, SRC, TGT)
    scale = math.sqrt(32)
    src, tgt = _padded(SRC), _padded(TGT)
    assert torch.allclose(cache["src_embed.hook_tokens"], model.src_embed.lut.weight[src] * scale, atol=1e-6)
    assert torch.allclose(cache["tgt_embed.hook_tokens"], model.tgt_embed.lut.weight[tgt] * scale, atol=1e-6)
    assert not torch.allclose(cache["src_embed.hook_tokens"], model.src_embed.lut.weight[src], atol=1e-3)
