"""Size limits are checked from the config alone, before a tensor is allocated (issue 14).

A hostile or mistyped config.json (n_layers=10**6 once ran 40 s and 5.7 GB before the allocator
gave up) must fail in microseconds with one line naming the field and its documented limit.
"""

from __future__ import annotations

import itertools
import time

import pytest

from transformer.config import (
    MAX_D_FF,
    MAX_D_MODEL,
    MAX_LAYERS,
    MAX_LEN,
    MAX_MODEL_BYTES,
    TransformerConfig,
)
from transformer.model import Transformer
from transformer.storage.registry import list_models, load_model

FAST = 0.5  # seconds; building any of these models would take tens of seconds and gigabytes


@pytest.mark.parametrize(
    ("field", "value", "limit"),
    [
        ("n_layers", 10**6, MAX_LAYERS),
        ("n_layers", 100_000, MAX_LAYERS),
        ("max_len", 10**9, MAX_LEN),
        ("d_ff", 10**9, MAX_D_FF),
        ("d_model", 65536, MAX_D_MODEL),
    ],
)
def test_oversized_field_fails_fast_naming_field_and_limit(field: str, value: int, limit: int) -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError) as info:
        TransformerConfig(**{field: value})
    assert time.perf_counter() - start < FAST
    message = str(info.value)
    assert f"{field}={value}" in message and str(limit) in message and "\n" not in message


def test_parameter_budget_refuses_a_config_within_every_field_limit() -> None:
    config = {"n_layers": MAX_LAYERS, "d_model": MAX_D_MODEL, "n_heads": 16, "d_ff": MAX_D_FF}
    with pytest.raises(ValueError, match=r"MiB.*limit of 2,048 MiB"):
        TransformerConfig(**config)
    assert MAX_MODEL_BYTES == 2 << 30  # a Qwen2.5-0.5B-sized model (1.84 GiB in float32) fits


def test_paper_configs_and_shipped_models_stay_valid() -> None:
    base = TransformerConfig.base(src_vocab_size=37000, tgt_vocab_size=37000, share_embeddings=True)
    big = TransformerConfig.base(  # the paper's "big" model, with its shared 37000-token vocabulary (213M parameters)
        d_model=1024, n_heads=16, d_ff=4096, src_vocab_size=37000, tgt_vocab_size=37000, share_embeddings=True
    )
    assert base.estimated_bytes() < MAX_MODEL_BYTES and big.estimated_bytes() < MAX_MODEL_BYTES
    infos = list_models()
    assert infos, "no shipped models found"
    for info in infos:
        assert load_model(info.name).config.estimated_bytes() < MAX_MODEL_BYTES


VARIANTS = (["encoder-decoder", "decoder-only"], ["post", "pre"], ["sinusoidal", "learned", "none"], [False, True])


@pytest.mark.parametrize(
    ("architecture", "norm_position", "positional", "share"),
    list(itertools.product(*VARIANTS)),
)
def test_estimated_parameters_equal_the_built_model(architecture: str, norm_position: str, positional: str, share: bool) -> None:
    config = TransformerConfig(
        architecture=architecture,
        norm_position=norm_position,
        positional=positional,
        share_embeddings=share,  # type: ignore[arg-type]
        src_vocab_size=30 if share else 21,
        tgt_vocab_size=30,
        n_layers=3,
        d_model=8,
        n_heads=2,
        d_ff=12,
        max_len=17,
    )
    model = Transformer(config)
    assert config.estimated_parameters() == model.num_parameters()
    buffers = sum(b.numel() for b in model.buffers())
    assert config.estimated_bytes() == 4 * (model.num_parameters() + buffers)
