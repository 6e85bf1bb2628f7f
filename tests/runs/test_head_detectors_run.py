"""runs.head_detectors: a table per attention kind, scores are shares of weight, and source alignment
is measured for a translator with a known alignment (and matches the argmax measure's best head)."""

import numpy as np
import pytest

from runs.head_detectors import detector_table
from runs.model_ref import ModelRef, load_bundle
from transformer.probes.head_scores import INDUCTION, PREVIOUS_TOKEN, SOURCE_ALIGNMENT


@pytest.mark.parametrize("key", ["translate-en-zh", "gpt-translate-en-zh", ModelRef.random(architecture="decoder-only").key])
def test_every_kind_is_scored(key):
    bundle = load_bundle(ModelRef.parse(key))
    table = detector_table(bundle)
    expected = ("encoder", "decoder", "cross") if bundle.config.is_encoder_decoder else ("decoder",)
    assert table.kinds == expected
    for kind, scores in table.scores.items():
        assert scores.scores.shape[1:] == (bundle.config.n_layers, bundle.config.n_heads)
        finite = scores.scores[np.isfinite(scores.scores)]
        assert finite.min() >= 0 and finite.max() <= 1 + 1e-6
        assert (INDUCTION in scores.names) == (kind != "cross")
    assert (table.alignment_examples > 0) == (key == "translate-en-zh")
    if key == "translate-en-zh":
        assert SOURCE_ALIGNMENT in table.scores["cross"].names


def test_translator_has_a_source_aligned_cross_head():
    table = detector_table(load_bundle(ModelRef.parse("translate-en-zh")))
    ((_, _, score),) = table.scores["cross"].top(SOURCE_ALIGNMENT, 1)
    assert score > 0.5, "some cross-attention head puts most of its weight on the word being translated"


def test_induction_model_is_found_by_the_detectors():
    scores = detector_table(load_bundle(ModelRef.parse("induction"))).scores["decoder"]
    ((layer, _, score),) = scores.top(INDUCTION, 1)
    assert layer == 1 and score >= 0.9
    (first, _, score), (second, _, _) = scores.top(PREVIOUS_TOKEN, 2)
    # measured 0.40 and 0.39: two layer-0 heads share the previous-token work (uniform would be ~0.1)
    assert first == second == 0 and score >= 0.3


@pytest.mark.parametrize("key", ["translate-en-zh", "reverse", ModelRef.random().key])
def test_cross_attention_gets_no_score_that_compares_positions_by_index(key):
    """Issue 10 §3: a target index and a source index are not comparable between two languages, so cross-attention
    keeps only the sink and the gold alignment (`CROSS_SCORE_NAMES`, the rule the heads page's summary table follows
    too); self-attention keeps all."""
    from transformer.probes.head_scores import (
        ANTI_DIAGONAL,
        CROSS_SCORE_NAMES,
        DIAGONAL,
        DUPLICATE_TOKEN,
        FIRST_TOKEN,
        INDEX_SCORE_NAMES,
    )

    table = detector_table(load_bundle(ModelRef.parse(key)))
    cross = table.scores["cross"].names
    assert set(cross) <= set(CROSS_SCORE_NAMES) and FIRST_TOKEN in cross
    assert {PREVIOUS_TOKEN, DIAGONAL, ANTI_DIAGONAL, DUPLICATE_TOKEN} <= set(INDEX_SCORE_NAMES)
    assert not {*INDEX_SCORE_NAMES, INDUCTION} & set(cross)
    assert (SOURCE_ALIGNMENT in cross) == (table.alignment_examples > 0)
    for kind in ("encoder", "decoder"):
        assert {PREVIOUS_TOKEN, DIAGONAL, ANTI_DIAGONAL, FIRST_TOKEN} <= set(table.scores[kind].names)
