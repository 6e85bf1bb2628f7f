"""The head detectors' input: a repeated random sequence run through a model, every pattern captured."""

from __future__ import annotations

import numpy as np
import pytest

from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.probes.detector_inputs import (
    DECODER_CROSS,
    DECODER_SELF,
    ENCODER_SELF,
    detector_inputs,
    pattern_name,
    repeated_random_ids,
)
from transformer.storage.registry import load_model, random_bundle
from transformer.text.tokenizer import BOS_ID, EOS_ID, SPECIALS, CharTokenizer


def test_repeated_random_ids_are_distinct_symbols_twice_and_seeded():
    tok = CharTokenizer("abcdefghij")
    ids = repeated_random_ids(tok, half=6, seed=1)
    assert len(ids) == 12 and ids[:6] == ids[6:] and len(set(ids[:6])) == 6
    assert not {tok.vocab[i] for i in ids} & set(SPECIALS)
    assert ids == repeated_random_ids(tok, half=6, seed=1)
    assert ids != repeated_random_ids(tok, half=6, seed=2)
    assert len(repeated_random_ids(tok, half=50)) == 20  # capped at the vocabulary
    with pytest.raises(ValueError, match="at least 2"):
        repeated_random_ids(CharTokenizer("a"), half=3)


def test_encoder_decoder_model_gets_all_three_stacks():
    bundle = load_model("translate-en-zh")
    inputs = detector_inputs(bundle, half=8, seed=0)
    assert set(inputs.patterns) == {ENCODER_SELF, DECODER_SELF, DECODER_CROSS}
    layers, heads = bundle.config.n_layers, bundle.config.n_heads
    assert inputs.patterns[DECODER_SELF].shape == (layers, heads, 17, 17)
    assert inputs.patterns[DECODER_CROSS].shape == (layers, heads, 17, 17)  # 16 + <eos> encoder keys
    assert inputs.ids[DECODER_SELF][0] == BOS_ID and inputs.ids[ENCODER_SELF][-1] == EOS_ID
    assert inputs.tokens[DECODER_SELF][1:9] == inputs.tokens[DECODER_SELF][9:]
    for patterns in inputs.patterns.values():
        assert np.allclose(patterns.sum(axis=-1), 1.0, atol=1e-5)
    assert np.triu(inputs.patterns[DECODER_SELF][0, 0], k=1).max() == 0.0  # causal


def test_decoder_only_model_gets_its_self_attention_and_matches_a_trace():
    bundle = random_bundle(TransformerConfig(architecture="decoder-only", n_layers=2, d_model=32, n_heads=2, d_ff=64), seed=4)
    inputs = detector_inputs(bundle, half=5, seed=3)
    assert set(inputs.patterns) == {DECODER_SELF} and inputs.half == 5
    text = "".join(inputs.tokens[DECODER_SELF][1:])
    trace = trace_text(bundle, text, generate=False)  # the same sequence, teacher-forced
    want = trace.cache[pattern_name(DECODER_SELF, 1)][0].numpy()
    assert np.allclose(inputs.patterns[DECODER_SELF][1], want, atol=1e-6)
