"""Hook names, per-call capture and interventions."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hook_names import hook_name
from transformer.config import TransformerConfig
from transformer.hooks import capture, hook_names, intervene
from transformer.interventions import edit_mask, replace_pattern, zero_head
from transformer.model import Transformer

# Generated once from Transformer(TransformerConfig(n_layers=2)) and reviewed against DESIGN.md §2:
# token embeddings, positional encodings, q/k/v per head, raw scores, the mask, masked scores,
# the pattern, per-head outputs, sublayer outputs, the residual stream, every LayerNorm's in/out.
# A rename must change this list deliberately.
GOLDEN_ENCODER_DECODER_POST = [
    "src_embed.hook_tokens",
    "src_pos.hook_pe",
    "src_pos.hook_out",
    "encoder.layers.0.self_attn.hook_q",
    "encoder.layers.0.self_attn.hook_k",
    "encoder.layers.0.self_attn.hook_v",
    "encoder.layers.0.self_attn.hook_scores",
    "encoder.layers.0.self_attn.hook_mask",
    "encoder.layers.0.self_attn.hook_masked_scores",
    "encoder.layers.0.self_attn.hook_pattern",
    "encoder.layers.0.self_attn.hook_z",
    "encoder.layers.0.self_attn.hook_out",
    "encoder.layers.0.feed_forward.hook_hidden",
    "encoder.layers.0.sublayer.0.norm.hook_in",
    "encoder.layers.0.sublayer.0.norm.hook_out",
    "encoder.layers.0.sublayer.0.hook_sublayer_out",
    "encoder.layers.0.sublayer.0.hook_resid",
    "encoder.layers.0.sublayer.1.norm.hook_in",
    "encoder.layers.0.sublayer.1.norm.hook_out",
    "encoder.layers.0.sublayer.1.hook_sublayer_out",
    "encoder.layers.0.sublayer.1.hook_resid",
    "encoder.layers.1.self_attn.hook_q",
    "encoder.layers.1.self_attn.hook_k",
    "encoder.layers.1.self_attn.hook_v",
    "encoder.layers.1.self_attn.hook_scores",
    "encoder.layers.1.self_attn.hook_mask",
    "encoder.layers.1.self_attn.hook_masked_scores",
    "encoder.layers.1.self_attn.hook_pattern",
    "encoder.layers.1.self_attn.hook_z",
    "encoder.layers.1.self_attn.hook_out",
    "encoder.layers.1.feed_forward.hook_hidden",
    "encoder.layers.1.sublayer.0.norm.hook_in",
    "encoder.layers.1.sublayer.0.norm.hook_out",
    "encoder.layers.1.sublayer.0.hook_sublayer_out",
    "encoder.layers.1.sublayer.0.hook_resid",
    "encoder.layers.1.sublayer.1.norm.hook_in",
    "encoder.layers.1.sublayer.1.norm.hook_out",
    "encoder.layers.1.sublayer.1.hook_sublayer_out",
    "encoder.layers.1.sublayer.1.hook_resid",
    "tgt_embed.hook_tokens",
    "tgt_pos.hook_pe",
    "tgt_pos.hook_out",
    "decoder.layers.0.self_attn.hook_q",
    "decoder.layers.0.self_attn.hook_k",
    "decoder.layers.0.self_attn.hook_v",
    "decoder.layers.0.self_attn.hook_scores",
    "decoder.layers.0.self_attn.hook_mask",
    "decoder.layers.0.self_attn.hook_masked_scores",
    "decoder.layers.0.self_attn.hook_pattern",
    "decoder.layers.0.self_attn.hook_z",
    "decoder.layers.0.self_attn.hook_out",
    "decoder.layers.0.cross_attn.hook_q",
    "decoder.layers.0.cross_attn.hook_k",
    "decoder.layers.0.cross_attn.hook_v",
    "decoder.layers.0.cross_attn.hook_scores",
    "decoder.layers.0.cross_attn.hook_mask",
    "decoder.layers.0.cross_attn.hook_masked_scores",
    "decoder.layers.0.cross_attn.hook_pattern",
    "decoder.layers.0.cross_attn.hook_z",
    "decoder.layers.0.cross_attn.hook_out",
    "decoder.layers.0.feed_forward.hook_hidden",
    "decoder.layers.0.sublayer.0.norm.hook_in",
    "decoder.layers.0.sublayer.0.norm.hook_out",
    "decoder.layers.0.sublayer.0.hook_sublayer_out",
    "decoder.layers.0.sublayer.0.hook_resid",
    "decoder.layers.0.sublayer.1.norm.hook_in",
    "decoder.layers.0.sublayer.1.norm.hook_out",
    "decoder.layers.0.sublayer.1.hook_sublayer_out",
    "decoder.layers.0.sublayer.1.hook_resid",
    "decoder.layers.0.sublayer.2.norm.hook_in",
    "decoder.layers.0.sublayer.2.norm.hook_out",
    "decoder.layers.0.sublayer.2.hook_sublayer_out",
    "decoder.layers.0.sublayer.2.hook_resid",
    "decoder.layers.1.self_attn.hook_q",
    "decoder.layers.1.self_attn.hook_k",
    "decoder.layers.1.self_attn.hook_v",
    "decoder.layers.1.self_attn.hook_scores",
    "decoder.layers.1.self_attn.hook_mask",
    "decoder.layers.1.self_attn.hook_masked_scores",
    "decoder.layers.1.self_attn.hook_pattern",
    "decoder.layers.1.self_attn.hook_z",
    "decoder.layers.1.self_attn.hook_out",
    "decoder.layers.1.cross_attn.hook_q",
    "decoder.layers.1.cross_attn.hook_k",
    "decoder.layers.1.cross_attn.hook_v",
    "decoder.layers.1.cross_attn.hook_scores",
    "decoder.layers.1.cross_attn.hook_mask",
    "decoder.layers.1.cross_attn.hook_masked_scores",
    "decoder.layers.1.cross_attn.hook_pattern",
    "decoder.layers.1.cross_attn.hook_z",
    "decoder.layers.1.cross_attn.hook_out",
    "decoder.layers.1.feed_forward.hook_hidden",
    "decoder.layers.1.sublayer.0.norm.hook_in",
    "decoder.layers.1.sublayer.0.norm.hook_out",
    "decoder.layers.1.sublayer.0.hook_sublayer_out",
    "decoder.layers.1.sublayer.0.hook_resid",
    "decoder.layers.1.sublayer.1.norm.hook_in",
    "decoder.layers.1.sublayer.1.norm.hook_out",
    "decoder.layers.1.sublayer.1.hook_sublayer_out",
    "decoder.layers.1.sublayer.1.hook_resid",
    "decoder.layers.1.sublayer.2.norm.hook_in",
    "decoder.layers.1.sublayer.2.norm.hook_out",
    "decoder.layers.1.sublayer.2.hook_sublayer_out",
    "decoder.layers.1.sublayer.2.hook_resid",
    "generator.hook_logits",
]


def _config(**changes) -> TransformerConfig:
    base = {"src_vocab_size": 20, "tgt_vocab_size": 20, "n_layers": 2, "d_model": 32, "n_heads": 4, "d_ff": 64, "dropout": 0.0}
    return TransformerConfig(**{**base, **changes})


@pytest.fixture(scope="module")
def model() -> Transformer:
    torch.manual_seed(0)
    return Transformer(_config()).eval()


SRC = torch.tensor([[4, 5, 6, 7, 2], [8, 9, 2, 0, 0]])  # (B=2, Ts=5), second sentence padded
TGT = torch.tensor([[1, 10, 11, 12], [1, 13, 14, 0]])  # (B=2, Tt=4)


def _plain(model: Transformer) -> torch.Tensor:
    with torch.no_grad():
        return model(SRC, TGT)


def _captured(model: Transformer, names=None, interventions=None):
    with torch.no_grad(), capture(model, names, interventions) as cache:
        logits = model(SRC, TGT)
    return logits, cache


# ---- Names ------------------------------------------------------------------------------------------


def test_golden_hook_names() -> None:
    model = Transformer(TransformerConfig(n_layers=2))
    assert model.hook_names == GOLDEN_ENCODER_DECODER_POST
    assert hook_names(model) == GOLDEN_ENCODER_DECODER_POST
    assert len(set(GOLDEN_ENCODER_DECODER_POST)) == len(GOLDEN_ENCODER_DECODER_POST) == 105


def test_decoder_only_names() -> None:
    names = Transformer(_config(architecture="decoder-only")).hook_names
    assert not [n for n in names if "cross_attn" in n or n.startswith(("encoder.", "src_"))]
    expected = [
        n.replace(".sublayer.2.", ".sublayer.1.")
        for n in GOLDEN_ENCODER_DECODER_POST
        if n.startswith(("tgt_", "decoder.", "generator.")) and "cross_attn" not in n and ".sublayer.1." not in n
    ]
    assert names == expected


def test_pre_norm_adds_final_norms() -> None:
    names = Transformer(_config(norm_position="pre")).hook_names
    extra = set(names) - set(GOLDEN_ENCODER_DECODER_POST)
    assert extra == {"encoder.norm.hook_in", "encoder.norm.hook_out", "decoder.norm.hook_in", "decoder.norm.hook_out"}
    assert set(GOLDEN_ENCODER_DECODER_POST) <= set(names)


def test_unknown_names_raise_key_error(model: Transformer) -> None:
    with (
        pytest.raises(KeyError, match=r"encoder\.layers\.9\.self_attn\.hook_pattern"),
        capture(model, names=["encoder.layers.9.self_attn.hook_pattern"]),
    ):
        pass
    with (
        pytest.raises(KeyError, match="hook_patern"),
        capture(model, interventions={"decoder.layers.0.self_attn.hook_patern": zero_head(0)}),
    ):
        pass
    with pytest.raises(KeyError, match="nope"), intervene(model, {"nope": zero_head(0)}):
        pass


# ---- Recording -----------------------------------------------------------------------------------


def test_names_records_only_those(model: Transformer) -> None:
    wanted = ["encoder.layers.1.self_attn.hook_pattern", "generator.hook_logits"]
    logits, cache = _captured(model, names=wanted)
    assert sorted(cache) == sorted(wanted)
    assert torch.equal(cache["generator.hook_logits"], logits)
    with pytest.raises(KeyError):
        cache["decoder.layers.0.self_attn.hook_pattern"]


def test_capture_all_records_every_name(model: Transformer) -> None:
    _, cache = _captured(model)
    assert set(cache) == set(model.hook_names)


def test_captured_shapes(model: Transformer) -> None:
    _, cache = _captured(model)
    h, d_k = 4, 8
    shapes = {
        "encoder.layers.0.self_attn": (5, 5),
        "decoder.layers.1.self_attn": (4, 4),
        "decoder.layers.0.cross_attn": (4, 5),
    }
    for prefix, (tq, tk) in shapes.items():
        for kind in ("hook_scores", "hook_masked_scores", "hook_pattern"):
            assert cache[f"{prefix}.{kind}"].shape == (2, h, tq, tk)
        mask = cache[hook_name(prefix, "mask")]
        assert mask.shape == (2, 1, tq, tk) and mask.dtype == torch.bool
        assert cache[hook_name(prefix, "q")].shape == (2, h, tq, d_k)
        assert cache[hook_name(prefix, "k")].shape == (2, h, tk, d_k)
        assert cache[hook_name(prefix, "z")].shape == (2, h, tq, d_k)
        assert cache[hook_name(prefix, "out")].shape == (2, tq, 32)
    assert cache["src_pos.hook_out"].shape == (2, 5, 32)
    assert cache["decoder.layers.0.feed_forward.hook_hidden"].shape == (2, 4, 64)
    assert cache["generator.hook_logits"].shape == (2, 4, 20)
    assert cache.numpy()["decoder.layers.0.cross_attn.hook_mask"].dtype == np.bool_


def test_capture_outside_block_records_nothing(model: Transformer) -> None:
    _, cache = _captured(model)
    before = {name: tensor for name, tensor in cache.items()}
    with torch.no_grad():
        model(SRC[:1], TGT[:1])  # different shapes: any recording would show
    assert len(cache) == len(before)
    assert all(cache[name] is tensor for name, tensor in before.items())


def test_nested_captures_are_independent(model: Transformer) -> None:
    outer_name, inner_name = "generator.hook_logits", "encoder.layers.0.self_attn.hook_pattern"
    with torch.no_grad(), capture(model, names=[outer_name]) as outer:
        with capture(model, names=[inner_name, outer_name]) as inner:
            inner_logits = model(SRC[:1], TGT[:1])
        assert len(outer) == 0  # the inner block's pass went to the inner cache only
        assert torch.equal(inner[outer_name], inner_logits)
        outer_logits = model(SRC, TGT)
    assert list(outer) == [outer_name] and torch.equal(outer[outer_name], outer_logits)
    assert inner[outer_name].shape[0] == 1  # not overwritten by the outer block's later pass
    assert inner[inner_name].shape == (1, 4, 5, 5)


# ---- Interventions --------------------------------------------------------------------------------

SELF0 = "decoder.layers.0.self_attn"
CROSS1 = "decoder.layers.1.cross_attn"
ENC0 = "encoder.layers.0.self_attn"


def _replacement() -> torch.Tensor:
    pattern = torch.zeros(6, 5)  # taller than Tq=4: replace_pattern crops the rows
    pattern[:, 0] = 1.0  # every query looks at the first source token only
    return pattern


INTERVENTIONS = {
    "zero_head_pattern": (hook_name(ENC0, "pattern"), lambda: zero_head(1)),
    "zero_head_z": (hook_name(SELF0, "z"), lambda: zero_head(2)),
    "replace_pattern": (hook_name(CROSS1, "pattern"), lambda: replace_pattern(3, _replacement())),
    "edit_mask_noncausal": (hook_name(SELF0, "mask"), lambda: edit_mask(causal=False)),
    "edit_mask_blocked": (hook_name(CROSS1, "mask"), lambda: edit_mask(blocked_keys=[1])),
}


@pytest.mark.parametrize("kind", INTERVENTIONS)
def test_intervention_changes_logits_and_leaves_model_untouched(model: Transformer, kind: str) -> None:
    name, make = INTERVENTIONS[kind]
    state_before = {k: v.clone() for k, v in model.state_dict().items()}
    plain_before = _plain(model)
    base_logits, base = _captured(model)
    logits, cache = _captured(model, interventions={name: make()})

    assert not torch.allclose(logits, base_logits, atol=1e-4), "the intervention had no effect"
    prefix = name.rsplit(".", 1)[0]
    pattern = cache[hook_name(prefix, "pattern")]
    if kind == "zero_head_pattern":
        assert torch.all(pattern[:, 1] == 0.0)
        assert torch.equal(pattern[:, [0, 2, 3]], base[hook_name(prefix, "pattern")][:, [0, 2, 3]])
    elif kind == "zero_head_z":
        assert torch.all(cache[name][:, 2] == 0.0)
        assert not torch.all(base[name][:, 2] == 0.0)
        assert torch.equal(pattern, base[hook_name(prefix, "pattern")])  # the pattern itself is untouched
    elif kind == "replace_pattern":
        assert torch.equal(pattern[:, 3], _replacement()[:4].expand(2, 4, 5))
        assert torch.equal(pattern[:, :3], base[hook_name(prefix, "pattern")][:, :3])
    elif kind == "edit_mask_noncausal":
        mask = cache[name]
        assert torch.equal(mask[0, 0], torch.ones(4, 4, dtype=torch.bool))  # no padding in sentence 0
        assert torch.equal(mask[1, 0], torch.tensor([[True, True, True, False]] * 4))  # padding stays masked
        assert torch.all(pattern[0, :, 0, 1:] > 0.0)  # the first query now sees the future
        assert torch.all(pattern[1, :, :, 3] == 0.0)
    elif kind == "edit_mask_blocked":
        assert not cache[name][..., 1].any()
        assert torch.all(pattern[..., 1] == 0.0)
        assert torch.all(base[hook_name(prefix, "pattern")][..., 1] > 0.0)
        live = pattern.sum(-1)
        assert torch.allclose(live, torch.ones_like(live), atol=1e-5)

    plain_after = _plain(model)
    assert torch.equal(plain_after, plain_before)
    assert torch.equal(_captured(model)[0], base_logits)
    state_after = model.state_dict()
    assert state_after.keys() == state_before.keys()
    assert all(torch.equal(state_after[k], v) for k, v in state_before.items())


def test_several_interventions_compose(model: Transformer) -> None:
    name = hook_name(ENC0, "pattern")
    _, cache = _captured(model, interventions={name: [zero_head(0), zero_head(3)]})
    assert torch.all(cache[name][:, [0, 3]] == 0.0)
    assert torch.all(cache[name][:, [1, 2]].sum(-1) > 0.99)


def test_intervene_applies_without_recording(model: Transformer) -> None:
    with torch.no_grad(), intervene(model, {hook_name(ENC0, "z"): zero_head(0)}):
        logits = model(SRC, TGT)
    assert not torch.allclose(logits, _plain(model), atol=1e-4)


def test_shape_changing_intervention_raises(model: Transformer) -> None:
    with pytest.raises(ValueError, match="changed shape"):
        _captured(model, interventions={hook_name(ENC0, "pattern"): lambda x: x[..., :-1]})
    with pytest.raises(ValueError, match="head 7"):
        _captured(model, interventions={hook_name(ENC0, "pattern"): zero_head(7)})
    with pytest.raises(ValueError, match="does not cover"):
        _captured(model, interventions={hook_name(CROSS1, "pattern"): replace_pattern(0, torch.zeros(4, 3))})
    assert torch.equal(_plain(model), _plain(model))


@pytest.mark.parametrize("positional", ["sinusoidal", "learned"])
def test_intervention_on_a_view_of_model_tensors_does_not_write_into_the_model(positional: str) -> None:
    """`hook_pe` is a view of the positional table itself: an intervention must copy, never write."""
    torch.manual_seed(0)
    model = Transformer(_config(positional=positional)).eval()
    table_before = model.src_pos.table().detach().clone()
    plain_before = _plain(model)
    logits, cache = _captured(model, interventions={"src_pos.hook_pe": zero_head(1)})  # erase position 1
    assert torch.all(cache["src_pos.hook_pe"][:, 1] == 0.0)
    assert not torch.allclose(logits, plain_before, atol=1e-4)
    assert torch.equal(model.src_pos.table(), table_before)
    assert torch.equal(_plain(model), plain_before)
