"""The feed-forward view-models on hand-made arrays: which units fire, top units, contribution sizes."""

from __future__ import annotations

import numpy as np
import pytest

from hook_names import hook_name, layer_module, sublayer_module
from viz.ffn import (
    CROSS_ATTN,
    FEED_FORWARD,
    SELF_ATTN,
    feed_forward_view,
    n_layers,
    residual_contributions,
    sublayer_kinds,
)

D_MODEL, D_FF = 2, 8


def arrays_for(stack: str, layers: int, sublayers: int, t: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Captured-looking arrays (batch of 1) of a pre-norm stack whose streams are running sums."""
    rng = np.random.default_rng(seed)
    start = rng.normal(size=(1, t, D_MODEL))
    arrays = {("src_pos.hook_out" if stack == "encoder" else "tgt_pos.hook_out"): start}
    stream = start
    for layer in range(layers):
        arrays[hook_name(layer_module(stack, layer, "feed_forward"), "hidden")] = np.maximum(rng.normal(size=(1, t, D_FF)), 0)
        for i in range(sublayers):
            out = rng.normal(size=(1, t, D_MODEL)) * (i + 1)
            stream = stream + out
            arrays[hook_name(sublayer_module(stack, layer, i), "sublayer_out")] = out
            arrays[hook_name(sublayer_module(stack, layer, i), "resid")] = stream
    return arrays


def test_feed_forward_view_reports_firing_units_and_expansion():
    arrays = arrays_for("decoder", 1, 2, 3)
    hidden = np.array([[0.0, 2.0, 0.0, 5.0, 1.0, 0.0, 0.0, 0.0], [0.0] * 8, [1.0] * 8])
    arrays["decoder.layers.0.feed_forward.hook_hidden"] = hidden[None]
    view = feed_forward_view(arrays, "decoder", 0, ["a", "b", "c"], k=3)
    assert view.expansion == D_FF / D_MODEL == 4.0
    assert (view.d_model, view.d_ff) == (D_MODEL, D_FF)
    assert view.firing[0].tolist() == [False, True, False, True, True, False, False, False]
    assert view.fraction_firing.tolist() == [3 / 8, 0.0, 1.0]
    assert view.top_units[0].tolist() == [3, 1, 4]
    assert np.array_equal(view.output, arrays["decoder.layers.0.sublayer.1.hook_sublayer_out"][0].astype(np.float32))
    with pytest.raises(ValueError, match="token labels"):
        feed_forward_view(arrays, "decoder", 0, ["a"])
    with pytest.raises(KeyError, match="was not captured"):
        feed_forward_view(arrays, "decoder", 1, ["a", "b", "c"])


def test_sublayer_kinds_follow_the_architecture():
    assert sublayer_kinds(arrays_for("decoder", 2, 3, 4), "decoder") == (SELF_ATTN, CROSS_ATTN, FEED_FORWARD)
    assert sublayer_kinds(arrays_for("decoder", 2, 2, 4), "decoder") == (SELF_ATTN, FEED_FORWARD)
    assert n_layers(arrays_for("encoder", 3, 2, 4), "encoder") == 3
    # the FFN of an encoder-decoder decoder layer is sublayer 2
    arrays = arrays_for("decoder", 1, 3, 4)
    view = feed_forward_view(arrays, "decoder", 0, list("abcd"))
    assert np.allclose(view.output, arrays["decoder.layers.0.sublayer.2.hook_sublayer_out"][0])


def test_residual_contributions_norms_and_shares():
    arrays = arrays_for("decoder", 2, 2, 5)
    parts = residual_contributions(arrays, "decoder", list("abcde"), "pre")
    assert parts.outputs.shape == (2, 2, 5, D_MODEL) and parts.norms.shape == (2, 2, 5)
    want = np.linalg.norm(arrays["decoder.layers.1.sublayer.0.hook_sublayer_out"][0], axis=-1)
    assert np.allclose(parts.norms[1, 0], want, rtol=1e-5)
    assert np.allclose(parts.share(SELF_ATTN) + parts.share(FEED_FORWARD), 1.0)
    final = arrays["decoder.layers.1.sublayer.1.hook_resid"][0]
    assert np.allclose(parts.start + parts.outputs.sum(axis=(0, 1)), final, atol=1e-5)  # pre-norm: a running sum
    with pytest.raises(ValueError, match="norm_position"):
        residual_contributions(arrays, "decoder", list("abcde"), "middle")
    with pytest.raises(KeyError, match="encoder"):
        residual_contributions(arrays, "encoder", list("abcde"), "pre")
