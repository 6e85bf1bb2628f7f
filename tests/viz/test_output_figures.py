"""Figures of the output, feed-forward and head-detector views: escaped labels, the numbers given, marks."""

import numpy as np

from hook_names import hook_name, layer_module, sublayer_module
from transformer.probes.head_scores import head_scores
from viz.detector_figure import DetectorText, detector_figure, marked_heads
from viz.ffn import feed_forward_view, residual_contributions
from viz.ffn_figures import (
    FeedForwardText,
    contribution_sizes,
    contributions_figure,
    expansion_figure,
    firing_figure,
    parameter_figure,
)
from viz.output_distribution import DistributionText, distribution_figure, rest_of_vocabulary


def test_distribution_bars_are_the_given_probabilities_and_labels_are_escaped():
    probs = [0.5, 0.3, 0.1]
    fig = distribution_figure(["<b>", "a", "a"], probs, 2, DistributionText("<i>pos</i>", "p", "chosen"))
    assert list(fig.data[0].x) == probs
    assert list(fig.layout.yaxis.ticktext) == ["&lt;b&gt;", "a", "a"]  # equal labels stay two bars
    assert fig.layout.title.text == "&lt;i&gt;pos&lt;/i&gt;"
    assert fig.data[0].marker.color[2] != fig.data[0].marker.color[0]  # the chosen bar stands out
    assert abs(rest_of_vocabulary(probs) - 0.1) < 1e-12 and rest_of_vocabulary([0.6, 0.5]) == 0.0


def _arrays(t=4, d=8, d_ff=32, layers=2, seed=0):
    rng = np.random.default_rng(seed)
    arrays = {"src_pos.hook_out": rng.normal(size=(1, t, d))}
    for layer in range(layers):
        arrays[hook_name(layer_module("encoder", layer, "feed_forward"), "hidden")] = np.maximum(rng.normal(size=(1, t, d_ff)), 0)
        for sub in range(2):
            arrays[hook_name(sublayer_module("encoder", layer, sub), "sublayer_out")] = rng.normal(size=(1, t, d)) * (sub + 1)
            arrays[hook_name(sublayer_module("encoder", layer, sub), "resid")] = rng.normal(size=(1, t, d))
    return arrays


def test_ffn_figures_draw_the_view():
    arrays = _arrays()
    tokens = ["<b>", "b", "c", "d"]
    view = feed_forward_view(arrays, "encoder", 1, tokens)
    fig = firing_figure(view)
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), view.hidden)
    shares = [a.text for a in fig.layout.annotations if a.text.endswith("%")]
    assert shares == [f"{100 * s:.0f}%" for s in view.fraction_firing]
    assert "&lt;b&gt;" in fig.layout.yaxis.ticktext
    strips = expansion_figure(np.ones(8), view.hidden[0], view.output[0])
    assert [np.asarray(tr.z).shape[1] for tr in strips.data] == [8, 32, 8]
    assert strips.layout.xaxis.domain == (0.375, 0.625)  # d_model / d_ff of the width, centred
    assert strips.layout.annotations[1].text.endswith("(32); white = 0, the unit is silent")  # d_ff, filled in here


def test_contribution_bars_are_norms_per_layer():
    contributions = residual_contributions(_arrays(), "encoder", ["a", "b", "c", "d"], "pre")
    fig = contributions_figure(contributions, None, FeedForwardText(self_attn="A", feed_forward="F"))
    assert [tr.name for tr in fig.data] == ["A", "F"]
    np.testing.assert_allclose(fig.data[1].y, contributions.norms[:, 1].mean(-1), rtol=1e-6)
    one = contribution_sizes(contributions, 2)
    np.testing.assert_allclose(one, contributions.norms[..., 2])


def test_parameter_bar_shares_add_to_one():
    fig = parameter_figure({"embeddings": 30, "a": 70, "c": 0}, FeedForwardText(embeddings="E"))
    assert [tr.name for tr in fig.data] == ["E", "a"]  # an empty part draws no bar; an unknown one keeps its key
    assert sum(tr.x[0] for tr in fig.data) == 1.0


def test_detector_grid_marks_only_heads_that_score():
    patterns = np.full((2, 3, 10, 10), 0.1)  # uniform over 10 keys: scores 0.1, no head is a previous-token head
    patterns[1, 2] = np.eye(10, k=-1)
    patterns[1, 2, 0, 0] = 1.0
    scores = head_scores(patterns, [1, 2, 3, 4, 5, 1, 2, 3, 4, 5])
    marks = marked_heads(scores)
    assert marks["previous_token"] == [(1, 2)]
    fig = detector_figure(scores, DetectorText(names={"previous_token": "<prev>"}))
    assert len(fig.data) == len(scores.names)
    assert "★" in np.asarray(fig.data[0].text)[1, 2] and "★" not in "".join(np.asarray(fig.data[0].text)[0])
    assert fig.layout.annotations[0].text == "&lt;prev&gt;"
