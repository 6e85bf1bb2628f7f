"""`runs.text_run.capture_bytes`: an upper bound of what a run records, close enough to make room for it."""

import pytest

from runs.text_run import attention_names, capture_bytes, run_text
from transformer.storage.registry import list_models, load_model

TEXTS = {"en": "She came to see us yesterday.", "zh": "我昨天和朋友去看电影。", "chars": "abcdefabcdef"}


@pytest.mark.parametrize("name", [info.name for info in list_models()])
def test_the_estimate_bounds_every_shipped_models_run(name):
    bundle = load_model(name)
    for text in TEXTS.values():
        for names in (None, attention_names(bundle)):
            recorded = sum(a.nbytes for a in run_text(bundle, text, names=names).arrays.values())
            estimate = capture_bytes(bundle, text, names)
            assert recorded <= estimate <= 50 * recorded + 1_000_000, (text, names is None, recorded, estimate)


def test_a_teacher_forced_runs_patterns_are_estimated_exactly():
    from transformer.config import TransformerConfig
    from transformer.storage.registry import random_bundle

    config = TransformerConfig(architecture="decoder-only", n_layers=2, d_model=16, n_heads=2, d_ff=32, max_len=64)
    bundle = random_bundle(config, seed=0, symbols="abc")
    names = attention_names(bundle)
    recorded = sum(a.nbytes for a in run_text(bundle, "abcabc", names=names).arrays.values())
    assert capture_bytes(bundle, "abcabc", names) == recorded == 2 * 2 * 7 * 7 * 4  # layers × heads × T² × float32
