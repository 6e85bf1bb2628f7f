"""The architecture diagram lists the right boxes, in order, with the shapes the model produced."""

import pytest

from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.storage.registry import random_bundle
from viz.architecture import (
    COMPONENT_PAGES,
    architecture_boxes,
    architecture_hook_names,
    format_shape,
    parameter_groups,
)
from viz.architecture_figure import ArchitectureText, architecture_figure


def _components(boxes):
    return [b.component for b in boxes]


def test_encoder_decoder_post_norm_is_figure_1():
    stacks = architecture_boxes(True, "post")
    assert list(stacks) == ["encoder", "decoder"]
    assert _components(stacks["encoder"]) == [
        "tokens",
        "embedding",
        "positional",
        "self_attn",
        "add_norm",
        "feed_forward",
        "add_norm",
    ]
    assert _components(stacks["decoder"]) == [
        "tokens",
        "embedding",
        "positional",
        "masked_self_attn",
        "add_norm",
        "cross_attn",
        "add_norm",
        "feed_forward",
        "add_norm",
        "linear",
        "softmax",
    ]


def test_pre_norm_moves_the_norms_before_each_sublayer_and_adds_a_final_one():
    stacks = architecture_boxes(True, "pre")
    assert _components(stacks["encoder"]) == [
        "tokens",
        "embedding",
        "positional",
        "norm",
        "self_attn",
        "add",
        "norm",
        "feed_forward",
        "add",
        "final_norm",
    ]
    assert _components(stacks["decoder"])[3:] == [
        "norm",
        "masked_self_attn",
        "add",
        "norm",
        "cross_attn",
        "add",
        "norm",
        "feed_forward",
        "add",
        "final_norm",
        "linear",
        "softmax",
    ]


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_decoder_only_has_one_stack_and_no_cross_attention(norm):
    stacks = architecture_boxes(False, norm)
    assert list(stacks) == ["decoder"]
    assert "cross_attn" not in _components(stacks["decoder"])
    assert ("final_norm" in _components(stacks["decoder"])) == (norm == "pre")


@pytest.mark.parametrize("arch", ["encoder-decoder", "decoder-only"])
@pytest.mark.parametrize("norm", ["post", "pre"])
def test_shapes_come_from_a_real_capture(arch, norm):
    config = TransformerConfig(architecture=arch, norm_position=norm, n_layers=2, d_model=32, n_heads=4, dropout=0.0)
    bundle = random_bundle(config, seed=1)
    names = architecture_hook_names(arch == "encoder-decoder", norm)
    assert set(names) <= set(bundle.model.hook_names)
    assert all(".layers.1." not in n for n in names), "layer 0 is enough: ask for no more"
    trace = trace_text(bundle, "abcde", names=names)
    stacks = architecture_boxes(arch == "encoder-decoder", norm, {n: tuple(a.shape) for n, a in trace.cache.items()})
    t_tgt = len(trace.tgt_tokens)
    for stack, boxes in stacks.items():
        t = 6 if stack == "encoder" else t_tgt  # encoder: 5 characters + <eos>
        for box in boxes:
            if box.component == "tokens":
                assert box.shape == (1, t)
            elif box.component in ("linear", "softmax"):
                assert box.shape == (1, t, bundle.config.tgt_vocab_size)
            else:
                assert box.shape == (1, t, 32), box
        details = {b.component: b.detail_shape for b in boxes if b.detail_shape}
        assert details["feed_forward"] == (1, t, bundle.config.d_ff)
    if arch == "encoder-decoder":
        cross = next(b for b in stacks["decoder"] if b.component == "cross_attn")
        assert cross.detail_shape == (1, 4, t_tgt, 6)


def test_parameter_groups_add_up_to_the_model():
    for arch in ("encoder-decoder", "decoder-only"):
        bundle = random_bundle(TransformerConfig(architecture=arch, positional="learned", norm_position="pre"), seed=0)
        sizes = {n: p.numel() for n, p in bundle.model.named_parameters()}
        groups = dict(parameter_groups(sizes))
        assert sum(groups.values()) == bundle.model.num_parameters()
        assert "other" not in groups and groups["positional"] > 0
        assert ("cross_attn" in groups) == (arch == "encoder-decoder")
        d = bundle.config.d_model
        assert groups["decoder_self_attn"] == bundle.config.n_layers * 4 * (d * d + d)


def test_every_component_links_only_to_known_pages():
    known = {"heads", "masks", "positional", "layernorm", "step_by_step", "architecture", "feed_forward", "output"}
    assert all(set(pages) <= known for pages in COMPONENT_PAGES.values())


def test_figure_draws_every_box_with_escaped_labels_and_shapes():
    stacks = architecture_boxes(True, "post", {"src_embed.hook_tokens": (1, 7, 64)})
    text = ArchitectureText(
        names={c: f"<i>{c}</i>" for c in COMPONENT_PAGES},
        pages={p: p for pages in COMPONENT_PAGES.values() for p in pages},
        details={c: c for c in COMPONENT_PAGES},
        n_layers="N={n}",
    )
    fig = architecture_figure(stacks, text, 6)
    n_boxes = sum(len(b) for b in stacks.values())
    rects = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(rects) == n_boxes + 2  # every box, plus one "N ×" frame per stack
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert "<i>" not in texts and "&lt;i&gt;" in texts
    assert "(1, 7)" in texts and "(1, 7, 64)" in texts and "N=6" in texts
    assert list(fig.data[0].customdata) == [b.id for bs in stacks.values() for b in bs]
    assert format_shape(None) == "—"
