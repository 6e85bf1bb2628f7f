"""Interventions: small functions over the tensor at one hook point, and the same described as plain,
hashable data, so a UI can cache results per intervention.

`zero_head`, `replace_pattern` and `edit_mask` return an `Intervention` for
`transformer.hooks.capture(..., interventions=...)`, which applies it for one call only.
An `InterventionSpec` names what to do ("zero_pattern", "zero_output", "no_causal", "block_keys")
at which attention module; `build_interventions` turns specs into the hook-point functions of
`transformer.hooks` for one call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal, NamedTuple

from torch import Tensor

from hook_names import attn_module, hook_name
from transformer.hooks import Intervention

_ROW_LOCAL = "acts_on_each_query_row_alone"


def row_local(intervention: Intervention) -> Intervention:
    """Mark `intervention` as acting on each query row alone: what it does to row i depends on row i only,
    never on how many rows the call computes or where they start. Incremental decoding computes one new
    row per step (`transformer.engine.kv_cache`) and applies such an intervention with the meaning it has in a
    full pass; any other intervention on the decoder makes decoding rerun the whole prefix instead."""
    setattr(intervention, _ROW_LOCAL, True)
    return intervention


def is_row_local(intervention: Callable[..., object]) -> bool:
    """Whether `intervention` was marked by `row_local`."""
    return getattr(intervention, _ROW_LOCAL, False) is True


def zero_head(head: int) -> Intervention:
    """Zero one head at a (B, H, ...) hook point: its pattern (`hook_pattern`) or output (`hook_z`)."""

    def apply(x: Tensor) -> Tensor:
        if not 0 <= head < x.shape[1]:
            raise ValueError(f"head {head} does not exist; this layer has {x.shape[1]} heads")
        x = x.clone()
        x[:, head] = 0
        return x

    return row_local(apply)


def replace_pattern(head: int, pattern: Tensor) -> Intervention:
    """Replace one head's attention pattern with `pattern` (Tq, Tk), cropped to the current size.

    Positions count from 0 at every step, so a step that reads fewer queries or keys uses the
    top-left block: at greedy decoding step n the decoder's self-attention is (n, n), and query i
    sees keys 0..i as in the full pass. Weight a row puts on keys that do not exist yet at that
    step is dropped, not spread over the others (so a row above the diagonal sums to less than 1
    there): no step can attend to a token that has not been written.
    """

    def apply(x: Tensor) -> Tensor:  # x: (B, H, Tq, Tk)
        tq, tk = x.shape[-2:]
        if pattern.shape[-2] < tq or pattern.shape[-1] < tk:
            raise ValueError(f"replacement pattern {tuple(pattern.shape)} does not cover ({tq}, {tk})")
        x = x.clone()
        x[:, head] = pattern[..., :tq, :tk].to(x.dtype)  # (Tq, Tk)
        return x

    return apply


def edit_mask(*, causal: bool = True, blocked_keys: Iterable[int] = ()) -> Intervention:
    """Change an attention mask (`hook_mask`, (B, 1, Tq, Tk) allowed) for this call.

    Args:
        causal: False lifts the causal (future) part of a decoder self-attention mask, keeping padding.
        blocked_keys: key positions no query may attend to (e.g. to hide one source token).
    """
    blocked = sorted(set(blocked_keys))

    def apply(allowed: Tensor) -> Tensor:
        allowed = allowed.clone()
        if not causal:
            # A key is padding iff no query may see it; re-open every real key to every query.
            real_keys = allowed.any(dim=-2, keepdim=True)  # (B, 1, 1, Tk)
            allowed = real_keys.expand_as(allowed).clone()
        keys = [k for k in blocked if k < allowed.shape[-1]]
        allowed[..., keys] = False
        return allowed

    # Hiding keys is the same for every query row; lifting the causal mask lets earlier rows read later
    # tokens, which no cache of earlier rows' keys and values can honour.
    return row_local(apply) if causal else apply


Kind = Literal["zero_pattern", "zero_output", "no_causal", "block_keys"]


class InterventionSpec(NamedTuple):
    """One per-call change to the model's computation.

    Attributes:
        kind: zero_pattern (a head attends to nothing), zero_output (a head's output z is zeroed:
            ablation), no_causal (lift the causal mask of a decoder self-attention), block_keys
            (no query may attend to the key positions in `keys`).
        module: an attention module's path, e.g. "decoder.layers.0.self_attn".
        head: the head for zero_pattern / zero_output.
        keys: key positions for block_keys.
    """

    kind: Kind
    module: str
    head: int = 0
    keys: tuple[int, ...] = ()


def no_causal_specs(n_layers: int, layers: Sequence[int] | None = None) -> tuple[InterventionSpec, ...]:
    """Lift the causal mask of the given decoder layers (all by default)."""
    chosen = range(n_layers) if layers is None else layers
    return tuple(InterventionSpec("no_causal", attn_module("decoder", i)) for i in chosen)


def build_interventions(specs: Iterable[InterventionSpec]) -> dict[str, list[Intervention]]:
    """Specs → {hook name: [functions]}, ready for `capture(..., interventions=...)`."""
    out: dict[str, list[Intervention]] = {}
    for spec in specs:
        if spec.kind == "zero_pattern":
            hook, fn = "hook_pattern", zero_head(spec.head)
        elif spec.kind == "zero_output":
            hook, fn = "hook_z", zero_head(spec.head)
        elif spec.kind == "no_causal":
            hook, fn = "hook_mask", edit_mask(causal=False)
        elif spec.kind == "block_keys":
            hook, fn = "hook_mask", edit_mask(blocked_keys=spec.keys)
        else:
            raise ValueError(f"unknown intervention kind {spec.kind!r}")
        out.setdefault(hook_name(spec.module, hook), []).append(fn)
    return out
