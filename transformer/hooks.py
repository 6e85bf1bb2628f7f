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

import numpy as np
import torch
from torch import Tensor, nn

from transformer.engine import record_memory

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

    def observed(self) -> bool:
        """Whether the current context records or edits this point at all: a point nobody observes may go uncalled
        (`MultiHeadAttention` computes a large layer a block of query rows at a time, never its whole scores)."""
        state = _ACTIVE.get()
        return state is not None and (state.edits(self.name) or state.records(self.name))

    def edited(self) -> bool:
        """Whether an intervention changes the tensor at this point in the current context."""
        state = _ACTIVE.get()
        return state is not None and state.edits(self.name)

    def records_as(self, dtype: torch.dtype) -> torch.dtype | None:
        """The dtype a `dtype` tensor given here is recorded as (`keeping`), or None where it is not recorded."""
        state = _ACTIVE.get()
        return state.recorded_dtype(dtype) if state is not None and state.records(self.name) else None

    def recording_buffer(self, shape: tuple[int, ...], dtype: torch.dtype) -> Tensor:
        """A tensor of `shape` and `dtype` (contents undefined) to build this point's tensor in before passing it
        here: the start of a larger one where the capture leaves room for later rows and keys (`capture(room=)`), so
        recording it copies nothing; else a fresh one."""
        state = _ACTIVE.get()
        if state is None:
            return torch.empty(shape, dtype=dtype)
        return state.buffer(self.name, shape, dtype)

    def may_keep(self, dtype: torch.dtype) -> bool:
        """Whether a tensor of `dtype` given to this point may outlive the call: the current context records it as
        it is (not as a `keeping` copy in another dtype) or hands it to an intervention. The model must then not
        overwrite it in place afterwards, nor write the next layer's numbers over it (`transformer.engine.workspace`)."""
        state = _ACTIVE.get()
        return state is not None and state.may_keep(self.name, dtype)

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


class ActivationCache(Mapping[str, Tensor]):
    """What one call recorded: hook name → tensor (detached, batch dimension kept).

    Attention-shaped entries (`hook_scores`, `hook_masked_scores`, `hook_pattern`) are
    (B, H, Tq, Tk); `hook_mask` is (B, 1, Tq, Tk) boolean; residual-stream entries are (B, T, d_model).
    """

    def __init__(self, tensors: dict[str, Tensor] | None = None, rooms: dict[str, Tensor] | None = None) -> None:
        self._tensors: dict[str, Tensor] = {} if tensors is None else tensors  # not copied: capture fills it live
        self.rooms: dict[str, Tensor] = {} if rooms is None else rooms  # name → the larger tensor its entry starts

    def __getitem__(self, name: str) -> Tensor:
        try:
            return self._tensors[name]
        except KeyError:
            raise KeyError(f"{name!r} was not captured; captured: {len(self._tensors)} names") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._tensors)

    def __len__(self) -> int:
        return len(self._tensors)

    def __repr__(self) -> str:
        return f"ActivationCache({len(self)} tensors)"

    def numpy(self) -> dict[str, np.ndarray]:
        """Every tensor as a NumPy array (float tensors as float32), for viz/ and .npz export."""
        return {name: as_numpy(tensor) for name, tensor in self._tensors.items()}


@dataclass
class _CaptureState:
    """What hook points do in the current context: record some names, apply some interventions."""

    record: frozenset[str] | None  # None: record nothing (decoding steps); else the names to keep
    interventions: dict[str, list[Intervention]] = field(default_factory=dict)
    tensors: dict[str, Tensor] = field(default_factory=dict)
    keep_as: torch.dtype | None = None  # floating tensors are recorded as this dtype (`keeping`); None: as computed
    room: Mapping[str, int] = field(default_factory=dict)  # name → rows and keys its (..., Tq, Tk) record leaves room for
    rooms: dict[str, Tensor] = field(default_factory=dict)  # name → the larger tensor its record is the start of

    def recorded_dtype(self, dtype: torch.dtype) -> torch.dtype:
        """The dtype a recorded `dtype` tensor is kept in: `keep_as` for floats when it is set, else its own."""
        return self.keep_as if self.keep_as is not None and dtype.is_floating_point else dtype

    def _has_room(self, name: str, shape: tuple[int, ...]) -> bool:
        """Whether a recorded (..., Tq, Tk) `shape` at `name` fits the room the capture leaves for it."""
        return self.records(name) and len(shape) >= 2 and max(shape[-2:]) <= self.room.get(name, 0)

    def buffer(self, name: str, shape: tuple[int, ...], dtype: torch.dtype) -> Tensor:
        """`HookPoint.recording_buffer`: the start of a (..., side, side) tensor for a name with room, else fresh."""
        if not self._has_room(name, shape):
            return torch.empty(shape, dtype=dtype)
        side = self.room[name]
        self.rooms[name] = record_memory.lend((*shape[:-2], side, side), dtype)  # the last long run's, once free
        return self.rooms[name][..., : shape[-2], : shape[-1]]

    def _kept(self, name: str, x: Tensor) -> Tensor:
        """What recording `x` at `name` keeps: `x` itself, a copy in `keep_as`, or a copy into the start of a larger
        tensor where the capture leaves room (unless `x` is already there: `buffer`)."""
        kept = x.detach()  # a reference, not a copy: capture stays cheap
        dtype = self.recorded_dtype(kept.dtype)
        base = self.rooms.get(name)
        if base is not None and kept.data_ptr() == base.data_ptr() and kept.dtype == base.dtype:
            return kept  # built in its room
        if self._has_room(name, tuple(kept.shape)):
            return self.buffer(name, tuple(kept.shape), dtype).copy_(kept)
        return kept.to(dtype)

    def records(self, name: str) -> bool:
        """Whether hook `name` is recorded here."""
        return self.record is not None and name in self.record

    def edits(self, name: str) -> bool:
        """Whether an intervention changes hook `name` here."""
        return name in self.interventions

    def may_keep(self, name: str, dtype: torch.dtype) -> bool:
        """Whether a `dtype` tensor at hook `name` may outlive the call here (`HookPoint.may_keep`)."""
        return self.edits(name) or (self.records(name) and self.recorded_dtype(dtype) == dtype)

    def visit(self, name: str, x: Tensor) -> Tensor:
        for intervene in self.interventions.get(name, ()):
            changed = intervene(x)
            if changed.shape != x.shape:
                raise ValueError(f"intervention at {name} changed shape {tuple(x.shape)} → {tuple(changed.shape)}")
            x = changed
        if self.records(name):
            self.tensors[name] = self._kept(name, x)
        return x


