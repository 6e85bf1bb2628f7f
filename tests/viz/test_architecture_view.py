"""The architecture diagram lists the right boxes, in order, with the shapes the model produced."""

from dataclasses import replace

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
from viz.architecture_figure import (
    BOX_H,
    FIT_BOX_W,
    FIT_COLUMN_GAP,
    FIT_WIDTH_PX,
    TWO_LINE_ROW_PX,
    ArchitectureText,
    architecture_figure,
    fitted_layout,
    label_width_px,
)


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


ENGLISH_NAMES = {  # the English catalog's longest names (viz tests pass the words in, as the pages do)
    **{c: c.replace("_", " ").title() for c in COMPONENT_PAGES},
    "masked_self_attn": "Masked multi-head self-attention",
    "positional": "+ Positional encoding (sin/cos)",
}
FITTED_STACKS = {  # the diagrams the app can show, from 9 to 15 rows in the tallest stack
    "encoder-decoder post": architecture_boxes(True, "post"),
    "encoder-decoder pre": architecture_boxes(True, "pre"),
    "decoder-only pre": architecture_boxes(False, "pre"),
    "encoder-only post": architecture_boxes(False, "post", encoder_only=True),
}


def _text(names):
    return ArchitectureText(
        names=names, pages={p: p for pages in COMPONENT_PAGES.values() for p in pages}, details={c: c for c in COMPONENT_PAGES}
    )


def _shaped(stacks, t=9, d=192, vocab=3998):
    shape = {"tokens": (1, t), "linear": (1, t, vocab), "softmax": (1, t, vocab)}
    return {s: [replace(b, shape=shape.get(b.component, (1, t, d))) for b in bs] for s, bs in stacks.items()}


@pytest.mark.parametrize("model", list(FITTED_STACKS))
@pytest.mark.parametrize("height", [520, 602])  # 602: the architecture page's, under the title
def test_a_fitted_diagram_fills_the_height_with_one_line_boxes_a_projector_can_read(model, height):
    """Projector mode (issue 39 §7): the whole diagram in `height` px, every box one line whose name fits the box's
    height at ≥ 16 px, every other word ≥ 15 px, and nothing drawn outside the figure's y range."""
    stacks = _shaped(FITTED_STACKS[model])
    text = _text(ENGLISH_NAMES)
    layout = fitted_layout(stacks, text, height)
    fig = architecture_figure(stacks, text, 3, layout)
    assert fig.layout.height == height
    rows = max(len(b) for b in stacks.values())
    low, high = fig.layout.yaxis.range
    assert (high - low) * layout.row_px + fig.layout.margin.t == pytest.approx(height)  # rows fill the height
    assert low < -0.85 < rows - 1 + 0.95 < high  # the stacks' names and "Output probabilities" inside
    words = [a for a in fig.layout.annotations if a.text]
    boxes = [a for a in words if a.yanchor is None and a.xanchor is None and "<b>" in a.text and a.y >= 0]
    assert len(boxes) == sum(len(b) for b in stacks.values())
    assert layout.one_line and all("<br>" not in a.text for a in boxes)
    assert 16 <= layout.name_px <= BOX_H * layout.row_px - 4  # the name inside its box
    assert all(a.font.size >= 15 for a in words)
    assert layout.shape_px >= 15


def test_a_fitted_diagram_shows_the_shapes_only_where_every_box_holds_its_line():
    """One-line boxes: name and shape where every line fits (short names), names only where one would not (the
    English encoder-decoder's "Masked multi-head self-attention"); the hover keeps every shape either way."""
    stacks = _shaped(architecture_boxes(True, "post"))
    long_names, short_names = _text(ENGLISH_NAMES), _text({c: "Box" for c in COMPONENT_PAGES})
    for text, shown in ((long_names, False), (short_names, True)):
        layout = fitted_layout(stacks, text, 602)
        assert layout.shapes is shown
        fig = architecture_figure(stacks, text, 3, layout)
        boxes = " ".join(a.text for a in fig.layout.annotations if a.text and "<b>" in a.text)
        assert ("(1, 9, 192)" in boxes) is shown and "(1, 9, 3998)" in " ".join(fig.data[0].hovertext)
    box_px = FIT_BOX_W * FIT_WIDTH_PX / (2 * FIT_BOX_W + FIT_COLUMN_GAP + 2.0) - 12
    widest = max(label_width_px(n, 18) for n in ENGLISH_NAMES.values()) + label_width_px("  (1, 9, 3998)", 15)
    assert widest > box_px  # the case above is real: the long English names leave no room for the shape


def test_a_roomy_height_keeps_the_papers_two_line_boxes():
    stacks = _shaped(architecture_boxes(False, "post", encoder_only=True))
    layout = fitted_layout(stacks, _text(ENGLISH_NAMES), 1200)
    assert not layout.one_line and layout.row_px >= TWO_LINE_ROW_PX
    fig = architecture_figure(stacks, _text(ENGLISH_NAMES), 2, layout)
    assert fig.layout.height == 1200 and "<br>" in fig.layout.annotations[0].text


def test_a_name_too_long_for_its_fitted_box_shrinks_then_breaks_never_below_15_px():
    """A pretrained model's long name (Marian's "+ Positional encoding (sin/cos: sines first, then cosines)") stays
    inside its one-line box: a smaller font, then two lines, at ≥ 15 px; the others keep the layout's size."""
    long = "+ Positional encoding (sin/cos: sines first, then cosines)"
    stacks = _shaped(architecture_boxes(True, "post"))
    layout = fitted_layout(stacks, _text({**ENGLISH_NAMES, "positional": long}), 602)
    fig = architecture_figure(stacks, _text({**ENGLISH_NAMES, "positional": long}), 3, layout)
    notes = [a for a in fig.layout.annotations if a.text and "Positional" in a.text and a.y >= 0]
    assert len(notes) == 2  # one per stack
    for note in notes:
        lines = note.text.replace("<b>", "").replace("</b>", "").split("<br>")
        assert " ".join(lines) == long and note.font.size >= 15
        assert all(label_width_px(line, note.font.size) <= layout.box_px for line in lines)
    others = [a for a in fig.layout.annotations if a.text and "Feed" in a.text]
    assert {a.font.size for a in others} == {layout.name_px}
