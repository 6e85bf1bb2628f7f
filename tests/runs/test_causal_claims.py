"""Every sentence the Masks page says about lifting the causal mask, stated against the number it rests on, on
every shipped model, a random one and converted GPT-2 and BERT folders, in both languages (issue 39 §2).

The page used to say that lifting the mask changes a generated output "rarely"; it changed 8 of 10 of a class's
`en-zh` sentences. Now each claim is this sentence's: the test runs the experiment itself and checks the claim's
key and words against what happened.
"""

from __future__ import annotations

import re

import pytest

from runs.causal_claims import generation_claim, trained_with_mask, training_claim
from runs.causal_view import causal_target, run_causal, summarize
from runs.model_ref import ModelRef, is_untrained, load_bundle, shipped_models
from runs.reference import model_task
from runs.text_run import run_text
from transformer.storage.registry import load_model
from ui.i18n import catalog

FREQUENCY = re.compile(r"(?i)\b(rare|rarely|seldom|usually|normally|often)\b|很少|通常|往往|一般")


def _models(pretrained_dir) -> list[tuple[str, object]]:
    models = [(name, load_bundle(ModelRef.parse(name))) for name in shipped_models()]
    models.append(("random", load_bundle(ModelRef.random())))
    models += [(f"tiny-{family}", load_model(pretrained_dir / f"tiny-{family}")) for family in ("gpt2", "bert")]
    return models


def _text(bundle) -> str:
    task = model_task(bundle)
    return task.examples(1, "heldout", seed=0)[0].source if task is not None else "the cat sat on the mat"


def test_no_masks_sentence_claims_how_often_something_happens():
    for lang in ("en", "zh"):
        words = {k: v for k, v in catalog(lang).items() if k.startswith("masks.")}
        said = {k: v for k, v in words.items() if FREQUENCY.search(v)}
        assert not said, (lang, said)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_claim_is_what_this_run_measured_on_every_kind_of_model(pretrained_dir, lang):
    words = catalog(lang)
    seen = set()
    for name, bundle in _models(pretrained_dir):
        if bundle.config.is_encoder_only:  # the page ends at the padding mask: no causal claim is made
            assert words["masks.encoder_only_end"]
            seen.add("encoder-only")
            continue
        text = _text(bundle)
        target = causal_target(bundle, run_text(bundle, text, names=()))
        if target is None:
            continue
        experiment = run_causal(bundle, text, target.text, None)
        summary = summarize(experiment)

        generated = generation_claim(experiment)
        if is_untrained(bundle):
            assert generated is None, name  # an untrained model is not generated: nothing is said of generation
        else:
            changed = experiment.generated_with_mask != experiment.generated_without_mask
            assert generated.key == ("masks.generation_changed" if changed else "masks.generation_unchanged"), name
            sentence = words[generated.key].format(**generated.params)
            first = {
                "en": ("Changed on this sentence", "Unchanged on this sentence"),
                "zh": ("这个句子上改变了", "这个句子上没有改变"),
            }
            assert sentence.startswith(first[lang][0 if changed else 1]), (name, sentence)
            seen.add(generated.key)

        why = training_claim(bundle, summary)
        sentence = words[why.key].format(**why.params)
        assert why.params == {"changed": summary.changed, "n": summary.positions}, name
        assert summary.changed == sum(p.with_mask != p.without_mask for p in experiment.positions)
        assert str(summary.changed) in sentence and str(summary.positions) in sentence, (name, sentence)
        recorded = trained_with_mask(bundle)
        if is_untrained(bundle):
            assert why.key == "masks.causal_training_untrained", name
        elif recorded is None:  # not on the card: the sentence says nothing of how this model was trained
            assert why.key == "masks.causal_training_unrecorded", name
            assert "this model was trained" not in sentence and "这个模型是" not in sentence
        else:
            assert bundle.card["training"]["causal_mask"] is recorded
            assert why.key == ("masks.causal_training" if recorded else "masks.causal_training_without"), name
        assert not FREQUENCY.search(sentence), (name, sentence)
        seen.add(why.key)
    # every kind of model was met: trained with the mask by its card, untrained, unrecorded (GPT-2), encoder-only
    kinds = ("masks.causal_training", "masks.causal_training_untrained", "masks.causal_training_unrecorded", "encoder-only")
    assert set(kinds) <= seen
