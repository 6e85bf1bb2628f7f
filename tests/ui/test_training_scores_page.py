"""The training page's heads-finding-their-job chart (the task's detector score of every head at the frame shown), the
live view opened on the best head, the honest time left, and a film's stage boundaries marked with their cause."""

from __future__ import annotations

import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from hook_names import ordinal
from runs.training.film_scores import film_scores
from runs.training.films import load_film, shipped_card, shipped_film_scores
from runs.training.registry import registry
from tests.ui.conftest import assert_no_exception, figure, open_page, plotly_array
from ui.i18n import catalog


def _scores_grid(at: AppTest) -> np.ndarray:
    return plotly_array(figure(at, "tr_scores")["data"][0]["z"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_recorded_film_shows_every_heads_task_score_frame_by_frame(lang):
    at = open_page("training", tr_mode="film", lang=lang)  # opens on reverse's film, last frame
    film, scores = load_film("reverse"), shipped_film_scores("reverse")
    last = film.n_frames - 1
    np.testing.assert_allclose(_scores_grid(at), scores.scores[-1, last], atol=1e-6)  # (L, H) source alignment
    layer, head, value = scores.best(last)
    words = catalog(lang)
    said = words["training.scores_caption"].format(
        kind=words["training.kind_cross"],
        score=words["detectors.name_source_alignment"],
        step=f"{int(film.frame_steps[last]):,}",
        layer=ordinal(layer),  # counted from 1, as the chart's axes
        head=ordinal(head),
        value=f"{value:.2f}",
    )
    assert any(c.value.startswith(said) for c in at.caption), [c.value for c in at.caption]
    at.slider(key="tr_frame").set_value(1).run()  # frame 1: the slider counts from 1
    assert_no_exception(at)
    first = _scores_grid(at)
    np.testing.assert_allclose(first, scores.scores[-1, 0], atol=1e-6)
    assert first.max() < 0.5 < scores.scores[-1, last].max()  # the chart shows the head finding its job


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_reverse_films_stage_changes_are_marked_on_the_loss_chart(lang):
    at = open_page("training", tr_mode="film", lang=lang)
    curves = figure(at, "tr_curves")
    labels = [note["text"] for note in curves["layout"].get("annotations", [])]
    words = catalog(lang)
    stages = shipped_card("reverse")["stages"]
    assert labels == [words["training.stage_label"].format(n=n) for n in range(2, len(stages) + 1)]
    ends = np.cumsum([stage["steps"] for stage in stages]).tolist()[:-1]
    assert [shape["x0"] for shape in curves["layout"]["shapes"] if shape["line"].get("dash") == "dash"] == ends
    reasons = [next(c.value for c in at.caption if label in c.value and "1,510" in c.value) for label in labels[:1]]
    assert "48" in reasons[0] and "12" in reasons[0]  # longer strings from stage 2, said beside the chart


def test_a_film_without_stages_has_no_marks():
    at = open_page("training", tr_mode="film", lang="en")
    at.selectbox(key="tr_film_model").set_value("translate-en-zh").run()
    assert not figure(at, "tr_curves")["layout"].get("annotations")
    assert figure(at, "tr_scores")  # every shipped film carries the chart


@pytest.mark.slow
def test_live_training_opens_on_the_best_head_and_says_how_long_at_most():
    for job in registry().running():
        job.stop()
        job.wait(120)
    at = open_page("training", tr_steps=400, tr_layers=1, tr_heads=2, tr_dmodel=16)
    at.button(key="tr_start").click().run()
    deadline = time.monotonic() + 240
    while not (at.get("plotly_chart") and "steps/s" in at.get("progress")[0].proto.text):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.5)
        at.run()
        assert_no_exception(at)
    progress = at.get("progress")[0].proto.text
    assert "at most" in progress and "until 99% held-out exact match or step 400" in progress
    job = registry().running()[0]
    try:
        film = job.view().film
        index = at.slider(key="tr_frame").value - 1 if at.slider else 0  # the slider counts frames from 1
        frame = film_scores(film, job.task)
        shown = (at.selectbox(key="tr_kind").value, at.selectbox(key="tr_layer").value, at.selectbox(key="tr_head").value)
        assert shown == (frame.kind, *frame.best(index)[:2])  # opened on the frame's best head
        assert catalog("en")["training.best_head_note"] in [c.value for c in at.caption]
        assert figure(at, "tr_scores")
        other = 1 - at.selectbox(key="tr_head").value
        at.selectbox(key="tr_head").set_value(other).run()  # the user's pick is kept while training goes on
        time.sleep(1.0)
        at.run()
        assert at.selectbox(key="tr_head").value == other
        assert catalog("en")["training.best_head_note"] not in [c.value for c in at.caption]
    finally:
        job.stop()
        job.wait(120)


def test_the_start_button_trains_the_lesson_preset_not_bare_defaults():
    """What no widget sets stays the preset's: the page once trained `reverse` on strings of up to 48 characters with
    a check every 250 steps (JobOptions' bare defaults), which a class waited 21 minutes for."""
    from runs.training.options import default_options
    from transformer.tasks.recipes import LESSON_ALPHABET

    for job in registry().running():
        job.stop()
        job.wait(120)
    at = open_page("training", tr_layers=1, tr_heads=2, tr_dmodel=16)
    at.button(key="tr_start").click().run()
    assert_no_exception(at)
    job = registry().running()[0]
    try:
        preset = default_options("reverse")
        assert (job.options.max_len, job.options.eval_every, job.options.target_exact) == (8, 100, 0.99)
        assert (job.options.max_len, job.options.eval_every) == (preset.max_len, preset.eval_every)
        assert job.task.max_len == 8 and job.task.alphabet == LESSON_ALPHABET
        assert job.options.d_model == 16  # the widgets' values still count
    finally:
        job.stop()
        job.wait(120)
