"""Named hook points and per-call capture.

Why not `register_forward_hook`: under Streamlit every browser session runs in its own thread over
one shared, cached model, and module-level hooks fire for every thread, so one session's cache
would fill with another's tensors. Instead each `HookPoint` looks up the capture that is active in
*its own* context (a `contextvars.ContextVar`), so concurrent calls never see each other, and a
call made outside any capture costs one ContextVar lookup per hook point.

The same mechanism carries interventions for the current call only (the functions themselves, zero
a head, replace a pattern, edit a mask, are in `transformer.interventions`): the model's parameters
and modules are never mutated.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from torch import Tensor, nn

from transformer.activation_cache import ActivationCache

Intervention = Callable[[Tensor], Tensor]
"""Maps the tensor at a hook point to the tensor the model continues with (same shape)."""


class HookPoint(nn.Module):
    """An identity module marking a tensor the app can read or an intervention can change.

    `name` is the module's dotted path in the model (e.g. `encoder.layers.0.self_attn.hook_pattern`),
    set once by `name_hook_points` after the model is built.
    """

    def __init__(self) -> None:
        super().__init__()
        self.name = ""

    def forward(self, x: Tensor) -> Tensor:
        state = _ACTIVE.get()
        if state is None:
            return x
        return state.visit(self.name, x)

    def __call__(self, x: Tensor) -> Tensor:
        """`forward`, without `nn.Module.__call__`'s search for module hooks, which this project never registers
        (the module docstring says why): a decoding step passes some 40 hook points per layer, and that search
        was a tenth of a small model's step."""
        return self.forward(x)

    def extra_repr(self) -> str:
        return self.name


def name_hook_points(model: nn.Module) -> list[str]:
    """Give every HookPoint its path in `model` and return all names in module order."""
    names = []
    for path, module in model.named_modules():
        if isinstance(module, HookPoint):
            module.name = path
            names.append(path)
    return names


def hook_names(model: nn.Module) -> list[str]:
    """All hook point names of `model`, in module-definition order (the golden list pins it)."""
    return [m.name for m in model.modules() if isinstance(m, HookPoint)]


def _known_names(model: nn.Module) -> list[str]:
    """`hook_names(model)`, from the list a Transformer keeps (`model.hook_names`) when it has one:
    walking a base model's module tree on every `capture()` cost a tenth of a small model's forward."""
    names = getattr(model, "hook_names", None)
    return names if isinstance(names, list) else hook_names(model)


Keep = Callable[[str, Tensor], Tensor]
"""What recording a tensor at a hook name keeps (`capture(keep=)`); by default the tensor itself, detached."""


def _as_computed(name: str, x: Tensor) -> Tensor:
    return x.detach()  # a reference, not a copy: capture stays cheap


@dataclass
class CaptureState:
    """What hook points do in the current context: record some names, apply some interventions."""

    record: frozenset[str] | None  # None: record nothing (decoding steps); else the names to keep
    interventions: dict[str, list[Intervention]] = field(default_factory=dict)
    tensors: dict[str, Tensor] = field(default_factory=dict)
    keep: Keep = _as_computed

    def records(self, name: str) -> bool:
        """Whether hook `name` is recorded here."""
        return self.record is not None and name in self.record

    def edits(self, name: str) -> bool:
        """Whether an intervention changes hook `name` here."""
        return name in self.interventions

    def visit(self, name: str, x: Tensor) -> Tensor:
        for intervene in self.interventions.get(name, ()):
            changed = intervene(x)
            if changed.shape != x.shape:
                raise ValueError(f"intervention at {name} changed shape {tuple(x.shape)} → {tuple(changed.shape)}")
            x = changed
        if self.records(name):
            self.tensors[name] = self.keep(name, x)
        return x


_ACTIVE: contextvars.ContextVar[CaptureState | None] = contextvars.ContextVar("attention_atlas_capture", default=None)


def active_capture() -> CaptureState | None:
    """What the current context records and edits (None outside `capture` / `intervene`): the engine reads it to
    know which tensors outlive a call (`transformer.engine.records`)."""
    return _ACTIVE.get()


def _check_names(model: nn.Module, names: Iterable[str]) -> None:
    known = set(_known_names(model))
    unknown = sorted(set(names) - known)
    if unknown:
        raise KeyError(f"unknown hook names {unknown}; see transformer.hooks.hook_names(model) for the {len(known)} known ones")


@contextlib.contextmanager
def capture(
    model: nn.Module,
    names: Iterable[str] | None = None,
    interventions: Mapping[str, Intervention | Iterable[Intervention]] | None = None,
    keep: Keep | None = None,
) -> Iterator[ActivationCache]:
    """Record hook points of `model` for calls made inside this block, in this thread only.

    Args:
        model: the model whose hook names are valid (used to reject typos early).
        names: hook names to record; None records all of them.
        interventions: hook name → function(s) applied to the tensor there before recording, for
            this call only (see `transformer.interventions`).
        keep: what recording a tensor keeps (None: the tensor itself); the engine's runs keep theirs in another
            dtype or in memory with room for later rows (`transformer.engine.records.capture`).
    Yields:
        An ActivationCache, filled as the forward pass runs. If the block runs several forward
        passes, the last value at each name wins.
    """
    wanted = frozenset(_known_names(model) if names is None else names)
    if names is not None:  # all names are known by definition
        _check_names(model, wanted)
    state = CaptureState(record=wanted, interventions=_normalize(model, interventions), keep=keep or _as_computed)
    token = _ACTIVE.set(state)
    try:
        yield ActivationCache(state.tensors)
    finally:
        _ACTIVE.reset(token)


@contextlib.contextmanager
def intervene(model: nn.Module, interventions: Mapping[str, Intervention | Iterable[Intervention]] | None) -> Iterator[None]:
    """Apply interventions without recording anything (e.g. during greedy decoding steps). With none to apply,
    hook points see no state at all and return their input at once (a decoding step passes ~40 per layer)."""
    state = CaptureState(record=None, interventions=_normalize(model, interventions)) if interventions else None
    token = _ACTIVE.set(state)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active_interventions() -> Mapping[str, list[Intervention]]:
    """The interventions in force in this context (hook name → functions), {} outside `capture`/`intervene`:
    incremental decoding reads them to decide whether its key/value cache can honour them."""
    state = _ACTIVE.get()
    return {} if state is None else state.interventions


def _normalize(
    model: nn.Module, interventions: Mapping[str, Intervention | Iterable[Intervention]] | None
) -> dict[str, list[Intervention]]:
    if not interventions:
        return {}
    _check_names(model, interventions)
    return {name: [fns] if callable(fns) else list(fns) for name, fns in interventions.items()}
