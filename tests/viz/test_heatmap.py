"""The enlarged head: exact float weights, square-ish size, translated words, stretchable colours."""

import numpy as np
import pytest

from viz.head_grid import max_pool
from viz.heatmap import (
    EXACT_CELLS,
    HOVER_BLOCKS,
    PLOT_PX,
    HeatmapText,
    head_figure,
    matrix_bytes,
    matrix_figure,
    position,
    size_px,
    strides,
)


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


# A long input's matrix: past EXACT_CELLS the colours go as an image and the hover per block (viz/heatmap.py).


def _image_levels(fig) -> np.ndarray:
    """The palette indices of a long matrix's layout image."""
    import base64

    from viz.png import decode_palette_png

    (image,) = fig.layout.images
    return decode_palette_png(base64.b64decode(image.source.split(",", 1)[1]))


def test_up_to_exact_cells_the_weights_go_exactly_and_past_it_as_an_image():
    side = int(EXACT_CELLS**0.5)
    exact = head_figure(_pattern(4, side, side), [str(i) for i in range(side)], [str(i) for i in range(side)])
    assert not exact.layout.images and exact.data[0].opacity is None
    np.testing.assert_array_equal(np.asarray(exact.data[0].z), _pattern(4, side, side))
    long = head_figure(_pattern(4, side + 1, side), [str(i) for i in range(side + 1)], [str(i) for i in range(side)])
    assert len(long.layout.images) == 1 and long.data[0].opacity == 0


@pytest.mark.parametrize(("tq", "tk"), [(300, 300), (1022, 1022), (700, 120), (97, 1000)])
def test_a_long_matrix_is_an_image_of_its_cells_and_a_hover_of_its_blocks(tq, tk):
    pattern = _pattern(5, tq, tk)
    fig = head_figure(pattern, [f"q{i}" for i in range(tq)], [f"k{i}" for i in range(tk)], HeatmapText(value="Weight"))
    sq, sk = strides(tq, tk)
    assert (sq, sk) == (-(-tq // HOVER_BLOCKS), -(-tk // HOVER_BLOCKS))
    hover = fig.data[0]
    # the hover: each block's largest weight, named by its first and last positions
    np.testing.assert_array_equal(np.asarray(hover.z), max_pool(pattern, sq, sk))
    assert np.asarray(hover.z).shape == (-(-tq // sq), -(-tk // sk))
    assert list(hover.y)[1] == (f"{sq}–{2 * sq - 1}: q{sq} … q{2 * sq - 1}" if sq > 1 else "1: q1")
    assert f"largest of these {sq} × {sk}" in hover.hovertemplate
    # the image: one pixel per cell up to PLOT_PX a side, past it each pixel the largest of the cells it covers
    levels = _image_levels(fig)
    pixels = max_pool(pattern, -(-tq // PLOT_PX), -(-tk // PLOT_PX))
    np.testing.assert_array_equal(levels, np.rint(pixels * 255).astype(np.uint8))
    (image,) = fig.layout.images
    assert (image.x, image.y) == (position(-0.5, sk), position(-0.5, sq))  # the first cell's outer corner
    assert (image.sizex, image.sizey) == pytest.approx((tk / sk, tq / sq))  # the image covers every position
    # each shown label sits on its own position's centre
    for tick, label in zip(fig.layout.xaxis.tickvals, fig.layout.xaxis.ticktext, strict=True):
        assert tick == pytest.approx(position(int(label[1:]), sk))


def test_a_long_head_is_sent_in_well_under_a_byte_a_cell():
    pattern = _pattern(6, 1022, 1022)
    labels = [str(i) for i in range(1022)]
    size = len(head_figure(pattern, labels, labels).to_json())
    assert size / pattern.size < 1.0  # float32 would be 5.6 bytes a cell: 5.8 MB


def test_a_long_cross_attention_outlines_its_alignment_on_the_right_cells():
    tq, tk = 400, 300
    alignment = (5, None, 299) + (0,) * (tq - 3)
    fig = head_figure(_pattern(7, tq, tk), [str(i) for i in range(tq)], [str(i) for i in range(tk)], alignment=alignment)
    sq, sk = strides(tq, tk)
    first, last = fig.layout.shapes[0], fig.layout.shapes[1]
    assert (first.x0, first.x1) == pytest.approx((position(4.5, sk), position(5.5, sk)))  # row 0 → key 5
    assert (first.y0, first.y1) == pytest.approx((position(-0.5, sq), position(0.5, sq)))
    assert (last.x0, last.y0) == pytest.approx((position(298.5, sk), position(1.5, sq)))  # row 2 → key 299


def test_a_long_matrix_keeps_its_colour_scale_and_range():
    values = np.linspace(-1.0, 1.0, 300 * 300, dtype=np.float32).reshape(300, 300)
    labels = [str(i) for i in range(300)]
    fig = matrix_figure(values, labels, labels, HeatmapText(), zmin=-1.0, zmax=1.0, colorscale="RdBu_r")
    levels = _image_levels(fig)
    assert levels[0, 0] == 0 and levels[-1, -1] == 255 and levels[150, 0] == 128  # -1 → 0, 1 → 255, 0 → the middle
    assert fig.data[0].zmin == -1.0 and fig.data[0].zmax == 1.0 and fig.data[0].colorbar.title.text == "Weight"


@pytest.mark.parametrize(("tq", "tk"), [(12, 9), (256, 256), (257, 256), (1022, 1022), (700, 120)])
def test_matrix_bytes_bounds_what_the_figure_sends(tq, tk):
    """The heads page reserves `matrix_bytes` for the enlarged head and the rollout before planning its grids."""
    pattern = _pattern(9, tq, tk)
    labels_q, labels_k = [str(i) for i in range(tq)], [str(i) for i in range(tk)]
    sent = len(head_figure(pattern, labels_q, labels_k).to_json())
    labels = sum(len(s) for s in labels_q + labels_k) * 4  # the axes' names and tick labels, beside the cells
    assert sent <= matrix_bytes(tq, tk) + labels + 4_000
    assert matrix_bytes(1022, 1022) < 0.15 * 1022 * 1022 * 5.6  # past EXACT_CELLS: a small part of float32's
