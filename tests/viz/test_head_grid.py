"""The layer × head grid: compact (≤ 1.4 bytes a cell), faithful (tiles where they belong), clickable."""

import base64

import numpy as np
import pytest

from viz.head_grid import LEVELS, GridText, grid_figure, grid_geometry, max_pool, mosaic, peak_lines, quantize, stretch_tiles
from viz.payload import DEFAULT_BUDGET, plan_layers
from viz.png import decode_palette_png, encode_palette_png
from viz.style import MARK_COLOR
from viz.tokens import decoder_query_axis


def _patterns(seed: int, n_layers: int, n_heads: int, tq: int, tk: int, sharpness: float = 2.0) -> np.ndarray:
    logits = np.random.default_rng(seed).normal(size=(n_layers, n_heads, tq, tk)) * sharpness
    weights = np.exp(logits - logits.max(-1, keepdims=True))
    return (weights / weights.sum(-1, keepdims=True)).astype(np.float32)  # (L, H, Tq, Tk)


@pytest.mark.parametrize(("n_layers", "n_heads"), [(2, 4), (6, 8)])
@pytest.mark.parametrize("sharpness", [0.3, 2.0, 6.0])  # diffuse (untrained) to sharp (trained) heads
def test_grid_costs_at_most_1_4_bytes_per_cell(n_layers, n_heads, sharpness):
    patterns = _patterns(0, n_layers, n_heads, 64, 64, sharpness)
    size = len(grid_figure(patterns).to_json())
    assert size / patterns.size <= 1.4, size / patterns.size


@pytest.mark.parametrize("sharpness", [0.3, 6.0])
def test_png_grid_is_smaller_than_a_uint8_heatmap(sharpness):
    """Why the grid is a PNG: uint8 z is ~1.34–1.43 bytes a cell (plotly escapes each base64 "/")."""
    import plotly.graph_objects as go

    patterns = _patterns(1, 2, 4, 64, 64, sharpness)
    mosaic_z = quantize(patterns).transpose(0, 2, 1, 3).reshape(2 * 64, 4 * 64)
    heatmap = go.Figure(go.Heatmap(z=mosaic_z, showscale=False)).update_layout(template="none")
    assert len(grid_figure(patterns).to_json()) < len(heatmap.to_json())


def test_png_round_trip_is_lossless():
    indices = np.random.default_rng(2).integers(0, 256, size=(13, 17), dtype=np.uint8)
    palette = np.zeros((256, 3), dtype=np.uint8)
    assert np.array_equal(decode_palette_png(encode_palette_png(indices, palette)), indices)


def test_each_tile_holds_its_own_head():
    patterns = _patterns(3, 2, 3, 5, 7)
    geometry = grid_geometry(2, 3, 5, 7)
    image = mosaic(patterns, geometry)
    height, width = geometry.tile
    for layer in range(2):
        for head in range(3):
            r, c = geometry.origin(layer, head)
            tile = image[r : r + height : geometry.zoom, c : c + width : geometry.zoom]
            assert np.array_equal(tile, quantize(patterns[layer, head])), (layer, head)


def test_figure_image_decodes_to_the_mosaic():
    patterns = _patterns(4, 2, 2, 6, 6)
    fig = grid_figure(patterns)
    png = base64.b64decode(fig.data[0].source.split(",", 1)[1])
    geometry = grid_geometry(2, 2, 6, 6)
    assert np.array_equal(decode_palette_png(png), mosaic(patterns, geometry))


def test_quantization_spans_0_to_255():
    assert quantize(np.array([0.0, 0.5, 1.0, 1.2, -0.1])).tolist() == [0, 128, LEVELS, LEVELS, 0]


