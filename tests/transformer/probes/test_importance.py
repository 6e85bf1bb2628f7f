"""Head importance: the stored tables match a fresh computation, and the heads they call important
really change the output when ablated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from transformer.cli import main
from transformer.engine.decoding import trace_text
from transformer.interventions import InterventionSpec, build_interventions
from transformer.probes.importance import (
    IMPORTANCE_JSON,
    HeadImportance,
    compute_importance,
    fingerprint,
    load_importance,
    sample,
)
from transformer.storage.registry import MODELS_DIR, load_model

SHIPPED = [m for m in ("translate-en-zh", "translate-en-fr", "reverse") if (MODELS_DIR / m).is_dir()]
NATURAL = [m for m in ("en-zh", "zh-en") if (MODELS_DIR / m).is_dir()]  # no gold alignment; exact match is low by nature
GRAMMAR = "translate-en-zh"  # the tables' alignment and exactness are checked on a task whose rules know both
DECODER_ONLY = [m for m in ("gpt-translate-en-zh", "induction") if (MODELS_DIR / m).is_dir()]


@pytest.fixture(scope="module")
def default():
    return load_model(GRAMMAR)


@pytest.fixture(scope="module")
def stored(default) -> HeadImportance:
    result = load_importance(default)
    assert result is not None, f"regenerate: python -m transformer importance --model {GRAMMAR}"
    return result


@pytest.mark.slow
def test_stored_table_matches_a_fresh_computation(default, stored: HeadImportance) -> None:
    assert compute_importance(default, n=stored.n, seed=stored.seed) == stored


@pytest.mark.parametrize("name", DECODER_ONLY)
@pytest.mark.slow
def test_decoder_only_stored_table_matches_a_fresh_computation(name: str) -> None:
    bundle = load_model(name)
    stored = load_importance(bundle)
    assert stored is not None, f"regenerate: python -m transformer importance --model {name}"
    assert compute_importance(bundle, n=stored.n, seed=stored.seed) == stored


@pytest.mark.parametrize("name", SHIPPED + DECODER_ONLY + NATURAL)
def test_every_shipped_model_has_a_current_table(name: str) -> None:
    bundle = load_model(name)
    result = load_importance(bundle)
    assert result is not None and result.fingerprint == fingerprint(bundle)
    config = bundle.config
    kinds = ("encoder", "decoder", "cross") if config.is_encoder_decoder else ("decoder",)
    assert len(result.heads) == len(kinds) * config.n_layers * config.n_heads
    assert {(s.kind, s.layer, s.head) for s in result.heads} == {
        (k, layer, h) for k in kinds for layer in range(config.n_layers) for h in range(config.n_heads)
    }
    reads_source = "cross" if config.is_encoder_decoder else "decoder"  # a decoder-only model reads its prompt
    natural = name in NATURAL
    assert all((s.alignment is not None) == (s.kind == reads_source and not natural) for s in result.heads)
    assert result.important(), "a trained model has at least one head that matters"
    if natural:
        return
    # outputs are compared as the card's exact match compares them: after the prompt, cut to the reference
    # without <eos> (induction); a wrong cut would make the intact model look wrong on every example
    assert result.baseline_exact >= 0.9


def test_the_induction_head_matters_most_in_its_layer() -> None:
    """Removing the card's induction head costs the repeat more log-probability than any other head of its layer."""
    if "induction" not in DECODER_ONLY:
        pytest.skip("no induction model shipped")
    bundle = load_model("induction")
    table = load_importance(bundle)
    named = bundle.card["attention"]["induction_head"]
    layer = bundle.config.n_layers - 1
    row = max((s for s in table.heads if s.layer == layer), key=lambda s: s.logprob_drop)
    assert f"{row.module} head {row.head}" == named and row.changed > 0


@pytest.mark.slow
def test_important_heads_really_change_the_output(default, stored: HeadImportance) -> None:
    """Recompute: for the most important heads, some sampled sentence's output changes when ablated;
    for a head that never changed anything, none of those sentences changes."""
    examples = sample(default, stored.n, stored.seed)
    intact = [trace_text(default, e.source, names=()).output_text for e in examples]

    def outputs(module: str, head: int, chosen: list) -> list[str]:
        ablate = build_interventions([InterventionSpec("zero_output", module, head=head)])
        return [trace_text(default, e.source, names=(), interventions=ablate).output_text for e in chosen]

    for score in stored.important()[:2]:
        changed = sum(a != b for a, b in zip(outputs(score.module, score.head, examples), intact, strict=True))
        assert changed == round(score.changed * stored.n) > 0
    idle = next(s for s in stored.heads if s.changed == 0)
    assert outputs(idle.module, idle.head, examples[:10]) == intact[:10]


def test_alignment_head_of_the_card_scores_highest(stored: HeadImportance, default) -> None:
    head = stored.alignment_head()
    assert head is not None
    assert head.label == default.card["attention"]["best_cross_attention_head"]


def test_progress_is_reported_and_a_table_round_trips(default) -> None:
    calls: list[tuple[int, int]] = []
    result = compute_importance(default, n=3, seed=1, progress=lambda done, total: calls.append((done, total)))
    total = 3 * default.config.n_layers * default.config.n_heads
    assert calls == [(i, total) for i in range(total + 1)]
    assert HeadImportance.from_dict(json.loads(json.dumps(result.to_dict()))) == result


@pytest.mark.slow
def test_cli_writes_the_table(tmp_path: Path, default) -> None:
    out = tmp_path / IMPORTANCE_JSON
    assert main(["importance", "--model", GRAMMAR, "--n", "4", "--seed", "2", "--out", str(out)]) == 0
    written = HeadImportance.from_dict(json.loads(out.read_text(encoding="utf-8")))
    assert written == compute_importance(default, n=4, seed=2)


def test_stale_or_missing_tables_are_not_used(tmp_path: Path, default) -> None:
    assert load_importance(default, root=tmp_path) is None
    folder = tmp_path / default.name
    folder.mkdir()
    (folder / IMPORTANCE_JSON).write_text("{not json", encoding="utf-8")
    assert load_importance(default, root=tmp_path) is None
    table = json.loads((MODELS_DIR / default.name / IMPORTANCE_JSON).read_text(encoding="utf-8"))
    (folder / IMPORTANCE_JSON).write_text(json.dumps({**table, "fingerprint": "0" * 16}), encoding="utf-8")
    assert load_importance(default, root=tmp_path) is None  # computed on other weights


def test_a_random_model_needs_examples() -> None:
    from transformer.config import TransformerConfig
    from transformer.storage.registry import random_bundle
    from transformer.tasks import get_task

    bundle = random_bundle(TransformerConfig(n_layers=1, d_model=16, n_heads=2, d_ff=32, max_len=40), seed=0)
    with pytest.raises(ValueError, match="no task to sample from"):
        compute_importance(bundle, n=2)
    examples = get_task("reverse").examples(3, "heldout", seed=0)
    result = compute_importance(bundle, examples=examples)
    assert result.split == "given" and result.n == 3 and len(result.heads) == 3 * 2
    assert torch.isfinite(torch.tensor([s.logprob_drop for s in result.heads])).all()
