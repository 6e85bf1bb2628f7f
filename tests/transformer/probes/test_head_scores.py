"""Per-head scores on hand-made patterns, worked out by hand: each ideal head scores 1 on its own score, uniform
heads 1/T; the heads page's summary and its head detectors read the same names and the same numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import transformer.probes.head_scores as head_scores_module
from transformer.probes.head_scores import (
    ALIGNMENT,
    ANTI_DIAGONAL,
    CROSS_SCORE_NAMES,
    DETECTOR_SCORE_NAMES,
    DIAGONAL,
    DISTANCE,
    DUPLICATE_TOKEN,
    ENTROPY,
    FIRST_TOKEN,
    INDUCTION,
    PREVIOUS_TOKEN,
    SCORE_NAMES,
    SOURCE_ALIGNMENT,
    SUMMARY_SCORE_NAMES,
    alignment_matrix,
    anti_diagonal_score,
    diagonal_score,
    distance_score,
    duplicate_token_score,
    entropy_score,
    first_token_score,
    head_scores,
    induction_score,
    names_for,
    previous_token_score,
    source_alignment_score,
)

T = 9


def one_head(matrix: np.ndarray) -> np.ndarray:
    """(Tq, Tk) → (1, 1, Tq, Tk)."""
    return matrix[None, None]


def at(columns: list[int], tk: int = T) -> np.ndarray:
    """Each query q puts all its weight on key columns[q]."""
    m = np.zeros((len(columns), tk))
    m[np.arange(len(columns)), columns] = 1.0
    return m


def causal_uniform(t: int) -> np.ndarray:
    m = np.tril(np.ones((t, t)))
    return m / m.sum(axis=1, keepdims=True)


def repeated_tokens(n: int) -> list[int]:
    """<bos> (id 1) then n distinct symbols twice."""
    half = list(range(10, 10 + n))
    return [1, *half, *half]


def test_perfect_previous_token_head_scores_one_and_nothing_else():
    pattern = one_head(at([0, *range(T - 1)]))  # query 0 can only look at itself
    assert previous_token_score(pattern)[0, 0] == 1.0
    assert diagonal_score(pattern)[0, 0] == 0.0
    assert first_token_score(pattern)[0, 0] == pytest.approx(1 / (T - 1))  # only query 1's previous token is key 0


def test_uniform_attention_scores_one_over_t_on_every_positional_score():
    pattern = one_head(np.full((T, T), 1 / T))
    for score in (previous_token_score, diagonal_score, anti_diagonal_score, first_token_score):
        assert score(pattern)[0, 0] == pytest.approx(1 / T)


def test_causal_uniform_previous_token_score_is_the_mean_of_one_over_row_length():
    pattern = one_head(causal_uniform(T))
    want = np.mean([1 / (q + 1) for q in range(1, T)])  # query q spreads over q + 1 keys
    assert previous_token_score(pattern)[0, 0] == pytest.approx(want)
    assert first_token_score(pattern)[0, 0] == pytest.approx(want)


def test_diagonal_anti_diagonal_and_first_token_heads():
    assert diagonal_score(one_head(np.eye(T)))[0, 0] == 1.0
    assert anti_diagonal_score(one_head(np.eye(T)[::-1]))[0, 0] == 1.0
    # odd T: the middle query is on both diagonals, and it is one of the T - 1 queries counted
    assert anti_diagonal_score(one_head(np.eye(T)))[0, 0] == pytest.approx(1 / (T - 1))
    assert first_token_score(one_head(at([0] * T)))[0, 0] == 1.0


def test_perfect_induction_head_looks_after_the_previous_occurrence():
    n = 5
    tokens = repeated_tokens(n)  # positions: 0 <bos>, 1..n first half, n+1..2n repeat
    columns = [q if q <= n else q - n + 1 for q in range(len(tokens))]  # repeat position q → first-half q - n, plus 1
    pattern = one_head(at(columns, len(tokens)))
    assert induction_score(pattern, tokens)[0, 0] == 1.0
    assert duplicate_token_score(pattern, tokens)[0, 0] == 0.0
    # a previous-token head is not an induction head, and a duplicate-token head is not either
    previous = one_head(at([0, *range(len(tokens) - 1)], len(tokens)))
    assert induction_score(previous, tokens)[0, 0] == 0.0
    duplicate = one_head(at([q if q <= n else q - n for q in range(len(tokens))], len(tokens)))
    assert duplicate_token_score(duplicate, tokens)[0, 0] == 1.0
    assert induction_score(duplicate, tokens)[0, 0] == 0.0


def test_token_scores_are_nan_when_nothing_repeats():
    pattern = one_head(causal_uniform(T))
    assert np.isnan(induction_score(pattern, list(range(T)))[0, 0])
    assert np.isnan(duplicate_token_score(pattern, list(range(T)))[0, 0])


def test_source_alignment_counts_weight_on_the_gold_positions():
    alignment = [2, 0, None, 1]
    gold = alignment_matrix(alignment, 4, 3)
    assert gold.tolist() == [[False, False, True], [True, False, False], [False, False, False], [False, True, False]]
    perfect = one_head(at([2, 0, 1, 1], 3))
    assert source_alignment_score(perfect, gold)[0, 0] == 1.0
    half = one_head(0.5 * at([2, 0, 1, 1], 3) + 0.5 * at([0, 1, 2, 0], 3))
    assert source_alignment_score(half, gold)[0, 0] == pytest.approx(0.5)
    assert alignment_matrix({0: {1, 2}}, 2, 3).tolist() == [[False, True, True], [False, False, False]]


def test_head_scores_places_each_score_at_its_layer_and_head():
    n = 4
    tokens = repeated_tokens(n)
    t = len(tokens)
    induction = at([q if q <= n else q - n + 1 for q in range(t)], t)
    patterns = np.stack(
        [
            np.stack([np.eye(t), at([0, *range(t - 1)], t)]),  # layer 0: diagonal head, previous-token head
            np.stack([causal_uniform(t), induction]),  # layer 1: uniform head, induction head
        ]
    )  # (2, 2, T, T)
    table = head_scores(patterns, tokens)
    assert table.names == tuple(n for n in DETECTOR_SCORE_NAMES if n != SOURCE_ALIGNMENT)
    assert table.scores.shape == (len(table.names), 2, 2)
    assert table.top(PREVIOUS_TOKEN, 1)[0][:2] == (0, 1)
    assert table.top(INDUCTION, 1) == [(1, 1, 1.0)]
    assert table.top(DIAGONAL, 1) == [(0, 0, 1.0)]
    assert len(table.top(DUPLICATE_TOKEN, 10)) == 4
    with pytest.raises(KeyError, match="source_alignment"):
        table.score(SOURCE_ALIGNMENT)
    cross = head_scores(patterns, alignment=np.eye(t, dtype=bool))
    assert cross.names == (PREVIOUS_TOKEN, FIRST_TOKEN, DIAGONAL, ANTI_DIAGONAL, SOURCE_ALIGNMENT)
    assert np.allclose(cross.score(SOURCE_ALIGNMENT), cross.score(DIAGONAL), atol=1 / t)  # query 0 counts here


def test_bad_shapes_raise_clear_errors():
    with pytest.raises(ValueError, match="layers, heads"):
        previous_token_score(np.ones((2, 2, 2, 3, 3)))
    with pytest.raises(ValueError, match="self-attention"):
        head_scores(one_head(np.eye(3)), tokens=[1, 2])
    with pytest.raises(ValueError, match="alignment"):
        source_alignment_score(one_head(np.eye(3)), np.eye(2, dtype=bool))


@pytest.mark.parametrize("lead", [(), (3,), (2, 3)], ids=["single (T, T)", "heads (H, T, T)", "stack (L, H, T, T)"])
def test_scores_read_one_pattern_one_layers_heads_or_a_stack(lead):
    """Hand-made patterns come as one (T, T) matrix as often as a stack: each score keeps the leading axes."""
    previous = np.broadcast_to(at([0, *range(T - 1)]), (*lead, T, T))
    uniform = np.full((*lead, T, T), 1 / T)
    assert previous_token_score(previous).shape == lead
    np.testing.assert_array_equal(previous_token_score(previous), np.ones(lead))
    for score in (previous_token_score, diagonal_score, anti_diagonal_score, first_token_score):
        np.testing.assert_allclose(score(uniform), np.full(lead, 1 / T))
    tokens = repeated_tokens(4)
    t = len(tokens)
    flat = np.full((*lead, t, t), 1 / t)
    assert induction_score(flat, tokens).shape == duplicate_token_score(flat, tokens).shape == lead
    np.testing.assert_allclose(source_alignment_score(flat, np.eye(t, dtype=bool)), np.full(lead, 1 / t))


def test_scores_name_a_shape_they_cannot_read():
    with pytest.raises(ValueError, match=r"\(Tq, Tk\), \(heads, Tq, Tk\)"):
        previous_token_score(np.ones(T))
    with pytest.raises(ValueError, match="layers, heads"):
        head_scores(np.ones((T, T)))  # a table is per layer and head


# The heads page's summary table: SUMMARY_SCORE_NAMES, read as `runs.heads.head_summary` reads them.


def summary(patterns: np.ndarray, kind: str | None = None, alignment=None):
    return head_scores(patterns, alignment=alignment, names=names_for(SUMMARY_SCORE_NAMES, kind))


def test_previous_token_head_in_the_summary():
    # query 0 can only look at itself; every later query looks at its previous token
    s = summary(one_head(np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=float)))
    assert s.score(PREVIOUS_TOKEN)[0, 0] == pytest.approx(1.0)  # queries 1, 2 → keys 0, 1
    assert s.score(DIAGONAL)[0, 0] == pytest.approx(0.0)  # query 0 (on itself) left out
    assert s.score(FIRST_TOKEN)[0, 0] == pytest.approx(1 / 2)  # query 1 on key 0, query 2 not
    assert s.score(ENTROPY)[0, 0] == pytest.approx(0.0)
    assert s.score(DISTANCE)[0, 0] == pytest.approx((0 + 1 + 1) / 3)  # entropy and distance average every query


def test_a_hand_built_previous_token_head_scores_the_same_in_the_summary_and_the_detectors():
    """One formula per behaviour: the table and the detector section cannot disagree on a shared name."""
    pattern = one_head(at([0, *range(T - 1)]))
    table, detectors = summary(pattern), head_scores(pattern)
    assert table.score(PREVIOUS_TOKEN)[0, 0] == detectors.score(PREVIOUS_TOKEN)[0, 0] == 1.0
    shared = set(table.names) & set(detectors.names)
    assert shared == {PREVIOUS_TOKEN, DIAGONAL, FIRST_TOKEN}
    for name in shared:
        np.testing.assert_array_equal(table.score(name), detectors.score(name))


def test_uniform_head_has_maximal_entropy():
    s = summary(np.full((1, 1, 2, 4), 0.25))
    assert s.score(ENTROPY)[0, 0] == pytest.approx(2.0) and s.max_entropy == pytest.approx(2.0)
    assert s.score(FIRST_TOKEN)[0, 0] == pytest.approx(0.25)
    # distances: query 0 → (0+1+2+3)/4 = 1.5, query 1 → (1+0+1+2)/4 = 1.0
    assert s.score(DISTANCE)[0, 0] == pytest.approx(1.25)


def test_mixed_row_entropy_by_hand():
    s = summary(one_head(np.array([[0.5, 0.25, 0.25], [0.0, 0.0, 1.0]])))
    assert s.score(ENTROPY)[0, 0] == pytest.approx((1.5 + 0.0) / 2)  # 0.5·1 + 2·0.25·2 = 1.5 bits; a one-hot row is 0
    assert s.score(PREVIOUS_TOKEN)[0, 0] == pytest.approx(0.0)  # query 1 → key 0
    assert s.score(DIAGONAL)[0, 0] == pytest.approx(0.0)  # query 1 → key 1; query 0 left out


def test_one_query_has_no_previous_token_diagonal_or_first_token():
    s = summary(np.full((2, 3, 1, 5), 0.2))  # one query, query 0: left out of every "where it looks" score
    assert s.score(ENTROPY).shape == (2, 3) and s.max_entropy == pytest.approx(math.log2(5))
    for name in (PREVIOUS_TOKEN, DIAGONAL, FIRST_TOKEN):
        assert np.isnan(s.score(name)).all(), name


def test_rows_list_every_head_with_every_score():
    s = summary(np.full((2, 3, 4, 4), 0.25))
    rows = s.rows()
    assert len(rows) == 6 and rows[4]["layer"] == 1 and rows[4]["head"] == 1
    assert set(rows[0]) == {"layer", "head", *s.names} and s.names == tuple(n for n in SUMMARY_SCORE_NAMES if n != ALIGNMENT)
    with pytest.raises(KeyError):
        s.score("nonsense")


def test_cross_attention_drops_the_index_scores_and_reports_alignment():
    p = np.stack([np.eye(3)[[2, 0, 1]], np.eye(3)])[None].astype(np.float32)  # (1, 2, 3, 3): an aligner, a diagonal
    cross = summary(p, kind="cross", alignment=(2, 0, 1))
    assert cross.names == (ENTROPY, FIRST_TOKEN, ALIGNMENT)
    assert cross.score(ALIGNMENT).tolist() == [[1.0, 0.0]]  # the diagonal head scores nothing
    for name in (PREVIOUS_TOKEN, DIAGONAL, DISTANCE):
        with pytest.raises(KeyError):
            cross.score(name)
    assert summary(p, kind="cross").names == (ENTROPY, FIRST_TOKEN)  # no gold alignment: no score


@pytest.mark.parametrize("kind", ["encoder", "decoder", None])
def test_self_attention_keeps_the_index_scores(kind):
    s = summary(np.full((1, 1, 3, 3), 1 / 3), kind=kind)
    assert s.names == (ENTROPY, PREVIOUS_TOKEN, DIAGONAL, FIRST_TOKEN, DISTANCE)
    assert s.score(DIAGONAL)[0, 0] == pytest.approx(1 / 3)


def test_one_cross_attention_rule_for_both_sections():
    for section in (SUMMARY_SCORE_NAMES, DETECTOR_SCORE_NAMES):
        kept = names_for(section, "cross")
        assert set(kept) == set(section) & set(CROSS_SCORE_NAMES)
        assert not {PREVIOUS_TOKEN, DIAGONAL, ANTI_DIAGONAL, DISTANCE, DUPLICATE_TOKEN, INDUCTION} & set(kept)
        assert names_for(section, "decoder") == names_for(section, "encoder") == tuple(section)
    assert set(SUMMARY_SCORE_NAMES) | set(DETECTOR_SCORE_NAMES) == set(SCORE_NAMES)


def softmax_patterns(shape: tuple[int, ...], causal: bool, dtype: type, seed: int = 0) -> np.ndarray:
    """Random attention weights (rows sum to 1), heads from diffuse to peaked enough that in float32 many weights
    underflow to 0 and some to subnormals."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=shape) * 30.0 ** rng.random((*shape[:-2], 1, 1))  # each head its scale, 1 to 30
    if causal:
        logits[..., np.triu_indices(shape[-1], 1)[0], np.triu_indices(shape[-1], 1)[1]] = -np.inf
    weights = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)).astype(dtype)


