"""The enlarged head: exact float weights, square-ish size, translated words, stretchable colours."""

import numpy as np
import pytest

from viz.heatmap import HeatmapText, head_figure, matrix_figure, size_px


def _pattern(seed: int, tq: int, tk: int) -> np.ndarray:
    logits = np.random.default_rng(seed).normal(size=(tq, tk))
    weights = np.exp(logits)
    return (weights / weights.sum(-1, keepdims=True)).astype(np.float32)


def test_weights_are_sent_exactly():
    pattern = _pattern(0, 4, 6)
    fig = head_figure(pattern, list("abcd"), list("uvwxyz"))
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), pattern)
    assert fig.data[0].zmin == 0.0 and fig.data[0].zmax == 1.0
    assert "%{z:.4f}" in fig.data[0].hovertemplate


def test_queries_run_down_from_the_top():
    fig = head_figure(_pattern(1, 3, 3), list("abc"), list("abc"))
    assert fig.layout.yaxis.autorange == "reversed"


def test_stretch_maps_the_top_colour_to_the_largest_weight():
    pattern = np.full((2, 4), 0.25, dtype=np.float32)
    assert head_figure(pattern, list("ab"), list("wxyz"), stretch=True).data[0].zmax == pytest.approx(0.25)
    assert head_figure(pattern, list("ab"), list("wxyz"), stretch=False).data[0].zmax == 1.0


def test_title_and_value_name_are_the_given_words():
    text = HeatmapText(title="Encoder, layer 0, head 1", value="Weight")
    fig = head_figure(_pattern(2, 2, 2), list("ab"), list("ab"), text)
    assert fig.layout.title.text == "Encoder, layer 0, head 1"
    assert fig.data[0].colorbar.title.text == "Weight"


def test_mismatched_tokens_raise_a_clear_error():
    with pytest.raises(ValueError, match="do not match"):
        matrix_figure(np.zeros((2, 3)), ["a", "b"], ["a", "b"], HeatmapText())


def test_cells_stay_square_and_long_inputs_stay_bounded():
    w_short, h_short = size_px(5, 5)
    w_long, h_long = size_px(256, 256)
    assert w_short - h_short == 0 and w_long - h_long == 0
    assert h_long <= 760 + 140
    wide_w, wide_h = size_px(4, 12)
    assert wide_w > wide_h  # cross-attention with a longer source is wider than tall


def test_exact_payload_of_a_long_head_is_bounded():
    pattern = _pattern(3, 256, 256)
    size = len(head_figure(pattern, [str(i) for i in range(256)], [str(i) for i in range(256)]).to_json())
    assert size / pattern.size < 6.5  # float32 base64: ~5.6 bytes a cell plus labels


def test_margins_make_room_for_the_widest_label_without_automargin():
    """Plotly's automargin measures labels in the browser and draws twice; the margins are set here."""
    short = head_figure(np.full((3, 3), 1 / 3, dtype=np.float32), list("abc"), list("abc"))
    words = ["a", "library", "extraordinarily"]
    long = head_figure(np.full((3, 3), 1 / 3, dtype=np.float32), words, words)
    hanzi = head_figure(np.full((3, 3), 1 / 3, dtype=np.float32), ["图书馆里"] * 3, ["图书馆里"] * 3)
    for fig in (short, long, hanzi):
        assert not fig.layout.xaxis.automargin and not fig.layout.yaxis.automargin
    assert long.layout.margin.l > short.layout.margin.l + 80  # 15 Latin letters ≈ 130 px at 14 px
    assert hanzi.layout.margin.l > short.layout.margin.l + 45  # 4 wide characters ≈ 56 px
    assert short.layout.xaxis.tickangle == 0 and long.layout.xaxis.tickangle == -90  # upright once wider than a cell
    assert long.layout.margin.b > short.layout.margin.b + 80
