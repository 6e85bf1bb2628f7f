"""The step-by-step numbers are the model's own: recomputed in NumPy, they reproduce the capture."""

import numpy as np
import pytest

from hook_names import act_name, attn_module, hook_name
from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.storage.registry import random_bundle
from viz.multihead import build_multihead_view, concat_error, concat_heads, multihead_figure
from viz.step_by_step import (
    MAX_DIMS,
    MAX_KEYS,
    build_step_view,
    check_head,
    key_window,
    recompute_pattern,
    step_hook_names,
)
from viz.step_figures import qkv_figure, scores_figure, weighted_sum_figure
from viz.trace import TraceData

KINDS = ("encoder", "decoder", "cross")


@pytest.fixture(scope="module")
def bundle():
    return random_bundle(TransformerConfig(n_layers=2, d_model=64, n_heads=4, dropout=0.0), seed=3)


def _trace(bundle, text, kind, layer):
    return TraceData.from_trace(trace_text(bundle, text, names=step_hook_names(kind, layer)))


@pytest.fixture(scope="module")
def traces(bundle):
    return {(kind, layer): _trace(bundle, "hello world, attention!", kind, layer) for kind in KINDS for layer in (0, 1)}


def _w_o(bundle, kind, layer):
    w_o = bundle.model.get_submodule(attn_module(kind, layer)).w_o
    return w_o.weight.detach().numpy(), w_o.bias.detach().numpy()


@pytest.mark.parametrize("kind", KINDS)
def test_softmax_of_scaled_scores_with_mask_reproduces_pattern_and_z(traces, kind):
    for layer in (0, 1):
        arrays = traces[(kind, layer)].arrays
        path = attn_module(kind, layer)
        q, k, v = (arrays[hook_name(path, x)][0] for x in "qkv")  # (H, T, d_k)
        allowed = arrays[hook_name(path, "mask")][0]  # (1, Tq, Tk)
        pattern = recompute_pattern(q, k, allowed)  # (H, Tq, Tk)
        assert np.abs(pattern - arrays[hook_name(path, "pattern")][0]).max() < 1e-5
        assert np.abs(pattern @ v - arrays[hook_name(path, "z")][0]).max() < 1e-5
        for head in range(q.shape[0]):
            assert check_head(arrays, kind, layer, head).passes(1e-5)


def test_causal_mask_blocks_future_keys_exactly(traces):
    arrays = traces[("decoder", 0)].arrays
    allowed = arrays["decoder.layers.0.self_attn.hook_mask"][0, 0]
    assert not allowed.all(), "a decoder self-attention mask blocks something"
    q, k = (arrays[act_name("decoder", 0, x)][0] for x in "qk")
    pattern = recompute_pattern(q, k, allowed)
    assert np.all(pattern[:, ~allowed] == 0.0)
    np.testing.assert_allclose(pattern.sum(-1), 1.0, atol=1e-9)


def test_fully_masked_row_is_all_zero():
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    allowed = np.ones((3, 5), bool)
    allowed[1] = False
    pattern = recompute_pattern(q, k, allowed)
    assert np.all(pattern[1] == 0) and np.allclose(pattern[[0, 2]].sum(-1), 1)


def test_check_head_catches_a_wrong_pattern(traces):
    arrays = dict(traces[("encoder", 0)].arrays)
    name = "encoder.layers.0.self_attn.hook_pattern"
    tampered = arrays[name].copy()
    tampered[0, 1, 0, ::-1] = tampered[0, 1, 0].copy()  # reverse one row: still sums to 1
    arrays[name] = tampered
    assert check_head(arrays, "encoder", 0, 0).passes()
    assert not check_head(arrays, "encoder", 0, 1).passes()


