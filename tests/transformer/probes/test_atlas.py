"""The corpus atlas: stored scores recomputed from fresh runs, top sentences really the highest, every head stored,
the bundled set for a model without a held-out set (a converted folder), cached outside the models dir."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hook_names import act_name
from transformer.engine.decoding import trace_text
from transformer.probes.atlas import (
    ATLAS_JSON,
    BEHAVIOUR_SCORE_NAMES,
    BUNDLED,
    HELDOUT,
    SentenceScores,
    bundled_sentences,
    head_key,
    heldout_sentences,
    load_atlas,
    sentence_scores,
    summarize,
)
from transformer.probes.head_scores import head_scores, names_for
from transformer.storage.checkpoint import attention_kinds
from transformer.storage.registry import MODELS_DIR, load_model

SHIPPED = sorted(p.name for p in MODELS_DIR.iterdir() if (p / "config.json").exists())


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_model_stores_every_head_under_a_megabyte(name):
    path = MODELS_DIR / name / ATLAS_JSON
    assert path.stat().st_size <= 1_000_000
    atlas = load_atlas(path)
    assert atlas is not None and atlas.source == HELDOUT and atlas.n_sentences == len(atlas.texts) > 0
    bundle = load_model(name)
    c = bundle.config
    expected = {head_key(k, layer, h) for k in attention_kinds(bundle) for layer in range(c.n_layers) for h in range(c.n_heads)}
    assert set(atlas.heads) == expected
    raw = json.loads(path.read_text(encoding="utf-8"))
    for key, entry in raw["heads"].items():
        assert key.startswith((entry["kind"] == "encoder" and "encoder.") or "decoder.")
        assert set(entry["scores"]) <= set(raw["names"]) and entry["top"] == entry["top_by_score"].get(entry["chosen"], [])
        for top in entry["top_by_score"].values():
            values = [item["score"] for item in top]
            assert values == sorted(values, reverse=True)  # highest first
            assert all(atlas.texts[item["index"]] == item["text"] for item in top)


def _fresh_scores(bundle, text: str) -> dict[str, dict[str, float]]:
    """Every head's scores on `text`, from a fresh run, by head key."""
    trace = trace_text(bundle, text, names=None, generate=True)
    out: dict[str, dict[str, float]] = {}
    for kind in attention_kinds(bundle):
        stack = np.stack([trace.cache[act_name(kind, layer, "pattern")][0].numpy() for layer in range(bundle.config.n_layers)])
        tokens = None if kind == "cross" else (trace.src_ids if kind == "encoder" else trace.tgt_ids)
        names = names_for(
            ("previous_token", "induction", "duplicate_token", "first_token", "diagonal", "anti_diagonal", "entropy"), kind
        )
        table = head_scores(stack, tokens=tokens, names=names)
        for layer in range(bundle.config.n_layers):
            for head in range(bundle.config.n_heads):
                out[head_key(kind, layer, head)] = {n: float(table.score(n)[layer, head]) for n in table.names}
    return out


@pytest.mark.parametrize("name", ["induction", "translate-en-zh"])
def test_stored_top_scores_and_means_are_recomputed_from_fresh_runs(name):
    bundle = load_model(name)
    atlas = load_atlas(MODELS_DIR / name / ATLAS_JSON)
    fresh = [_fresh_scores(bundle, text) for text in atlas.texts]  # every sentence of the set, run again
    rng = np.random.default_rng(0)
    keys = list(atlas.heads)
    for key in rng.choice(keys, size=min(6, len(keys)), replace=False):
        entry = atlas.heads[key]
        for score, mean in entry["scores"].items():
            values = np.array([f[key][score] for f in fresh])
            finite = values[np.isfinite(values)]
            assert mean == pytest.approx(finite.mean(), abs=2e-4)
            assert entry["spread"][score] == pytest.approx(finite.std(), abs=2e-4)
            assert entry["n"][score] == finite.size
            best = np.sort(finite)[::-1][: len(entry["top_by_score"][score])]
            got = [item["score"] for item in entry["top_by_score"][score]]
            np.testing.assert_allclose(got, best, atol=2e-4)  # the top sentences are the highest of the set
            for item in entry["top_by_score"][score]:
                assert fresh[item["index"]][key][score] == pytest.approx(item["score"], abs=2e-4)


def test_summarize_keeps_the_highest_sentences_and_chooses_the_strongest_behaviour():
    texts = tuple(f"s{i}" for i in range(8))
    names = ("previous_token", "diagonal", "entropy")
    scores = np.full((8, 3, 1), np.nan)
    scores[:, 0, 0] = [0.1, 0.9, np.nan, 0.5, 0.7, 0.2, 0.95, 0.3]
    scores[:, 1, 0] = 0.2
    scores[:, 2, 0] = 3.0  # entropy in bits: larger, but never a chosen behaviour
    atlas = summarize(SentenceScores(texts, (("encoder", 0, 0),), names, scores), model="m", source=HELDOUT, k=3)
    entry = atlas.heads["encoder.layers.0.self_attn.0"]
    assert [t["text"] for t in entry["top"]] == ["s6", "s1", "s4"]
    assert entry["chosen"] == "previous_token" and "entropy" not in BEHAVIOUR_SCORE_NAMES
    assert entry["n"]["previous_token"] == 7
    assert entry["scores"]["previous_token"] == pytest.approx(np.nanmean(scores[:, 0, 0]), abs=1e-4)


def test_a_converted_folder_has_no_held_out_set_and_reads_the_bundled_one(pretrained_dir, tmp_path, monkeypatch):
    from runs import atlas_page

    monkeypatch.setenv(atlas_page.CACHE_ENV, str(tmp_path / "cache"))
    bundle = load_model(pretrained_dir / "tiny-gpt2")
    assert heldout_sentences(bundle, 5) is None
    texts, source = atlas_page.atlas_sentences(bundle)
    assert source == BUNDLED and texts == bundled_sentences()
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t in texts) and any(t.isascii() for t in texts)
    before = set(pretrained_dir.rglob("*"))
    seen = []
    atlas = atlas_page.compute_atlas(bundle, progress=lambda done, total: seen.append((done, total)))
    assert atlas.source == BUNDLED and atlas.n_sentences == len(texts)
    assert seen[0] == (0, len(texts)) and seen[-1] == (len(texts), len(texts))
    assert set(pretrained_dir.rglob("*")) == before  # nothing written inside the models dir
    cached = list((tmp_path / "cache").glob("*.json"))
    assert len(cached) == 1
    again = atlas_page.cached_atlas(bundle)
    assert again is not None and again.heads == json.loads(json.dumps(atlas.heads))


def test_no_sentences_is_refused():
    with pytest.raises(ValueError):
        sentence_scores(load_model("induction"), [])
