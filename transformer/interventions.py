"""Interventions described as plain, hashable data, so a UI can cache results per intervention.

An `InterventionSpec` names what to do ("zero_pattern", "zero_output", "no_causal", "block_keys")
at which attention module; `build_interventions` turns specs into the hook-point functions of
`transformer.hooks` for one call.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NamedTuple

from transformer.hooks import Intervention, edit_mask, zero_head

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
        out.setdefault(f"{spec.module}.{hook}", []).append(fn)
    return out