@pytest.mark.parametrize("kind", KINDS)
def test_step_view_rows_are_the_captured_numbers(traces, kind):
    trace = traces[(kind, 1)]
    path = attn_module(kind, 1)
    for query in range(len(trace.query_tokens(kind))):
        view = build_step_view(trace.arrays, kind, 1, 2, query, trace.query_tokens(kind), trace.key_tokens(kind))
        keys = view.keys
        np.testing.assert_allclose(view.scaled, trace.arrays[hook_name(path, "scores")][0, 2, query, keys], atol=1e-5)
        np.testing.assert_allclose(view.weights, trace.arrays[hook_name(path, "pattern")][0, 2, query, keys], atol=1e-5)
        np.testing.assert_allclose(view.z, view.captured_z, atol=1e-5)
        np.testing.assert_allclose(view.contributions.sum(0) + view.rest, view.z, atol=1e-12)
        assert view.hidden_weight == pytest.approx(1 - view.weights.sum(), abs=1e-9)
        np.testing.assert_array_equal(view.allowed, trace.arrays[hook_name(path, "mask")][0, 0, query, keys])


def test_long_input_is_clipped_to_a_window_around_the_strongest_key(bundle):
    trace = _trace(bundle, "the quick brown fox jumps over the lazy dog", "encoder", 0)
    n = len(trace.src_tokens)
    assert n > MAX_KEYS
    view = build_step_view(trace.arrays, "encoder", 0, 0, 5, trace.src_tokens, trace.src_tokens)
    assert len(view.keys) == MAX_KEYS and view.keys_clipped and view.n_keys == n
    strongest = int(np.argmax(trace.arrays["encoder.layers.0.self_attn.hook_pattern"][0, 0, 5]))
    assert strongest in view.keys
    assert view.dims == MAX_DIMS < view.d_k and view.dims_clipped
    assert view.q.shape == (MAX_DIMS,) and view.k.shape == view.v.shape == (MAX_KEYS, MAX_DIMS)
    assert view.hidden_weight > 0


def test_key_window_stays_inside_the_sequence():
    assert key_window(0, 30, 12) == (0, 12)
    assert key_window(29, 30, 12) == (18, 30)
    assert key_window(15, 30, 12) == (9, 21)
    assert key_window(3, 5, 12) == (0, 5)


@pytest.mark.parametrize("kind", KINDS)
def test_concat_of_heads_times_w_o_equals_hook_out(bundle, traces, kind):
    trace = traces[(kind, 0)]
    w_o, b_o = _w_o(bundle, kind, 0)
    assert concat_error(trace.arrays, kind, 0, w_o, b_o) < 1e-5
    view = build_multihead_view(trace.arrays, kind, 0, 1, trace.query_tokens(kind), w_o, b_o)
    np.testing.assert_allclose(view.out, view.captured_out, atol=1e-5)
    h, t = view.n_heads, len(trace.query_tokens(kind))
    assert view.shapes == {"z": (1, h, t, 16), "concat": (1, t, 64), "w_o": (64, 64), "out": (1, t, 64)}
    assert concat_error(trace.arrays, kind, 0, w_o[:, ::-1], b_o) > 1e-3  # a wrong W^O is caught


def test_concat_puts_head_zero_first():
    z = np.arange(12).reshape(1, 3, 2, 2)  # (B, H, T, d_k)
    concat = concat_heads(z)  # (B, T, H·d_k)
    assert concat.shape == (1, 2, 6)
    assert concat[0, 1].tolist() == [*z[0, 0, 1], *z[0, 1, 1], *z[0, 2, 1]]


def test_figures_escape_tokens_and_print_numbers(bundle):
    trace = _trace(bundle, "<b>x</b>", "encoder", 0)
    view = build_step_view(trace.arrays, "encoder", 0, 0, 1, trace.src_tokens, trace.src_tokens)
    figures = [qkv_figure(view), scores_figure(view), weighted_sum_figure(view)]
    ticks = [
        str(label)
        for f in figures
        for ax in f.layout
        if ax.startswith("yaxis") or ax.startswith("xaxis")
        for label in (f.layout[ax].ticktext or ())
    ]
    assert not any("<" in label for label in ticks)  # character tokens "<", "b", ">": escaped, never markup
    assert any("&lt;" in label for label in ticks) and any("&gt;" in label for label in ticks)
    assert all(trace_.texttemplate for f in figures for trace_ in f.data)
    w_o, b_o = _w_o(bundle, "encoder", 0)
    mv = build_multihead_view(trace.arrays, "encoder", 0, 0, trace.src_tokens, w_o, b_o)
    fig = multihead_figure(mv)
    assert len(fig.data) == 3


