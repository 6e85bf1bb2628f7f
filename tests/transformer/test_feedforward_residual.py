"""On real models: FFN hook shapes, and the residual stream is exactly the sum the feed-forward view shows.

Pre-norm: each sublayer adds its output to the stream, so the stream after sublayer i is the stream
before plus `hook_sublayer_out`, and the stack's final LayerNorm reads embeddings + PE + every output.
Post-norm (the paper): LayerNorm follows the addition, so what adds up is the LayerNorm's *input*:
`norm.hook_in == stream before + hook_sublayer_out`, and the stream after is `norm.hook_out`.
"""

from __future__ import annotations

import pytest
import torch

from hook_names import hook_name, layer_module, norm_module, pos_module, sublayer_module
from transformer.config import TransformerConfig
from transformer.hooks import capture
from transformer.storage.registry import MODELS_DIR, load_model, random_bundle
from viz.ffn import feed_forward_view, residual_contributions, sublayer_kinds

ATOL = 1e-5
TEXT = "i read a book in the library today"


def bundles():
    yield "translate-en-zh (post-norm, encoder-decoder)", load_model("translate-en-zh")
    if (MODELS_DIR / "gpt-translate-en-zh").is_dir():
        yield "gpt-translate-en-zh (pre-norm, decoder-only)", load_model("gpt-translate-en-zh")
    for arch in ("encoder-decoder", "decoder-only"):
        for norm in ("pre", "post"):
            config = TransformerConfig(architecture=arch, norm_position=norm, n_layers=2, d_model=32, n_heads=4, d_ff=128)
            yield f"random {arch} {norm}-norm", random_bundle(config, seed=1)


def run(bundle):
    reader = bundle.source_tokenizer or bundle.target_tokenizer
    ids = reader.encode(TEXT if bundle.card.get("task", "").endswith("zh") else "hello world")
    tgt = torch.tensor([[1, *range(4, 10)]])  # <bos> + six ordinary target symbols
    src = torch.tensor([[*ids, 2]]) if bundle.config.is_encoder_decoder else None
    with torch.no_grad(), capture(bundle.model) as cache:
        bundle.model(src, tgt)
    return cache, {k: v.numpy() for k, v in cache.items()}


@pytest.mark.parametrize("label,bundle", list(bundles()), ids=lambda x: x if isinstance(x, str) else "")
def test_ffn_hidden_shapes_and_residual_sums(label, bundle):
    cache, arrays = run(bundle)
    config = bundle.config
    stacks = ["encoder", "decoder"] if config.is_encoder_decoder else ["decoder"]
    for stack in stacks:
        start = cache[hook_name(pos_module(stack), "out")]
        b, t, _ = start.shape
        kinds = sublayer_kinds(arrays, stack)
        assert len(kinds) == (3 if stack == "decoder" and config.is_encoder_decoder else 2)
        stream = start
        for layer in range(config.n_layers):
            hidden = cache[hook_name(layer_module(stack, layer, "feed_forward"), "hidden")]
            assert hidden.shape == (b, t, config.d_ff)
            assert (hidden >= 0).all() and (hidden == 0).any()  # after ReLU: some units are silent
            for i in range(len(kinds)):
                prefix = sublayer_module(stack, layer, i)
                added = stream + cache[hook_name(prefix, "sublayer_out")]
                after = cache[hook_name(prefix, "resid")]
                if config.norm_position == "pre":
                    torch.testing.assert_close(after, added, atol=ATOL, rtol=0)
                else:
                    torch.testing.assert_close(cache[hook_name(norm_module(stack, layer, i), "in")], added, atol=ATOL, rtol=0)
                    torch.testing.assert_close(after, cache[hook_name(norm_module(stack, layer, i), "out")], atol=0, rtol=0)
                stream = after
            # the FFN's hidden layer is ReLU(W1 x + b1) of what the FFN read
            ffn = bundle.model.get_submodule(layer_module(stack, layer, "feed_forward"))
            read = (
                cache[hook_name(norm_module(stack, layer, len(kinds) - 1), "out")]
                if config.norm_position == "pre"
                else cache[hook_name(sublayer_module(stack, layer, len(kinds) - 2), "resid")]
            )
            torch.testing.assert_close(hidden, ffn.w_1(read).relu(), atol=ATOL, rtol=0)
        # the view's decomposition adds up to the stack's output
        tokens = [str(i) for i in range(t)]
        parts = residual_contributions(arrays, stack, tokens, config.norm_position)
        final = arrays[hook_name(sublayer_module(stack, config.n_layers - 1, len(kinds) - 1), "resid")][0]
        if config.norm_position == "pre":
            total = parts.start + parts.outputs.sum(axis=(0, 1))  # (T, d_model)
            assert abs(total - final).max() < 1e-4
            final_norm_in = arrays[hook_name(norm_module(stack, None), "in")][0]  # what the final LayerNorm reads
            assert abs(total - final_norm_in).max() < 1e-4
        else:
            last = arrays[hook_name(norm_module(stack, config.n_layers - 1, len(kinds) - 1), "in")][0]
            before = arrays[hook_name(sublayer_module(stack, config.n_layers - 1, len(kinds) - 2), "resid")][0]
            assert abs(before + parts.outputs[-1, -1] - last).max() < 1e-4
        view = feed_forward_view(arrays, stack, config.n_layers - 1, tokens)
        assert view.hidden.shape == (t, config.d_ff) and view.expansion == config.d_ff / config.d_model
        assert 0 < view.fraction_firing.mean() < 1
