"""One numbering, from 1, for layers, heads, steps and frames (issue 39 §4): no catalog sentence or picker label
describes a 0-based count, and the training film's captions name the head and frame its charts show.

A class read "Best: layer 1 head 3" under a chart whose outlined head sat at layer 2, head 4, a slider showing
"25" beside "Frame 26 of 26", and pickers labelled "Layer (0 = first)" showing 1, 2, 3."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hook_names import ordinal
from runs.training.films import load_film, shipped_film_scores
from tests.ui.conftest import figure, open_page, plotly_array
from ui.i18n import catalog

# wording that describes a count from 0: "(0 = first)", "0 = 第一层", "layer 0", "head 0", "frame 0", "第 0 层"
ZERO_BASED = re.compile(r"(?i)0\s*=\s*(first|第一)|\b(layer|head|step|frame)\s+0\b|第\s*0\s*(层|个头|步|帧)|(层|头|帧)\s*0\b")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_catalog_sentence_counts_layers_heads_steps_or_frames_from_zero(lang):
    found = {key: text for key, text in catalog(lang).items() if ZERO_BASED.search(text)}
    assert not found, found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_training_films_captions_name_what_its_charts_show(lang):
    at = open_page("training", tr_mode="film", lang=lang)  # opens on reverse's film, last frame
    film, scores = load_film("reverse"), shipped_film_scores("reverse")
    words = catalog(lang)
    captions = " ".join(c.value for c in at.caption)

    slider = at.slider(key="tr_frame")  # the frame: the slider and its caption count alike, from 1
    assert (slider.min, slider.max, slider.value) == (1, film.n_frames, film.n_frames)
    frame = words["training.frame_caption"].split("{frame}")[0] + str(slider.value)
    assert frame in captions and str(film.n_frames) in captions

    grid = plotly_array(figure(at, "tr_scores")["data"][0]["z"])  # (L, H) of the headline score, as drawn
    layer, head = np.unravel_index(np.nanargmax(grid), grid.shape)  # the chart's best head, 0-based
    best_layer, best_head, _ = scores.best(film.n_frames - 1)
    assert (layer, head) == (best_layer, best_head)
    said = words["training.scores_caption"].format(
        kind=words["training.kind_cross"],
        score=words["detectors.name_source_alignment"],
        step=f"{int(film.frame_steps[-1]):,}",
        layer=ordinal(layer),
        head=ordinal(head),
        value=f"{grid[layer, head]:.2f}",
    )
    assert said in captions, captions
    ticks = figure(at, "tr_scores")["layout"]["yaxis"].get("tickvals") or []
    assert 0 not in ticks  # the chart's axes count from 1 as well
    # the attention view opened on that head: its pickers show the caption's numbers
    assert (at.selectbox(key="tr_layer").value, at.selectbox(key="tr_head").value) == (layer, head)
    assert at.selectbox(key="tr_layer").format_func(layer) == str(ordinal(layer))
