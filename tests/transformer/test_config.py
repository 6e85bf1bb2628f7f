"""TransformerConfig validation: every invalid value is a ValueError naming the field."""

from __future__ import annotations

import dataclasses

import pytest

from transformer.config import TransformerConfig


def test_defaults_and_derived_values() -> None:
    c = TransformerConfig()
    assert c.d_k == c.d_model // c.n_heads
    assert c.is_encoder_decoder and c.vocab_sizes == (c.src_vocab_size, c.tgt_vocab_size)
    base = TransformerConfig.base()
    assert (base.n_layers, base.d_model, base.n_heads, base.d_ff, base.dropout) == (6, 512, 8, 2048, 0.1)
    assert base.d_k == 64
    assert TransformerConfig(architecture="decoder-only", tgt_vocab_size=10).vocab_sizes == (10,)


def test_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        TransformerConfig().d_model = 8  # type: ignore[misc]


def test_d_model_not_divisible_by_heads() -> None:
    with pytest.raises(ValueError, match=r"d_model=30 must be divisible by n_heads=4") as info:
        TransformerConfig(d_model=30, n_heads=4)
    assert "[1, 2, 3, 5, 6, 10, 15]" in str(info.value)  # suggests head counts that work


@pytest.mark.parametrize("field", ["tgt_vocab_size", "src_vocab_size", "n_layers", "d_model", "n_heads", "d_ff", "max_len"])
@pytest.mark.parametrize("value", [0, -3, 2.0, "8", True, None])
def test_sizes_must_be_positive_integers(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field):
        TransformerConfig(**{field: value})


def test_decoder_only_ignores_src_vocab_size() -> None:
    assert TransformerConfig(architecture="decoder-only", src_vocab_size=0).vocab_sizes == (64,)


@pytest.mark.parametrize(
    "field,value",
    [
        ("architecture", "encoder-only-ish"),
        ("norm_position", "middle"),
        ("positional", "alibi"),
        ("positional", None),
        ("norm", "batchnorm"),
    ],
)
def test_bad_choices(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field) as info:
        TransformerConfig(**{field: value})
    assert repr(value) in str(info.value)


@pytest.mark.parametrize("value", [-0.1, 1.0, 1.5, float("nan"), "0.1", None, True])
def test_dropout_out_of_range_or_not_a_number(value: object) -> None:
    with pytest.raises(ValueError, match="dropout"):
        TransformerConfig(dropout=value)


@pytest.mark.parametrize("value", [0.0, 0, 0.5, 0.999])
def test_dropout_accepted(value: float) -> None:
    assert TransformerConfig(dropout=value).dropout == value


@pytest.mark.parametrize("value", [-1, 64, 100, "0", 0.5, None])
def test_pad_id_must_be_a_token_id(value: object) -> None:
    with pytest.raises(ValueError, match="pad_id"):
        TransformerConfig(pad_id=value)


def test_pad_id_checked_against_smaller_vocabulary() -> None:
    assert TransformerConfig(src_vocab_size=8, tgt_vocab_size=100, pad_id=7).pad_id == 7
    with pytest.raises(ValueError, match="pad_id"):
        TransformerConfig(src_vocab_size=8, tgt_vocab_size=100, pad_id=8)


def test_from_dict_unknown_keys_named() -> None:
    with pytest.raises(ValueError, match=r"unknown config keys \['d_modle', 'heads'\]"):
        TransformerConfig.from_dict({"d_modle": 32, "heads": 4})


@pytest.mark.parametrize("data", [[1, 2], "d_model=8", None])
def test_from_dict_needs_an_object(data: object) -> None:
    with pytest.raises(ValueError, match="JSON object"):
        TransformerConfig.from_dict(data)  # type: ignore[arg-type]


def test_from_dict_validates_values() -> None:
    with pytest.raises(ValueError, match="n_layers"):
        TransformerConfig.from_dict({"n_layers": 0})


def test_to_dict_from_dict_round_trip() -> None:
    c = TransformerConfig(
        architecture="decoder-only",
        n_layers=3,
        d_model=48,
        n_heads=6,
        norm_position="pre",
        positional="learned",
        dropout=0.2,
        max_len=77,
    )
    assert TransformerConfig.from_dict(c.to_dict()) == c
    assert c.replace(n_layers=1).n_layers == 1
    with pytest.raises(ValueError, match="n_heads"):
        c.replace(n_heads=5)


def test_todays_decoder_parts_are_checked() -> None:
    """Rotary positions, grouped-query attention and the rest: valid values, decoder-only, and counted exactly."""
    modern = {"architecture": "decoder-only", "positional": "rotary", "norm": "rmsnorm", "feed_forward": "swiglu"}
    with pytest.raises(ValueError, match="decoder-only"):
        TransformerConfig(positional="rotary")  # an encoder-decoder model keeps the paper's attention
    with pytest.raises(ValueError, match="n_kv_heads=3 must divide n_heads=4"):
        TransformerConfig(**modern, n_kv_heads=3)
    with pytest.raises(ValueError, match="rope_theta"):
        TransformerConfig(**modern, rope_theta=0.5)
    with pytest.raises(ValueError, match="even"):
        TransformerConfig(**modern, head_dim=7)
    with pytest.raises(ValueError, match="ff_bias"):
        TransformerConfig(architecture="decoder-only", ff_bias=False)
    from transformer.model import Transformer

    no_bias = {"qkv_bias": False, "out_bias": False, "ff_bias": False}
    for extra in ({}, {"n_kv_heads": 2, "qk_norm": True, "head_dim": 8}, no_bias):
        config = TransformerConfig(**modern, **extra)
        assert config.estimated_parameters() == Transformer(config).num_parameters(), extra
