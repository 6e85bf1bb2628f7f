"""runs.causal_view: which target the teacher-forced pass reads, and the claims the Masks page makes
about lifting the causal mask, measured on the shipped weights."""

import pytest

from runs.causal_view import causal_target, run_causal, summarize
from runs.model_ref import ModelRef, load_bundle
from runs.reference import model_task
from runs.text_run import run_text
from transformer.probes.causal import causal_experiment


@pytest.fixture(scope="module")
def zh():
    return load_bundle(ModelRef.parse("translate-en-zh"))


def test_a_sentence_of_the_grammar_reads_the_right_answer(zh):
    text = "i read a book in the library today"
    target = causal_target(zh, run_text(zh, text, names=()))
    assert target.source == "reference" and target.why == ""
    assert target.text == model_task(zh).reference(text).target


@pytest.mark.parametrize(("text", "why"), [("i read", "out_of_grammar"), ("i read xyzzy", "unknown")])
def test_without_a_right_answer_it_reads_the_models_own_output(zh, text, why):
    trace = run_text(zh, text, names=())
    target = causal_target(zh, trace)
    assert (target.source, target.why) == ("own_output", why)
    assert zh.target_tokenizer.tokenize(target.text) == list(trace.output_tokens)


def test_an_untrained_model_reads_the_text_and_is_not_generated():
    bundle = load_bundle(ModelRef.random())
    trace = run_text(bundle, "abcd", names=())
    target = causal_target(bundle, trace)
    assert (target.source, target.text) == ("text", "abcd")
    experiment = run_causal(bundle, "abcd", target.text, None)
    assert experiment.generated_with_mask is None and experiment.generation_changed is None
    assert len(experiment.positions) == 5  # <bos> + 4 characters


def test_summary_counts_what_the_experiment_holds(zh):
    text = "i read a book in the library today"
    experiment = run_causal(zh, text, model_task(zh).reference(text).target, None)
    summary = summarize(experiment)
    rows = experiment.positions
    assert summary.positions == len(rows) == 9
    assert summary.changed == sum(p.with_mask != p.without_mask for p in rows) > 0
    assert summary.looking_ahead == len(rows) - 1  # every row but the last has later positions to see
    assert summary.right_with_mask == len(rows) > summary.right_without_mask
    assert 0 < summary.max_future_weight <= 1


@pytest.mark.parametrize("name", ["translate-en-zh", "translate-en-fr", "reverse"])
def test_the_pages_claims_hold_on_held_out_sentences(name):
    """In one teacher-forced pass rows look ahead and predictions change (the model was never taught to use the
    future, so it gets fewer next tokens right). How often generation changes is not claimed: the page says what
    happened on its own sentence (`runs.causal_claims`; issue 39 found it changed 8 of 10 of a class's sentences)."""
    bundle = load_bundle(ModelRef.parse(name))
    examples = model_task(bundle).examples(20, "heldout", seed=0)
    runs = [causal_experiment(bundle, ex.source, ex.target) for ex in examples]
    assert sum(e.n_changed > 0 for e in runs) >= 16
    right = [sum(p.with_mask == p.expected for p in e.positions) for e in runs]
    right_free = [sum(p.without_mask == p.expected for p in e.positions) for e in runs]
    assert sum(right_free) < sum(right)
    assert all(len(e.looking_ahead) == len(e.positions) - 1 for e in runs)
