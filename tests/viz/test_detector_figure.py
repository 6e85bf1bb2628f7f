"""The head-detector figure keeps its cell numbers readable: at a 1280 px window, 6 panels of 4 heads leave
~29 px a cell, so the numbers shrink (and drop the ★, which the outline repeats) rather than overlap, and
narrower cells print none; the hover always has every full number."""

from __future__ import annotations

import numpy as np
import pytest

from transformer.probes.head_scores import head_scores
from viz.detector_figure import WIDTH_HINT, cell_width, detector_figure
from viz.mask_figures import text_px


def _scores(n_layers: int, n_heads: int, with_tokens: bool = True):
    rng = np.random.default_rng(0)
    tokens = [1, *range(10, 15), *range(10, 15)]
    patterns = rng.dirichlet(np.ones(len(tokens)), size=(n_layers, n_heads, len(tokens)))  # (L, H, T, T)
    patterns[0, 0] = np.eye(len(tokens), k=-1)
    patterns[0, 0, 0, 0] = 1.0  # a perfect previous-token head, so one cell is starred
    return head_scores(patterns, tokens if with_tokens else None)


def _printed(trace) -> list[str]:
    return [] if not trace.texttemplate else [str(s) for s in np.asarray(trace.text).ravel()]


@pytest.mark.parametrize("n_heads", [2, 4, 8])
def test_cell_numbers_fit_their_cells_or_are_left_to_the_hover(n_heads):
    scores = _scores(2, n_heads)  # six scores: six panels
    assert len(scores.names) == 6
    fig = detector_figure(scores)
    cell = cell_width(6, n_heads, WIDTH_HINT)
    for trace in fig.data:
        size = trace.textfont.size
        assert all(text_px(s, size) + 2 <= cell for s in _printed(trace)), (n_heads, size, cell)
        full = np.asarray(trace.customdata).ravel()
        assert all(s.startswith(("0.", "1.", "★", "–")) for s in full)  # the hover keeps "0.95", never ".95"
        assert "%{customdata}" in trace.hovertemplate
    assert "★1.00" in np.asarray(fig.data[0].customdata)[0, 0]  # the marked head keeps its star in the hover


def test_four_heads_by_six_panels_shrink_rather_than_overlap():
    """The case of the issue: the translator's 24 heads at 1280 px printed 12 px "★0.95" in ~29 px cells."""
    fig = detector_figure(_scores(2, 4))
    assert cell_width(6, 4) < text_px("★0.00", 12) + 2
    assert all(trace.texttemplate and trace.textfont.size < 12 for trace in fig.data)  # numbers still shown, smaller


def test_wide_cells_print_every_number_at_full_size_and_narrow_cells_none():
    wide = detector_figure(_scores(2, 4, with_tokens=False).only(("previous_token",)))
    (trace,) = wide.data
    assert trace.textfont.size == 12
    assert _printed(trace) == [str(s) for s in np.asarray(trace.customdata).ravel()] and "★1.00" in _printed(trace)
    narrow = detector_figure(_scores(2, 16))
    assert all(not trace.texttemplate for trace in narrow.data)  # no numbers at all ...
    assert all(np.asarray(trace.customdata).size == 2 * 16 for trace in narrow.data)  # ... but every one in the hover
