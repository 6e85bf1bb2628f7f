"""One vocabulary for hook-point names: build and parse `decoder.layers.1.cross_attn.hook_pattern`.

A hook point's name is its dotted path in the module tree (`transformer.hooks.name_hook_points`),
so the names follow from how `model.py` nests its modules. This file is the one place that spells
that nesting; every caller builds names here instead of with f-strings (compare TransformerLens's
`get_act_name`). A golden test (tests/transformer/test_capture.py) pins the full list, and a round
trip test checks that every name the model has parses and rebuilds to itself.

Plain Python on purpose, at the bottom of the import ladder (it imports nothing of the project):
`transformer/` names its hook points with it and `viz/`, which imports neither torch nor `transformer/`,
reads arrays by these names.

    act_name("cross", 1, "pattern")               # "decoder.layers.1.cross_attn.hook_pattern"
    attn_module("encoder", 0)                     # "encoder.layers.0.self_attn"
    norm_module("decoder", 2, 1)                  # "decoder.layers.2.sublayer.1.norm"
    parse("decoder.layers.1.cross_attn.hook_z")   # HookName(module=..., hook="z", stack="decoder", layer=1, kind="cross")
    head_label("cross", 1, 3)                     # "decoder.layers.1.cross_attn head 3" (cards, metrics)
    ordinal(1)                                    # 2: layer index 1 as pages show it ("layer 2", 第 2 层)
    parse_head_label("decoder.layers.1.cross_attn head 3")  # HeadLabel(kind="cross", layer=1, head=3)
"""

from __future__ import annotations

import re
from typing import NamedTuple

ATTENTION_KINDS: dict[str, tuple[str, str]] = {
    # kind → (stack, module name inside a layer); the paper's three uses of attention, in its order
    "encoder": ("encoder", "self_attn"),
    "decoder": ("decoder", "self_attn"),
    "cross": ("decoder", "cross_attn"),
}
STACKS = ("encoder", "decoder")
EMBED_PREFIX = {"encoder": "src", "decoder": "tgt"}  # the stack → its embedding/positional modules' prefix
HOOK_PREFIX = "hook_"
HEAD_SEPARATOR = " head "  # "<attention module> head <h>": how model cards and metrics name one head
GENERATOR = "generator"  # the final linear + softmax: "generator.hook_logits"

_LAYER = re.compile(r"^(encoder|decoder)\.layers\.(\d+)\.(.+)$")


class HookName(NamedTuple):
    """A parsed hook name. `str(parsed)` (or `parsed.name`) gives the name back."""

    module: str  # the module holding the hook point, e.g. "decoder.layers.1.cross_attn"
    hook: str  # the hook point without its prefix, e.g. "pattern"
    stack: str | None = None  # "encoder" / "decoder" for anything inside a stack (embeddings included)
    layer: int | None = None  # the layer index, for anything inside `<stack>.layers.<i>`
    kind: str | None = None  # "encoder" / "decoder" / "cross" for attention modules

    @property
    def name(self) -> str:
        return hook_name(self.module, self.hook)

    def __str__(self) -> str:
        return self.name


def _short(hook: str) -> str:
    return hook.removeprefix(HOOK_PREFIX)


def ordinal(index: int) -> int:
    """A 0-based layer or head index as every page shows it to a reader: counted from 1.

    The first layer is layer 1 (第 1 层) and the first head head 1 (第 1 个头), in prose, labels and pickers
    on every page and in both languages; hook names, cards and URLs keep the 0-based index
    (`decoder.layers.0.cross_attn` is layer 1). Every number a page shows passes through here.
    """
    return index + 1


def from_ordinal(number: int) -> int:
    """`ordinal`'s inverse: the index of the layer or head a reader calls `number` (a link's `?layer=1` is index 0)."""
    return number - 1


def hook_name(module: str, hook: str) -> str:
    """`("src_pos", "pe")` → "src_pos.hook_pe" (`hook` may carry its "hook_" prefix)."""
    return f"{module}.{HOOK_PREFIX}{_short(hook)}"


def layer_module(stack: str, layer: int, part: str = "") -> str:
    """`("encoder", 0, "feed_forward")` → "encoder.layers.0.feed_forward"; no part: the layer itself."""
    if stack not in STACKS:
        raise ValueError(f"unknown stack {stack!r}; expected one of {STACKS}")
    path = f"{stack}.layers.{layer}"
    return f"{path}.{part}" if part else path