def test_decoder_query_is_named_by_what_it_reads_and_writes(traces):
    from viz.tokens import attention_axes

    trace = traces[("cross", 1)]
    next_tokens = (*trace.output_tokens, "<eos>")[: len(trace.tgt_tokens)]
    next_tokens += ("<eos>",) * (len(trace.tgt_tokens) - len(next_tokens))
    queries, keys = attention_axes("cross", trace.src_tokens, trace.tgt_tokens, next_tokens)
    query = len(trace.tgt_tokens) - 1
    view = build_step_view(trace.arrays, "cross", 1, 0, query, queries, keys)
    assert view.query_label == queries.hover_labels()[query]
    assert "→" in view.query_label and queries.option_label(query).startswith(f"{query}: ")
    fig = qkv_figure(view)
    assert list(fig.layout.yaxis.ticktext) == [view.query_label]


def test_cell_numbers_take_the_decimals_their_cells_hold():
    """The lesson's attention figure prints every number inside its cell: 3 decimals in wide cells, fewer as
    the keys crowd in, the softmax row (no minus sign, below 1) keeping more than the signed scores."""
    import numpy as np

    from viz.step_figures import fitting_decimals

    scores, weights = np.array([-5.306, 4.566]), np.array([0.085, 0.224])
    assert fitting_decimals(scores, None) == 3  # the lab page: no width given, 3 decimals as before
    assert fitting_decimals(scores, 70, 18) == 3 and fitting_decimals(scores, 60, 18) == 2
    assert fitting_decimals(scores, 20, 18) == 0
    assert fitting_decimals(weights, 40, 18) > fitting_decimals(scores, 40, 18)
    for cell, font in ((70, 18), (50, 18), (34, 18)):
        d = fitting_decimals(scores, cell, font)
        assert len(f"{scores.min():.{d}f}") * 0.58 * font <= cell or d == 0


@pytest.mark.parametrize("height", [300, 512, 700])
def test_a_fitted_qkv_figure_shows_the_keys_that_fit_and_says_how_many_of_how_many(bundle, height):
    """Projector mode (issue 39 §7): q, K and V end on the first screen at `height` px, rows at the projector's
    type size, and K's title says how many keys of how many it shows, from the view's own counts."""
    from viz.step_figures import FIT_ROW_PX, MIN_FIT_KEYS, StepText, qkv_keys_fitting

    trace = _trace(bundle, "the quick brown fox jumps over the lazy dog", "encoder", 0)
    fitting = qkv_keys_fitting(height)
    assert fitting >= MIN_FIT_KEYS and qkv_keys_fitting(height + FIT_ROW_PX) == fitting + 1  # one more row, one more key
    view = build_step_view(trace.arrays, "encoder", 0, 0, 5, trace.src_tokens, trace.src_tokens, max_keys=fitting)
    assert view.keys_clipped and len(view.keys) == fitting
    text = StepText(shown_keys="{shown} | {total}")
    fig = qkv_figure(view, text, height)
    assert fig.layout.height <= height
    titles = [a.text for a in fig.layout.annotations]
    assert f"{text.k} · {len(view.keys)} | {view.n_keys}" in titles
    assert [a.text for a in qkv_figure(view, text).layout.annotations][1] == text.k  # off a projector: as before


def test_a_fitted_qkv_figure_of_a_short_input_keeps_its_rows_short(bundle):
    """Few keys do not stretch to the whole height: rows of FIT_ROW_PX, and no count in K's title (none hidden)."""
    from viz.step_figures import FIT_BOTTOM_PX, FIT_GAP_PX, FIT_ROW_PX, FIT_TOP_PX, qkv_keys_fitting

    trace = _trace(bundle, "hi", "encoder", 0)
    view = build_step_view(trace.arrays, "encoder", 0, 0, 1, trace.src_tokens, trace.src_tokens, max_keys=qkv_keys_fitting(512))
    assert not view.keys_clipped
    fig = qkv_figure(view, height_px=512)
    assert fig.layout.height == FIT_TOP_PX + FIT_GAP_PX + FIT_BOTTOM_PX + FIT_ROW_PX * (len(view.keys) + 1) < 512
    assert fig.layout.annotations[1].text == "K (one row per key)"