def test_click_targets_carry_layer_and_head_and_labels_name_tiles():
    fig = grid_figure(_patterns(5, 2, 3, 4, 4), GridText(hover="{layer}/{head}"), first_layer=4)
    labels, targets = fig.data[2], fig.data[3]
    assert list(labels.text) == ["L5 H1", "L5 H2", "L5 H3", "L6 H1", "L6 H2", "L6 H3"]  # shown from 1 (hook_names.ordinal)
    assert [list(c) for c in targets.customdata] == [[4, 0], [4, 1], [4, 2], [5, 0], [5, 1], [5, 2]]
    assert targets.hovertemplate[4].startswith("6/2")
    assert fig.layout.hoverdistance == -1  # the nearest tile centre wins anywhere in the grid


def test_max_pool_keeps_each_blocks_peak():
    weights = np.zeros((1, 1, 5, 5))
    weights[0, 0, 4, 1] = 0.9
    pooled = max_pool(weights, 2)
    assert pooled.shape == (1, 1, 3, 3) and pooled[0, 0, 2, 0] == 0.9 and pooled.sum() == pytest.approx(0.9)


@pytest.mark.parametrize(("tq", "tk", "stride"), [(7, 5, 2), (9, 9, 3), (10, 3, 4), (4, 4, 1), (3, 8, 5)])
def test_max_pool_equals_the_maximum_over_each_block(tq, tk, stride):
    weights = _patterns(tq * tk + stride, 2, 3, tq, tk)
    pooled = max_pool(weights, stride)
    rows, cols = range(0, tq, stride), range(0, tk, stride)
    expected = np.array(
        [
            [[[weights[i, h, r : r + stride, c : c + stride].max() for c in cols] for r in rows] for h in range(3)]
            for i in range(2)
        ]
    )
    np.testing.assert_array_equal(pooled, expected)


@pytest.mark.parametrize("stride", [2, 3])
def test_float16_weights_pool_to_the_same_maxima_as_float32(stride):
    """A bfloat16 run keeps float16 weights: pooled through their bits (they sort as the numbers do when none is
    negative or -0), else as numbers; either way the maxima of the same weights in float32."""
    weights = _patterns(7, 2, 3, 9, 11).astype(np.float16)
    weights[0, 0, :3, :3] = 0.0  # a block of masked keys (+0)
    weights[1, 2, 4, 5] = 6e-8  # a subnormal weight
    want = max_pool(weights.astype(np.float32), stride)
    got = max_pool(weights, stride)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got.astype(np.float32), want)
    signed = weights.copy()
    signed[0, 1, 0, 0], signed[0, 1, 0, 1] = -0.0, -0.5  # not weights, but still pooled as numbers
    np.testing.assert_array_equal(max_pool(signed, stride).astype(np.float32), max_pool(signed.astype(np.float32), stride))


def test_a_grid_of_unstacked_layers_is_the_grid_of_their_stack():
    weights = _patterns(3, 3, 2, 300, 300)
    axis = [str(i) for i in range(300)]
    stacked = grid_figure(weights, query_axis=axis, key_axis=axis)
    layers = grid_figure(list(weights), query_axis=axis, key_axis=axis)
    assert stacked.to_json() == layers.to_json()


def test_long_inputs_are_pooled_to_at_least_a_pixel_a_cell():
    geometry = grid_geometry(6, 8, 256, 256, width_px=1000)
    assert geometry.stride >= 2 and geometry.scale * geometry.zoom >= 1
    assert geometry.size_px[0] <= 1040


def test_payload_plan_pages_layers_and_pools_past_the_budget():
    assert not plan_layers(6, 8 * 64 * 64).paged
    plan = plan_layers(6, 3 * 8 * 256 * 256)  # every kind, 8 heads, T = 256
    assert plan.paged and plan.per_page * 3 * 8 * 256 * 256 * 1.45 <= DEFAULT_BUDGET
    assert list(plan.layers(plan.n_pages - 1))[-1] == 5 and plan.layers(99) == plan.layers(plan.n_pages - 1)
    huge = plan_layers(2, 10_000_000)
    assert huge.per_page == 1 and huge.extra_stride >= 2
    assert plan_layers(2, 1000, budget=-5).per_page == 1  # an over-reserved budget still draws something


