"""Model-core traps (issue 14): initialisation, dtype of the position tables, and decode's masks."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from transformer.config import TransformerConfig
from transformer.hooks import capture
from transformer.masks import cross_mask
from transformer.model import Transformer
from transformer.positional import sinusoidal_encoding

CONFIG = TransformerConfig(
    n_layers=1, d_model=32, n_heads=4, d_ff=64, dropout=0.0, max_len=512, src_vocab_size=20, tgt_vocab_size=20
)
SRC = torch.tensor([[4, 5, 6, 7, 2], [8, 9, 2, 0, 0]])  # (B, Ts): row 1 is padded
TGT = torch.tensor([[1, 10, 11], [1, 12, 0]])  # (B, Tt)


def test_learned_position_table_keeps_its_small_init() -> None:
    # randn * 0.02 by design; Xavier over a (512, 32) table would give std sqrt(2 / 544) ≈ 0.061.
    torch.manual_seed(0)
    model = Transformer(CONFIG.replace(positional="learned"))
    for table in (model.src_pos.learned, model.tgt_pos.learned):
        assert abs(table.std().item() - 0.02) < 0.002


def test_other_matrices_still_get_xavier() -> None:
    torch.manual_seed(0)
    weight = Transformer(CONFIG.replace(positional="learned")).encoder.layers[0].feed_forward.w_1.weight  # (64, 32)
    bound = (6 / (32 + 64)) ** 0.5
    assert weight.abs().max() <= bound and weight.abs().max() > 0.9 * bound


def test_sinusoid_table_is_exact_in_the_models_dtype() -> None:
    model = Transformer(CONFIG).double()
    table = model.src_pos.sinusoid
    assert table.dtype == torch.float64 and "src_pos.sinusoid" in dict(model.named_buffers())
    # the formula in float64, not float32 values cast up (those are off by up to ~3e-8)
    pos = np.arange(CONFIG.max_len, dtype=np.float64)[:, None]
    angle = pos / 10000.0 ** (np.arange(0, CONFIG.d_model, 2, dtype=np.float64) / CONFIG.d_model)  # (T, d/2)
    assert np.abs(table[:, 0::2].numpy() - np.sin(angle)).max() < 1e-12
    assert np.abs(table[:, 1::2].numpy() - np.cos(angle)).max() < 1e-12
    model.float()
    assert torch.equal(model.src_pos.sinusoid, sinusoidal_encoding(CONFIG.max_len, CONFIG.d_model))


@pytest.mark.parametrize("positional", ["sinusoidal", "learned", "none"])
def test_position_encoding_follows_double(positional: str) -> None:
    model = Transformer(CONFIG.replace(positional=positional)).double().eval()
    with capture(model, ["src_pos.hook_pe"]) as cache:
        logits = model(SRC, TGT)
    pe = cache["src_pos.hook_pe"]
    assert logits.dtype == torch.float64 and pe.dtype == torch.float64
    assert pe.shape == (1, SRC.shape[1], CONFIG.d_model)


def test_decode_without_src_ids_or_mask_is_refused() -> None:
    model = Transformer(CONFIG).eval()
    memory = model.encode(SRC)
    with pytest.raises(ValueError, match="src_ids or cross_allowed"):
        model.decode(TGT, memory)
    with pytest.raises(ValueError, match="memory"):
        model.decode(TGT, src_ids=SRC)


def test_decode_with_an_explicit_cross_mask_equals_decode_with_src_ids() -> None:
    model = Transformer(CONFIG).eval()
    with torch.no_grad():
        memory = model.encode(SRC)
        by_ids = model.decode(TGT, memory, SRC)
        by_mask = model.decode(TGT, memory, cross_allowed=cross_mask(SRC, CONFIG.pad_id, TGT.shape[1]))
        unmasked = model.decode(TGT, memory, cross_allowed=torch.ones(2, 1, TGT.shape[1], SRC.shape[1], dtype=torch.bool))
    assert torch.equal(by_ids, by_mask)
    assert torch.allclose(by_ids[0], unmasked[0])  # row 0 has no padding
    assert not torch.allclose(by_ids[1], unmasked[1])  # row 1's padding must be hidden


def test_decoder_only_decode_needs_no_source() -> None:
    model = Transformer(CONFIG.replace(architecture="decoder-only")).eval()
    assert model.decode(TGT).shape == (*TGT.shape, CONFIG.d_model)
