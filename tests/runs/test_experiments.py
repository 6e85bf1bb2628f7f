"""runs.experiments: the ablation default is a head whose removal changes this sentence's output,
found among the few the importance table ranks first."""

from runs.experiments import AblationDefault, InterventionChoice, ablation_candidates, ablation_spec, telling_head
from runs.model_ref import ModelRef, load_bundle
from runs.text_run import attention_kinds, run_text
from transformer.importance import load_importance


def test_the_default_head_changes_the_default_examples_output():
    bundle = load_bundle(ModelRef.parse("translate-en-zh"))
    text = str(bundle.card["example"])
    base = run_text(bundle, text, names=())
    candidates = ablation_candidates(load_importance(bundle), attention_kinds(bundle))
    assert candidates and all(s.changed > 0 for s in candidates)
    found = telling_head(candidates, base, lambda spec: run_text(bundle, text, names=(), interventions=(spec,)))
    assert found.changes_output and found.head is not None and found.checked <= 4
    ablated = run_text(bundle, text, names=(), interventions=(ablation_spec(found.head),))
    assert ablated.output_tokens != base.output_tokens  # checked again, independently


def test_at_most_limit_heads_are_run_and_the_top_one_is_kept_when_none_changes():
    bundle = load_bundle(ModelRef.parse("translate-en-zh"))
    text = "they sell one photo"
    base = run_text(bundle, text, names=())
    candidates = ablation_candidates(load_importance(bundle), attention_kinds(bundle))
    calls = []

    def unchanged(spec):
        calls.append(spec)
        return base

    found = telling_head(candidates, base, unchanged, limit=3)
    first = candidates[0]
    assert found == AblationDefault((first.kind, first.layer, first.head), False, 3, first) and len(calls) == 3


def test_no_table_no_candidates():
    assert ablation_candidates(None, ["encoder"]) == ()
    base = run_text(load_bundle(ModelRef.random()), "ab", names=())
    assert telling_head((), base, lambda spec: base) == AblationDefault(None, False, 0, None)


def test_choice_without_the_causal_switch_specs_only_what_was_chosen():
    specs = InterventionChoice(blocked=(1,), block_in=("cross",), ablate=("cross", 1, 0)).specs(2)
    assert [s.kind for s in specs] == ["block_keys", "block_keys", "zero_output"]
    assert specs[-1] == ablation_spec(("cross", 1, 0))