def whole_array_row_scores(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Entropy and distance by their whole-array formulas (the scores' code before it went a block of rows at a
    time)."""
    log_p = np.log2(p, out=np.zeros(p.shape, dtype=p.dtype), where=p > 0)
    tq, tk = p.shape[-2:]
    distance = np.abs(np.arange(tq)[:, None] - np.arange(tk)[None, :]).astype(p.dtype)
    return -(p * log_p).sum(axis=-1).mean(axis=-1), (p * distance).sum(axis=-1).mean(axis=-1)


ROUNDING = {np.float32: 2e-6, np.float64: 1e-13}
"""How far a score may be from the whole-array formula's: a causal block's rows are summed over the keys before
its zeros, in another order than the whole row's (the products are the same)."""


@pytest.mark.parametrize("threaded", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_entropy_and_distance_are_the_whole_array_formulas(dtype, threaded, monkeypatch):
    if threaded:  # layers this small are scored one after the other unless told otherwise
        monkeypatch.setattr(head_scores_module, "_THREADED_CELLS", 0)
    # 300 queries: four blocks of rows and a short fifth
    p = softmax_patterns((2, 3, 300, 300), causal=True, dtype=dtype)
    p[0, 1, 7] = 0.0  # a row with no weight at all
    p[1, 2, 40:60, :30] = 0.0  # zero weights below the diagonal
    entropy, distance = whole_array_row_scores(p)
    s = head_scores(p, names=(ENTROPY, PREVIOUS_TOKEN, DISTANCE))
    close = {"rtol": ROUNDING[dtype], "atol": 0}
    np.testing.assert_allclose(s.score(ENTROPY), entropy, **close)
    np.testing.assert_allclose(s.score(DISTANCE), distance, **close)
    np.testing.assert_array_equal(s.score(PREVIOUS_TOKEN), previous_token_score(p))
    np.testing.assert_allclose(entropy_score(p), entropy, **close)  # a whole stack at once
    np.testing.assert_allclose(distance_score(p[1, 2]), distance[1, 2], **close)  # one pattern: a 0-d score


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_weight_above_the_diagonal_is_never_skipped(dtype):
    """A block's keys after its last row are left out only when they hold nothing: a causal pattern edited to
    read ahead (the masks lab's "no causal mask") or a -0 there is scored over every key."""
    p = softmax_patterns((1, 2, 200, 200), causal=True, dtype=np.float32, seed=3)
    p[0, 1, 10, 150] = 0.25  # one weight far past row 10's block
    p[0, 0, 100, 199] = -0.0  # not a weight, but not skippable as +0 either
    p = p.astype(dtype)
    entropy, distance = whole_array_row_scores(p.astype(np.float32))
    s = head_scores(p, names=(ENTROPY, DISTANCE))
    np.testing.assert_allclose(s.score(ENTROPY), entropy, rtol=2e-6)
    np.testing.assert_allclose(s.score(DISTANCE), distance, rtol=2e-6)


def test_cross_attention_entropy_is_the_whole_array_formula_bit_for_bit():
    """Rows with weight on every key are summed over every key, as the whole array was: the same bits."""
    p = softmax_patterns((2, 2, 70, 23), causal=False, dtype=np.float32, seed=1)  # Tq != Tk
    p[1, 0, 3] = 0.0
    entropy, distance = whole_array_row_scores(p)
    s = head_scores(p, names=names_for(SUMMARY_SCORE_NAMES, "cross"))
    assert s.names == (ENTROPY, FIRST_TOKEN) and s.n_keys == 23
    np.testing.assert_array_equal(s.score(ENTROPY), entropy)
    np.testing.assert_array_equal(distance_score(p), distance)


CATALOGS = Path(__file__).resolve().parents[3] / "assets" / "i18n"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_catalogs_name_each_score_by_the_one_vocabulary(lang):
    """The summary's column titles are `heads.metric_<name>`, the detectors' `detectors.name_<name>`: no other."""
    heads = json.loads((CATALOGS / lang / "heads.json").read_text(encoding="utf-8"))
    detectors = json.loads((CATALOGS / lang / "detectors.json").read_text(encoding="utf-8"))
    metric_keys = {k.removeprefix("metric_") for k in heads if k.startswith("metric_") and k != "metric_pick"}
    assert metric_keys == set(SUMMARY_SCORE_NAMES)
    assert {k.removeprefix("name_") for k in detectors if k.startswith("name_")} == set(DETECTOR_SCORE_NAMES)
