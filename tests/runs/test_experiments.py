"""runs.experiments: the ablation default is a head whose removal changes this sentence's output, tried in the
importance table's order (heads that matter first) until one does, so it is found whenever one exists."""

import pytest

from runs.experiments import AblationDefault, InterventionChoice, ablation_candidates, ablation_spec, telling_head
from runs.model_ref import ModelRef, load_bundle
from runs.text_run import attention_kinds, run_text
from transformer.probes.importance import load_importance
from transformer.tasks import get_task, is_heldout


def test_the_default_head_changes_the_default_examples_output():
    bundle = load_bundle(ModelRef.parse("translate-en-zh"))
    text = str(bundle.card["example"])
    base = run_text(bundle, text, names=())
    candidates = ablation_candidates(load_importance(bundle), attention_kinds(bundle))
    assert candidates and candidates[0].changed > 0
    found = telling_head(candidates, base, lambda spec: run_text(bundle, text, names=(), interventions=(spec,)))
    assert found.changes_output and found.head is not None and found.checked <= 4
    ablated = run_text(bundle, text, names=(), interventions=(ablation_spec(found.head),))
    assert ablated.output_tokens != base.output_tokens  # checked again, independently


def test_every_head_is_tried_in_ranked_order_and_the_top_one_is_kept_when_none_changes():
    bundle = load_bundle(ModelRef.parse("translate-en-zh"))
    text = "they sell one photo"
    base = run_text(bundle, text, names=())
    importance = load_importance(bundle)
    candidates = ablation_candidates(importance, attention_kinds(bundle))
    every_head = {(s.kind, s.layer, s.head) for s in importance.heads}
    assert {(s.kind, s.layer, s.head) for s in candidates} == every_head and len(candidates) == len(every_head)
    important = importance.important()
    assert candidates[: len(important)] == important  # heads that matter on held-out sentences come first
    rest = [s.logprob_drop for s in candidates[len(important) :]]
    assert rest == sorted(rest, reverse=True)  # then the rest, by the log-probability their removal costs
    calls = []

    def unchanged(spec):
        calls.append(spec)
        return base

    found = telling_head(candidates, base, unchanged)
    first = candidates[0]
    assert found == AblationDefault((first.kind, first.layer, first.head), False, len(every_head), first)
    assert calls == [ablation_spec((s.kind, s.layer, s.head)) for s in candidates]


# Held-out sentences of each task (seed 321) and a few on which the heads the table ranks first all leave the
# output alone while a lower-ranked head changes it (found by brute force; a default that tries only the top
# few heads misses them).
MISSED_BY_THE_TOP_HEADS = {
    "translate-en-zh": ["david throws that stone every weekend", "my father loses a famous novel in the kitchen every weekend"],
    "translate-en-fr": ["we want three red gifts at the restaurant", "the doctor pulls these round carpets"],
}


@pytest.mark.parametrize("name", sorted(MISSED_BY_THE_TOP_HEADS))
def test_when_any_head_changes_the_output_the_default_changes_it(name):
    bundle = load_bundle(ModelRef.parse(name))
    task = get_task(bundle.card["task"])
    texts = [e.source for e in task.examples(8, split="heldout", seed=321)] + MISSED_BY_THE_TOP_HEADS[name]
    assert all(is_heldout(text) for text in texts)
    heads = [(s.kind, s.layer, s.head) for s in load_importance(bundle).heads]
    candidates = ablation_candidates(load_importance(bundle), attention_kinds(bundle))
    for text in texts:
        base = run_text(bundle, text, names=())
        runs = {ablation_spec(h): run_text(bundle, text, names=(), interventions=(ablation_spec(h),)) for h in heads}
        changers = {h for h in heads if runs[ablation_spec(h)].output_tokens != base.output_tokens}  # brute force
        found = telling_head(candidates, base, runs.__getitem__)
        assert found.changes_output == bool(changers), text
        if changers:
            assert found.head in changers, text
        else:
            assert found.checked == len(heads), text
    missed = MISSED_BY_THE_TOP_HEADS[name]
    assert all(telling_head(candidates, run_text(bundle, t, names=()), runs_of(bundle, t)).checked > 4 for t in missed)


def runs_of(bundle, text):
    return lambda spec: run_text(bundle, text, names=(), interventions=(spec,))


def test_no_table_no_candidates():
    assert ablation_candidates(None, ["encoder"]) == ()
    base = run_text(load_bundle(ModelRef.random()), "ab", names=())
    assert telling_head((), base, lambda spec: base) == AblationDefault(None, False, 0, None)


def test_choice_without_the_causal_switch_specs_only_what_was_chosen():
    specs = InterventionChoice(blocked=(1,), block_in=("cross",), ablate=("cross", 1, 0)).specs(2)
    assert [s.kind for s in specs] == ["block_keys", "block_keys", "zero_output"]
    assert specs[-1] == ablation_spec(("cross", 1, 0))
