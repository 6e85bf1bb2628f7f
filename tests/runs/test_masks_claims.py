"""The Masks page's batch and mask explanations hold for the model shown (issue 39 §2): each structure (encoder-
decoder, decoder-only, encoder-only) gets its own words, checked against the page's real padded batch on every
shipped model, a random one and converted GPT-2, BERT and Marian folders, in both languages."""

from __future__ import annotations

import pytest

from runs.masks_claims import batch_claim, masks_claim, structure
from runs.masks_page import masks_batch
from runs.model_ref import ModelRef, load_bundle, shipped_models
from runs.text_run import run_text
from transformer.storage.registry import load_model
from ui.i18n import catalog

CROSS = {"en": "cross-attention lets", "zh": "交叉注意力让"}  # the sentence that says cross-attention exists
DECODER_READS = {"en": "decoder reads", "zh": "解码器读入"}
NO_CAUSAL = {"en": "no causal mask", "zh": "没有因果掩码"}


@pytest.fixture(scope="module")
def models(pretrained_dir) -> list[tuple[str, object]]:
    found = [(name, load_bundle(ModelRef.parse(name))) for name in shipped_models()]
    found.append(("random", load_bundle(ModelRef.random())))
    return found + [(f"tiny-{f}", load_model(pretrained_dir / f"tiny-{f}")) for f in ("gpt2", "bert", "marian")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_model_is_told_about_the_masks_it_has(models, lang):
    words, met = catalog(lang), set()
    for name, bundle in models:
        config = bundle.config
        view = masks_batch(bundle, [run_text(bundle, text, names=()) for text in ("the cat", "a dog sat")]).view
        kind = structure(view.has_source, view.has_decoder)
        expected = (
            "encoder-only" if config.is_encoder_only else "encoder-decoder" if config.is_encoder_decoder else "decoder-only"
        )
        assert kind == expected, name
        met.add(kind)
        batch = words[batch_claim(view.has_source, view.has_decoder).key]
        masks = words[masks_claim(view.has_source, view.has_decoder).key]
        assert (CROSS[lang] in masks) == config.is_encoder_decoder, (name, masks)
        assert (DECODER_READS[lang] in batch) == (kind != "encoder-only"), (name, batch)
        assert (NO_CAUSAL[lang] in masks) == (kind == "encoder-only"), (name, masks)
    assert met == {"encoder-decoder", "decoder-only", "encoder-only"}
