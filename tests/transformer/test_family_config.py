"""The config fields pretrained families need: each defaults to the paper, is validated, is counted in the size
limits, and keeps every hook point's name (an encoder-only model has just the encoder's names)."""

from __future__ import annotations

import math

import pytest
import torch

from hook_names import hook_name
from tests.transformer.test_capture import GOLDEN_ENCODER_DECODER_POST
from transformer.config import TransformerConfig
from transformer.feedforward import ACTIVATIONS
from transformer.model import Transformer
from transformer.positional import sinusoidal_encoding, split_sinusoidal_encoding

BERT_LIKE = dict(
    architecture="encoder-only", token_type=True, embed_norm=True, output_transform=True, scale_embeddings=False, norm_eps=1e-12
)


def test_an_encoder_only_model_has_exactly_the_encoders_names() -> None:
    names = Transformer(TransformerConfig(architecture="encoder-only")).hook_names
    expected = [n for n in GOLDEN_ENCODER_DECODER_POST if n.startswith(("src_", "encoder.", "generator."))]
    assert names == expected


def test_bert_like_parts_add_names_and_change_none() -> None:
    names = Transformer(TransformerConfig(**BERT_LIKE)).hook_names
    extra = set(names) - set(GOLDEN_ENCODER_DECODER_POST)
    norms = ("src_pos.norm", "generator.transform.norm")
    assert extra == {hook_name(m, h) for m in norms for h in ("in", "out")}


@pytest.mark.parametrize(
    "overrides",
    [
        BERT_LIKE,
        dict(architecture="decoder-only", positional="learned", norm_position="pre", share_embeddings=True, activation="relu"),
        dict(positional="sinusoidal-split", share_embeddings=True, activation="silu"),
    ],
)
def test_estimated_parameters_count_the_new_parts(overrides) -> None:
    config = TransformerConfig(**overrides)
    assert config.estimated_parameters() == Transformer(config).num_parameters()


@pytest.mark.parametrize(
    ("field", "value"),
    [("activation", "tanh"), ("norm_eps", 0.0), ("norm_eps", "1e-5"), ("token_type", 1), ("scale_embeddings", None)],
)
def test_bad_values_are_named(field, value) -> None:
    with pytest.raises(ValueError, match=field):
        TransformerConfig(**{field: value})


def test_an_encoder_only_model_predicts_its_own_vocabulary() -> None:
    with pytest.raises(ValueError, match="src_vocab_size=64 must equal tgt_vocab_size=65"):
        TransformerConfig(architecture="encoder-only", tgt_vocab_size=65)


def test_activations_are_the_formulas() -> None:
    x = torch.linspace(-4, 4, 101, dtype=torch.float64)
    assert torch.allclose(ACTIVATIONS["gelu"](x), 0.5 * x * (1 + torch.erf(x / math.sqrt(2))))
    tanh_form = 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    assert torch.allclose(ACTIVATIONS["gelu_new"](x), tanh_form)
    assert torch.allclose(ACTIVATIONS["silu"](x), x * torch.sigmoid(x))


def test_split_sinusoids_are_the_papers_columns_sines_first() -> None:
    paper, split = sinusoidal_encoding(50, 16), split_sinusoidal_encoding(50, 16)
    assert torch.equal(split[:, :8], paper[:, 0::2]) and torch.equal(split[:, 8:], paper[:, 1::2])


def test_without_scaling_the_embedding_is_the_table_row() -> None:
    model = Transformer(TransformerConfig(architecture="encoder-only", scale_embeddings=False)).eval()
    ids = torch.tensor([[5, 6]])
    assert torch.equal(model.src_embed(ids), model.src_embed.lut.weight[ids])