def _tile(fig, geometry, row: int, head: int) -> np.ndarray:
    """The palette indices of one tile, one per cell, read back from the figure's PNG."""
    image = decode_palette_png(base64.b64decode(fig.data[0].source.split(",", 1)[1]))
    r, c = geometry.origin(row, head)
    height, width = geometry.tile
    return image[r : r + height : geometry.zoom, c : c + width : geometry.zoom]


def test_stretch_scales_each_tile_to_its_own_peak():
    patterns = np.full((1, 2, 4, 100), 0.01, dtype=np.float32)  # 100 keys: every weight near 1/T
    patterns[0, 1, :, 0] = 0.02
    geometry = grid_geometry(1, 2, 4, 100)
    plain, stretched = grid_figure(patterns), grid_figure(patterns, stretch=True)
    assert _tile(plain, geometry, 0, 0).max() <= 3  # near white: the blank grid of long inputs
    assert (_tile(stretched, geometry, 0, 0) == LEVELS).all()  # a uniform tile: all at its own peak
    assert _tile(stretched, geometry, 0, 1)[:, 0].tolist() == [LEVELS] * 4 and _tile(stretched, geometry, 0, 1)[0, 1] == 128
    assert not stretch_tiles(np.zeros((1, 1, 2, 2))).any()  # an all-zero tile stays blank


def test_important_heads_are_outlined_starred_and_their_importance_hovers():
    importance = np.array([[0.0, 0.35], [0.0, 0.0]])
    text = GridText(hover="L{layer} H{head}", importance_hover="<i>changes</i> {importance:.0%}")
    fig = grid_figure(_patterns(6, 2, 2, 4, 4), text, importance=importance)
    labels = next(t for t in fig.data if getattr(t, "mode", None) == "text")
    assert list(labels.text) == ["L1 H1", "L1 H2 ★", "L2 H1", "L2 H2"]
    marks = [t for t in fig.data if getattr(t, "mode", None) == "lines" and t.line.color == MARK_COLOR]
    assert len(marks) == 1 and np.isnan(marks[0].x).sum() == 1  # one outline: one tile marked
    hovers = fig.data[-1].hovertemplate
    assert hovers[1].startswith("L1 H2<br>&lt;i&gt;changes&lt;/i&gt; 35%") and "0%" in hovers[0]
    plain = grid_figure(_patterns(6, 2, 2, 4, 4))
    assert not any(getattr(t, "mode", None) == "lines" and t.line.color == MARK_COLOR for t in plain.data)
    assert "★" not in "".join(next(t for t in plain.data if getattr(t, "mode", None) == "text").text)


def test_marked_can_be_given_apart_from_importance_and_must_match_the_tiles():
    fig = grid_figure(_patterns(7, 1, 2, 3, 3), marked=np.array([[True, False]]))
    assert list(next(t for t in fig.data if getattr(t, "mode", None) == "text").text) == ["L1 H1 ★", "L1 H2"]
    with pytest.raises(ValueError, match="one value per tile"):
        grid_figure(_patterns(7, 1, 2, 3, 3), importance=np.zeros((2, 2)))


def test_tile_hover_names_decoder_rows_by_what_they_write():
    patterns = np.zeros((1, 1, 3, 2), dtype=np.float32)
    patterns[0, 0, :, :] = [[1, 0], [0, 1], [1, 0]]
    queries = decoder_query_axis(["<bos>", "我", "今天"], ["我", "今天", "<eos>"])
    fig = grid_figure(patterns, query_axis=queries, key_axis=["i", "<today>"])
    hover = fig.data[-1].hovertemplate[0]
    assert "&lt;bos&gt; → 我: i<br>我 → 今天: &lt;today&gt;<br>今天 → &lt;eos&gt;: i" in hover
    assert peak_lines(np.zeros((1, 1, 20, 2)), [str(i) for i in range(20)], ["a", "b"])[0][0][-1] == "…"
