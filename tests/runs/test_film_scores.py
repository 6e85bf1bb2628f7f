"""Heads finding their job: the task's detector score of every head in every frame, computed from a film's own frames
(so every shipped film carries it), and the stage boundaries that explain a continued film's loss spike."""

from __future__ import annotations

import numpy as np
import pytest

from runs.training.film_scores import FORMED_AT, film_scores
from runs.training.films import load_film, shipped_card, shipped_film_scores, shipped_films, shipped_stage_marks, stage_marks
from transformer.probes.head_scores import INDUCTION, PREVIOUS_TOKEN, SOURCE_ALIGNMENT
from transformer.tasks import ReverseTask
from transformer.training.film import Film

HEADLINE_HEAD = {  # the card field naming the head that does each task's job
    "reverse": "best_cross_attention_head",
    "translate-en-zh": "best_cross_attention_head",
    "translate-en-fr": "best_cross_attention_head",
    "translate-zh-en": "best_cross_attention_head",
    "en-zh": "best_cross_attention_head",  # scored on its probe's dictionary alignment (card: attention.probe_alignment)
    "zh-en": "best_cross_attention_head",
    "gpt-translate-en-zh": "best_prompt_attention_head",
    "gpt-en-zh": "best_prompt_attention_head",  # scored on its probe's dictionary alignment, as en-zh
    "induction": "induction_head",
}


def _card_head(name: str) -> tuple[int, int]:
    """(layer, head) of "decoder.layers.1.cross_attn head 2"."""
    named = shipped_card(name)["attention"][HEADLINE_HEAD[name]]
    layer = int(named.split("layers.")[1].split(".")[0])
    return layer, int(named.rsplit("head", 1)[1])


@pytest.mark.parametrize("name", shipped_films())
def test_every_shipped_film_shows_the_cards_head_finding_its_job(name):
    """The head the card names (measured on hundreds of held-out examples) is, on the film's probe in its last frame,
    the best head or within 0.05 of it (in `reverse` every last-layer cross head reads the mirror: 0.90-0.98), and
    it was not doing that job in the first frame: the chart shows it being learned."""
    film = load_film(name)
    scores = shipped_film_scores(name)
    assert scores is not None and scores.scores.shape[1] == film.n_frames
    assert scores.headline == (INDUCTION if name == "induction" else SOURCE_ALIGNMENT)
    layer, head = _card_head(name)
    last = scores.scores[-1, -1]  # (L, H) headline score, last frame
    best = scores.best(film.n_frames - 1)
    assert last[layer, head] >= best[2] - 0.05 and last[layer, head] >= FORMED_AT, (name, best, last)
    assert scores.scores[-1, 0, layer, head] < FORMED_AT  # untrained at the first frame
    formed = scores.first_formed()
    assert formed is not None and film.frame_steps[0] < formed <= film.frame_steps[-1]


def test_the_induction_film_scores_both_heads_of_the_circuit():
    scores = shipped_film_scores("induction")
    assert scores.kind == "decoder" and scores.names == (PREVIOUS_TOKEN, INDUCTION)
    final = scores.at(scores.scores.shape[1] - 1)
    assert final.top(PREVIOUS_TOKEN, 1)[0][0] == 0  # the previous-token head is in layer 0
    assert final.top(INDUCTION, 1)[0][0] == 1  # the induction head reads it in layer 1


def _film(cross: np.ndarray, steps=(1, 10)) -> Film:
    """A film of `reverse` on "abc" whose cross-attention frames are `cross` (S, L, H, 4, 4) uint8."""
    s = len(steps)
    square = np.zeros((s, 1, cross.shape[2], 4, 4), dtype=np.uint8)
    curves = {name: np.arange(1, 11, dtype=np.float32) for name in ("step", "loss", "token_accuracy", "learning_rate", "elapsed")}
    return Film(
        "abc",
        "cba",
        ("a", "b", "c", "<eos>"),
        ("<bos>", "c", "b", "a"),
        np.array(steps, dtype=np.int32),
        np.ones(s, dtype=np.float32),
        np.full(s, np.nan, dtype=np.float32),
        {"encoder": square, "decoder": square, "cross": cross},
        curves,
        np.zeros((0, 2), dtype=np.float32),
        {},
    )


def test_a_mirror_head_scores_one_and_a_uniform_head_a_quarter():
    mirror = np.zeros((4, 4), dtype=np.uint8)
    for row, key in enumerate((2, 1, 0, 3)):  # <bos>→c (key 2), c→b, b→a, a→<eos> (no alignment: not counted)
        mirror[row, key] = 255
    uniform = np.full((4, 4), 64, dtype=np.uint8)  # 64/255 ≈ 0.25 on each of 4 keys
    cross = np.stack([np.stack([uniform, uniform]), np.stack([uniform, mirror])])[:, None]  # (S=2, L=1, H=2, 4, 4)
    scores = film_scores(_film(cross), ReverseTask(max_len=5))
    assert scores.kind == "cross" and scores.names == (SOURCE_ALIGNMENT,)
    np.testing.assert_allclose(scores.scores[0, 0, 0], [64 / 255, 64 / 255], rtol=1e-6)
    np.testing.assert_allclose(scores.scores[0, 1, 0], [64 / 255, 1.0], rtol=1e-6)
    assert scores.best(1)[:2] == (0, 1)
    assert scores.first_formed() == 10  # the second frame's step


def test_the_reverse_films_loss_spike_is_marked_with_its_stage_change():
    film = load_film("reverse")
    marks = shipped_stage_marks("reverse", film)
    ends = np.cumsum([stage["steps"] for stage in shipped_card("reverse")["stages"]]).tolist()
    assert [mark.step for mark in marks] == ends[:-1] and marks[0].step == 1510  # where the card's stages meet
    changes = dict((name, (before, after)) for name, before, after in marks[0].changes)
    assert changes["max_len"] == ("12", "48") and changes["lr_factor"] == ("1.0", "0.5")
    steps, loss = film.curves["step"], film.curves["loss"]
    before = loss[(steps > 1310) & (steps <= 1510)].mean()
    after = loss[(steps > 1510) & (steps <= 1800)].max()
    assert after > before + 0.5  # the spike the mark explains is real


def test_a_continued_film_keeps_where_its_stages_meet(tmp_path):
    first = _film(np.zeros((2, 1, 2, 4, 4), dtype=np.uint8))
    joined = first.after(first).after(first)
    assert joined.stages == (10, 20)
    loaded = Film.load(joined.save(tmp_path / "film.npz"))
    assert loaded.stages == (10, 20)
    marks = stage_marks(loaded)  # no card: the boundaries, their causes unknown
    assert [(m.step, m.number, m.changes) for m in marks] == [(10, 2, ()), (20, 3, ())]
