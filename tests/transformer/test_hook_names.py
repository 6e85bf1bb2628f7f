"""The hook-name vocabulary builds exactly the names the model has, and parses them back."""

import pytest

from hook_names import (
    act_name,
    attention_hooks,
    attn_module,
    embed_module,
    head_label,
    hook_name,
    norm_module,
    parse,
    parse_head_label,
    pos_module,
    sublayer_module,
)
from transformer.config import TransformerConfig
from transformer.model import Transformer


def _model(**overrides) -> Transformer:
    settings = {
        "src_vocab_size": 11,
        "tgt_vocab_size": 11,
        "d_model": 16,
        "n_heads": 2,
        "d_ff": 32,
        "n_layers": 2,
        "max_len": 16,
        "dropout": 0.0,
        **overrides,
    }
    return Transformer(TransformerConfig(**settings))


@pytest.mark.parametrize("overrides", [{}, {"architecture": "decoder-only"}, {"norm_position": "pre"}])
def test_every_model_name_parses_and_rebuilds_to_itself(overrides):
    for name in _model(**overrides).hook_names:
        parsed = parse(name)
        assert str(parsed) == parsed.name == name
        assert hook_name(parsed.module, parsed.hook) == name
        if parsed.kind is not None:
            assert act_name(parsed.kind, parsed.layer, parsed.hook) == name


def test_builders_spell_the_models_names():
    names = set(_model(norm_position="pre").hook_names)
    built = [
        act_name("encoder", 1, "pattern"),
        act_name("decoder", 0, "hook_mask"),
        act_name("cross", 1, "z"),
        hook_name(sublayer_module("decoder", 1, 2), "resid"),
        hook_name(norm_module("encoder", 0, 1), "in"),
        hook_name(norm_module("decoder", None), "out"),
        hook_name(embed_module("encoder"), "tokens"),
        hook_name(pos_module("decoder"), "pe"),
    ]
    assert built == [
        "encoder.layers.1.self_attn.hook_pattern",
        "decoder.layers.0.self_attn.hook_mask",
        "decoder.layers.1.cross_attn.hook_z",
        "decoder.layers.1.sublayer.2.hook_resid",
        "encoder.layers.0.sublayer.1.norm.hook_in",
        "decoder.norm.hook_out",
        "src_embed.hook_tokens",
        "tgt_pos.hook_pe",
    ]
    assert set(built) <= names


def test_parse_reads_stack_layer_and_kind():
    assert parse("decoder.layers.1.cross_attn.hook_pattern") == ("decoder.layers.1.cross_attn", "pattern", "decoder", 1, "cross")
    assert parse("src_pos.hook_pe")[2:] == ("encoder", None, None)
    assert parse("generator.hook_logits")[2:] == (None, None, None)
    assert parse("encoder.layers.0.sublayer.1.norm.hook_out").kind is None
    assert attn_module("decoder", 3) == "decoder.layers.3.self_attn"


@pytest.mark.parametrize("bad", ["pattern", "decoder.layers.0.self_attn", ".hook_x", "decoder.hook_"])
def test_a_name_that_is_no_hook_is_refused(bad):
    with pytest.raises(ValueError, match="not a hook name"):
        parse(bad)


def test_unknown_kind_or_stack_is_refused():
    with pytest.raises(ValueError, match="unknown attention kind"):
        act_name("sideways", 0, "pattern")
    with pytest.raises(ValueError, match="unknown stack"):
        sublayer_module("middle", 0, 0)


def test_attention_hooks_picks_patterns_in_model_order():
    names = _model().hook_names
    picked = attention_hooks(names)
    assert picked == tuple(n for n in names if n.endswith("attn.hook_pattern")) and len(picked) == 6


def test_head_labels_name_a_head_and_parse_back():
    assert head_label("cross", 1, 3) == "decoder.layers.1.cross_attn head 3"
    assert head_label("encoder", 0, 0) == "encoder.layers.0.self_attn head 0"
    for kind in ("encoder", "decoder", "cross"):
        assert parse_head_label(head_label(kind, 2, 5)) == (kind, 2, 5)


@pytest.mark.parametrize(
    "bad", ["decoder.layers.1.cross_attn", "decoder.layers.1.cross_attn head x", "encoder.norm head 0", "head 3"]
)
def test_a_text_that_is_no_head_label_is_refused(bad):
    with pytest.raises(ValueError):
        parse_head_label(bad)
