"""The model's Figure 1 as data: which boxes a config has, in order, with live tensor shapes.

An encoder-decoder model has two stacks; a decoder-only model has one and no cross-attention; an
encoder-only model (BERT) has the encoder alone, with the output layer on top of it.
Post-norm (the paper) puts "Add & Norm" after each sublayer; pre-norm puts a LayerNorm before it,
a plain residual "Add" after it, and a final LayerNorm on top of each stack. Shapes come from
the captured cache of layer 0 (every layer of a stack has the same shapes), so the diagram shows
what this input really produced, e.g. (1, 12, 64).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from hook_names import GENERATOR, embed_module, hook_name, layer_module, norm_module, pos_module, sublayer_module

# Component → pages (file names in views/) that show it; the first is the main one.
COMPONENT_PAGES: dict[str, tuple[str, ...]] = {
    "tokens": (),
    "embedding": ("positional",),
    "positional": ("positional",),
    "self_attn": ("heads", "step_by_step"),
    "masked_self_attn": ("heads", "masks", "step_by_step"),
    "cross_attn": ("heads", "masks", "step_by_step"),
    "feed_forward": ("feed_forward",),
    "add_norm": ("layernorm",),
    "norm": ("layernorm",),
    "add": ("layernorm",),
    "final_norm": ("layernorm",),
    "linear": ("output",),
    "softmax": ("output",),
}


@dataclass(frozen=True)
class Box:
    """One box of the diagram, bottom to top within its stack."""

    id: str  # unique, e.g. "decoder.cross_attn"
    component: str  # a COMPONENT_PAGES key: what the box is (its label and its pages)
    stack: str  # "encoder" or "decoder"
    hook: str | None  # hook whose shape the box shows
    detail_hook: str | None = None  # a second shape worth knowing (attention weights, FFN hidden)
    in_layer: bool = False  # inside the "N ×" repeated layer
    group: int = -1  # which residual sublayer (0, 1, 2) it belongs to, -1 outside layers
    shape: tuple[int, ...] | None = None
    detail_shape: tuple[int, ...] | None = None

    @property
    def pages(self) -> tuple[str, ...]:
        return COMPONENT_PAGES[self.component]


def _sublayers(stack: str, encoder_decoder: bool) -> list[tuple[str, str]]:
    """(module name, component) of each residual sublayer of a layer of `stack`, in order."""
    if stack == "encoder":
        return [("self_attn", "self_attn"), ("feed_forward", "feed_forward")]
    cross = [("cross_attn", "cross_attn")] if encoder_decoder else []
    return [("self_attn", "masked_self_attn"), *cross, ("feed_forward", "feed_forward")]


def stack_boxes(stack: str, encoder_decoder: bool, norm_position: str, encoder_only: bool = False) -> list[Box]:
    """The boxes of one stack, without shapes, bottom (token ids) to top."""
    tokens = hook_name(embed_module(stack), "tokens")
    boxes = [
        Box(f"{stack}.tokens", "tokens", stack, tokens),
        Box(f"{stack}.embedding", "embedding", stack, tokens),
        Box(f"{stack}.positional", "positional", stack, hook_name(pos_module(stack), "out"), hook_name(pos_module(stack), "pe")),
    ]
    for i, (module, component) in enumerate(_sublayers(stack, encoder_decoder)):
        sub = sublayer_module(stack, 0, i)
        if module == "feed_forward":
            main = Box(
                f"{stack}.{module}",
                component,
                stack,
                hook_name(sub, "sublayer_out"),
                hook_name(layer_module(stack, 0, module), "hidden"),
                True,
                i,
            )
        else:
            main = Box(
                f"{stack}.{module}",
                component,
                stack,
                hook_name(layer_module(stack, 0, module), "out"),
                hook_name(layer_module(stack, 0, module), "pattern"),
                True,
                i,
            )
        if norm_position == "pre":
            boxes += [
                Box(f"{stack}.norm{i}", "norm", stack, hook_name(norm_module(stack, 0, i), "out"), None, True, i),
                main,
                Box(f"{stack}.add{i}", "add", stack, hook_name(sub, "resid"), None, True, i),
            ]
        else:
            boxes += [main, Box(f"{stack}.add_norm{i}", "add_norm", stack, hook_name(sub, "resid"), None, True, i)]
    if norm_position == "pre":
        boxes.append(Box(f"{stack}.final_norm", "final_norm", stack, hook_name(norm_module(stack, None), "out")))
    if stack == "decoder" or encoder_only:  # the output layer sits on the last stack
        logits = hook_name(GENERATOR, "logits")
        boxes += [Box(f"{stack}.linear", "linear", stack, logits), Box(f"{stack}.softmax", "softmax", stack, logits)]
    return boxes


def architecture_boxes(
    encoder_decoder: bool, norm_position: str, shapes: Mapping[str, Sequence[int]] | None = None, encoder_only: bool = False
) -> dict[str, list[Box]]:
    """Stack name → its boxes, with shapes filled in from `shapes` (hook name → array shape) where known."""
    stacks = ["encoder"] if encoder_only else ["encoder", "decoder"] if encoder_decoder else ["decoder"]
    shapes = shapes or {}
    result = {}
    for stack in stacks:
        filled = []
        for box in stack_boxes(stack, encoder_decoder, norm_position, encoder_only):
            shape = tuple(shapes[box.hook]) if box.hook in shapes else None
            if shape is not None and box.component == "tokens":
                shape = shape[:2]  # (B, T) token ids, before the embedding adds d_model
            detail = tuple(shapes[box.detail_hook]) if box.detail_hook in shapes else None
            filled.append(replace(box, shape=shape, detail_shape=detail))
        result[stack] = filled
    return result


def architecture_hook_names(encoder_decoder: bool, norm_position: str, encoder_only: bool = False) -> tuple[str, ...]:
    """Every hook the diagram reads its shapes from (layer 0 only: ask `get_trace` for no more)."""
    names = []
    for boxes in architecture_boxes(encoder_decoder, norm_position, encoder_only=encoder_only).values():
        for box in boxes:
            names += [n for n in (box.hook, box.detail_hook) if n and n not in names]
    return tuple(names)


def format_shape(shape: Sequence[int] | None) -> str:
    """(1, 12, 64) → "(1, 12, 64)"; unknown → "—"."""
    return "—" if shape is None else "(" + ", ".join(str(int(n)) for n in shape) + ")"


# ---- Parameter counts per component -------------------------------------------------------------

_PARAM_GROUPS: list[tuple[str, str]] = [  # (regex on the parameter name, component id), first match wins
    (r"^src_embed\.", "src_embedding"),
    (r"^tgt_embed\.", "tgt_embedding"),
    (r"^(src|tgt)_pos\.", "positional"),
    (r"^encoder\.layers\.\d+\.self_attn\.", "encoder_self_attn"),
    (r"^encoder\.layers\.\d+\.feed_forward\.", "encoder_feed_forward"),
    (r"^encoder\.layers\.\d+\.sublayer\.", "encoder_norms"),
    (r"^decoder\.layers\.\d+\.self_attn\.", "decoder_self_attn"),
    (r"^decoder\.layers\.\d+\.cross_attn\.", "cross_attn"),
    (r"^decoder\.layers\.\d+\.feed_forward\.", "decoder_feed_forward"),
    (r"^decoder\.layers\.\d+\.sublayer\.", "decoder_norms"),
    (r"^(encoder|decoder)\.norm\.", "final_norms"),
    (r"^generator\.", "generator"),
]


def parameter_groups(sizes: Mapping[str, int]) -> list[tuple[str, int]]:
    """Parameter name → element count, summed per component (in model order); unknown names → "other"."""
    totals: dict[str, int] = {}
    for name, count in sizes.items():
        group = next((g for pattern, g in _PARAM_GROUPS if re.match(pattern, name)), "other")
        totals[group] = totals.get(group, 0) + int(count)
    return list(totals.items())
