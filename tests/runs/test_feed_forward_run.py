"""runs.feed_forward: the parameter share adds up to the model's parameters, the FFN's input is what
its weights turn into its captured output, and the sublayer outputs add up to the stream."""

import numpy as np
import pytest
import torch

from hook_names import layer_module
from runs.feed_forward import PARTS, feed_forward_run, parameter_share
from runs.model_ref import ModelRef, load_bundle

MODELS = [
    "gpt-translate-en-zh",
    "translate-en-zh",
    ModelRef.random(architecture="decoder-only", norm_position="post").key,
    ModelRef.random(norm_position="pre", n_layers=3).key,
]


@pytest.fixture(scope="module", params=MODELS)
def bundle(request):
    return load_bundle(ModelRef.parse(request.param))


def test_parameter_share_counts_every_parameter_once(bundle):
    share = parameter_share(bundle)
    assert set(share.counts) == set(PARTS)
    assert share.total == bundle.model.num_parameters()
    c = bundle.config
    stacks = 2 if c.is_encoder_decoder else 1
    assert share.counts["feed_forward"] == stacks * c.n_layers * (2 * c.d_model * c.d_ff + c.d_ff + c.d_model)
    assert 0 < share.share("feed_forward") < 1


def test_the_ffn_input_becomes_its_output(bundle):
    """Oracle: the FFN module applied to the input the page shows gives the captured hidden units and output."""
    run = feed_forward_run(bundle, "i read a book")
    for stack in run.stacks:
        for layer, view in enumerate(run.views[stack]):
            module = bundle.model.get_submodule(layer_module(stack, layer, "feed_forward"))
            x = torch.from_numpy(run.inputs[stack][layer])  # (T, d_model)
            with torch.no_grad():
                hidden = module.w_1(x).relu()
                out = module.w_2(hidden)
            np.testing.assert_allclose(view.hidden, hidden.numpy(), atol=1e-5)
            np.testing.assert_allclose(view.output, out.numpy(), atol=1e-5)
            assert view.hidden.shape == (len(run.tokens(stack)), bundle.config.d_ff)
            assert np.array_equal(view.firing, view.hidden > 0)


def test_contributions_cover_every_sublayer(bundle):
    run = feed_forward_run(bundle, "i read a book")
    for stack in run.stacks:
        contributions = run.contributions[stack]
        expected = 3 if stack == "decoder" and bundle.config.is_encoder_decoder else 2
        assert len(contributions.kinds) == expected and contributions.kinds[-1] == "feed_forward"
        assert contributions.norms.shape == (bundle.config.n_layers, expected, len(run.tokens(stack)))
        if bundle.config.norm_position == "pre":  # the stream is the start plus every sublayer's output
            final = contributions.start + contributions.outputs.sum(axis=(0, 1))
            assert np.linalg.norm(final, axis=-1) == pytest.approx(contributions.stream_norms[-1, -1], rel=1e-4)