_ACTIVE: contextvars.ContextVar[_CaptureState | None] = contextvars.ContextVar("attention_atlas_capture", default=None)
_KEEP_AS: contextvars.ContextVar[torch.dtype | None] = contextvars.ContextVar("attention_atlas_keep_as", default=None)


@contextlib.contextmanager
def keeping(dtype: torch.dtype | None) -> Iterator[None]:
    """Captures started inside record their floating tensors as `dtype` (None: as computed).

    A bfloat16 run (`transformer.engine.precision`) keeps its weights as float16: they hold about three significant
    digits already, float16 holds them in half of float32's bytes (a GPT-2-sized run at 1,024 tokens records
    604 MB of weights in float32), and NumPy can hold float16, where it cannot hold bfloat16."""
    token = _KEEP_AS.set(dtype)
    try:
        yield
    finally:
        _KEEP_AS.reset(token)


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
    room: Mapping[str, int] | None = None,
) -> Iterator[ActivationCache]:
    """Record hook points of `model` for calls made inside this block, in this thread only.

    Args:
        model: the model whose hook names are valid (used to reject typos early).
        names: hook names to record; None records all of them.
        interventions: hook name → function(s) applied to the tensor there before recording, for
            this call only (see `transformer.interventions`).
        room: hook name → a side S: its (..., Tq, Tk) record is kept as the start of a (..., S, S) tensor
            (`ActivationCache.rooms`), which later rows and keys can fill without copying it
            (`transformer.engine.recorded_decoding`: a long prompt's patterns, then each step's row).
    Yields:
        An ActivationCache, filled as the forward pass runs. If the block runs several forward
        passes, the last value at each name wins.
    """
    wanted = frozenset(_known_names(model) if names is None else names)
    if names is not None:  # all names are known by definition
        _check_names(model, wanted)
    state = _CaptureState(
        record=wanted, interventions=_normalize(model, interventions), keep_as=_KEEP_AS.get(), room=dict(room or {})
    )
    token = _ACTIVE.set(state)
    try:
        yield ActivationCache(state.tensors, state.rooms)
    finally:
        _ACTIVE.reset(token)
        if state.room:  # this run's records are the ones the next long run may write over
            record_memory.keep(state.rooms.values())


@contextlib.contextmanager
def intervene(model: nn.Module, interventions: Mapping[str, Intervention | Iterable[Intervention]] | None) -> Iterator[None]:
    """Apply interventions without recording anything (e.g. during greedy decoding steps). With none to apply,
    hook points see no state at all and return their input at once (a decoding step passes ~40 per layer)."""
    state = _CaptureState(record=None, interventions=_normalize(model, interventions)) if interventions else None
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


def as_numpy(tensor: Tensor) -> np.ndarray:
    """A captured tensor as NumPy: float16 as it is (recorded so on purpose, `keeping`), other floats as float32
    (bfloat16 cannot go to NumPy at all), the rest (bool, ids) as they are."""
    t = tensor.detach().cpu()
    return (t.float() if t.is_floating_point() and t.dtype != torch.float16 else t).numpy()


__all__ = [
    "ActivationCache",
    "HookPoint",
    "Intervention",
    "active_interventions",
    "as_numpy",
    "capture",
    "hook_names",
    "intervene",
    "keeping",
    "name_hook_points",
]