def attn_module(kind: str, layer: int) -> str:
    """`("cross", 1)` → "decoder.layers.1.cross_attn"."""
    try:
        stack, module = ATTENTION_KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown attention kind {kind!r}; expected one of {list(ATTENTION_KINDS)}") from None
    return layer_module(stack, layer, module)


def act_name(kind: str, layer: int, hook: str) -> str:
    """An attention hook: `("cross", 1, "pattern")` → "decoder.layers.1.cross_attn.hook_pattern"."""
    return hook_name(attn_module(kind, layer), hook)


def sublayer_module(stack: str, layer: int, sublayer: int) -> str:
    """`("encoder", 0, 1)` → "encoder.layers.0.sublayer.1" (0: self-attention, then cross, then FFN)."""
    return layer_module(stack, layer, f"sublayer.{sublayer}")


def norm_module(stack: str, layer: int | None, sublayer: int = 0) -> str:
    """A LayerNorm's path: a sublayer's norm, or with `layer=None` the stack's final norm ("encoder.norm")."""
    if layer is None:
        return f"{stack}.norm"
    return f"{sublayer_module(stack, layer, sublayer)}.norm"


def embed_module(stack: str) -> str:
    """The token embedding that feeds `stack`: "src_embed" or "tgt_embed"."""
    return f"{EMBED_PREFIX[stack]}_embed"


def pos_module(stack: str) -> str:
    """The positional encoding that feeds `stack`: "src_pos" or "tgt_pos"."""
    return f"{EMBED_PREFIX[stack]}_pos"


def stack_input(stack: str) -> str:
    """What `stack`'s first layer reads, the start of its residual stream: embeddings + positions ("src_pos.hook_out")."""
    return hook_name(pos_module(stack), "out")


def parse(name: str) -> HookName:
    """Split a hook name into its parts; raises ValueError for a name that is not a hook point's."""
    module, sep, hook = name.rpartition(".")
    if not sep or not module or not hook.startswith(HOOK_PREFIX) or hook == HOOK_PREFIX:
        raise ValueError(f"{name!r} is not a hook name (expected '<module path>.hook_<name>')")
    hook = _short(hook)
    match = _LAYER.match(module)
    if match:
        stack, layer, inner = match.group(1), int(match.group(2)), match.group(3)
        kind = next((k for k, (s, m) in ATTENTION_KINDS.items() if s == stack and m == inner), None)
        return HookName(module, hook, stack, layer, kind)
    head = module.split(".")[0]
    stack = head if head in STACKS else next((s for s, p in EMBED_PREFIX.items() if head.startswith(f"{p}_")), None)
    return HookName(module, hook, stack)


def attention_hooks(names: list[str] | tuple[str, ...], hooks: tuple[str, ...] = ("pattern",)) -> tuple[str, ...]:
    """The names among `names` that are attention hooks `hooks` (e.g. every pattern), in order."""
    wanted = {_short(h) for h in hooks}
    out = []
    for name in names:
        try:
            parsed = parse(name)
        except ValueError:
            continue
        if parsed.kind is not None and parsed.hook in wanted:
            out.append(name)
    return tuple(out)


class HeadLabel(NamedTuple):
    """One attention head, as `parse_head_label` reads it from "decoder.layers.1.cross_attn head 3"."""

    kind: str  # "encoder" / "decoder" / "cross"
    layer: int
    head: int


def head_label(kind: str, layer: int, head: int) -> str:
    """How cards and metrics name one head: `("cross", 1, 3)` → "decoder.layers.1.cross_attn head 3"."""
    return f"{attn_module(kind, layer)}{HEAD_SEPARATOR}{head}"


def parse_head_label(text: str) -> HeadLabel:
    """Read a head label back: "decoder.layers.1.cross_attn head 3" → HeadLabel("cross", 1, 3); else ValueError."""
    module, sep, head = text.rpartition(HEAD_SEPARATOR)
    if not sep or not head.isdigit():
        raise ValueError(f"{text!r} is not a head label (expected '<attention module>{HEAD_SEPARATOR}<h>')")
    parsed = parse(hook_name(module, "pattern"))
    if parsed.kind is None or parsed.layer is None:
        raise ValueError(f"{text!r} does not name an attention module")
    return HeadLabel(parsed.kind, parsed.layer, int(head))
