"""How the engine's runs keep what they record: in another dtype (`keeping`), and with room for later rows
(`capture(room=)`), in memory the last long run's records had (`transformer.engine.record_memory`).

`transformer.hooks.capture` keeps a recorded tensor as it is. A run of the engine asks for more, through the
capture's `keep`:

- a bfloat16 run (`transformer.engine.precision`) keeps its weights as float16 (`keeping`): they hold about three
  significant digits already, float16 holds them in half of float32's bytes (a GPT-2-sized run at 1,024 tokens
  records 604 MB of weights in float32), and NumPy can hold float16, where it cannot hold bfloat16;
- a long prompt's decoder self-attention rows are kept at the start of tensors as large as the run can grow
  (`room`), which the later decoding steps' rows fill without copying the first (`transformer.engine.step_capture
  .stitch`).

The engine's attention reads the same state to know which of its tensors outlive the call (`may_keep`): those it
must not overwrite in place, nor lend to the next layer (`transformer.engine.workspace`).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterable, Iterator, Mapping

import torch
from torch import Tensor, nn

from transformer import hooks
from transformer.activation_cache import ActivationCache
from transformer.engine import record_memory
from transformer.hooks import HookPoint, Intervention

_KEEP_AS: contextvars.ContextVar[torch.dtype | None] = contextvars.ContextVar("attention_atlas_keep_as", default=None)


@contextlib.contextmanager
def keeping(dtype: torch.dtype | None) -> Iterator[None]:
    """Captures started inside (this module's `capture`) record their floating tensors as `dtype` (None: as
    computed). See the module's docstring for why a bfloat16 run keeps float16."""
    token = _KEEP_AS.set(dtype)
    try:
        yield
    finally:
        _KEEP_AS.reset(token)


class RecordKeeper:
    """A capture's `keep`: records in `keep_as` (floats; None: as computed), and with `room` where asked."""

    def __init__(self, keep_as: torch.dtype | None, room: Mapping[str, int]) -> None:
        self.keep_as = keep_as
        self.room = dict(room)  # name → rows and keys its (..., Tq, Tk) record leaves room for
        self.rooms: dict[str, Tensor] = {}  # name → the larger tensor its record is the start of

    def recorded_dtype(self, dtype: torch.dtype) -> torch.dtype:
        """The dtype a recorded `dtype` tensor is kept in: `keep_as` for floats when it is set, else its own."""
        return self.keep_as if self.keep_as is not None and dtype.is_floating_point else dtype

    def _has_room(self, name: str, shape: tuple[int, ...]) -> bool:
        """Whether a recorded (..., Tq, Tk) `shape` at `name` fits the room the capture leaves for it."""
        return len(shape) >= 2 and max(shape[-2:]) <= self.room.get(name, 0)

    def buffer(self, name: str, shape: tuple[int, ...], dtype: torch.dtype) -> Tensor:
        """`recording_buffer` of a recorded name: the start of a (..., side, side) tensor where it has room, else
        a fresh tensor."""
        if not self._has_room(name, shape):
            return torch.empty(shape, dtype=dtype)
        side = self.room[name]
        self.rooms[name] = record_memory.lend((*shape[:-2], side, side), dtype)  # the last long run's, once free
        return self.rooms[name][..., : shape[-2], : shape[-1]]

    def __call__(self, name: str, x: Tensor) -> Tensor:
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


class RecordedCache(ActivationCache):
    """An ActivationCache and, for each name recorded with room, the larger tensor its entry starts."""

    def __init__(self, cache: ActivationCache, rooms: dict[str, Tensor]) -> None:
        super().__init__(cache._tensors)  # the same live dict, which the capture fills
        self.rooms = rooms


@contextlib.contextmanager
def capture(
    model: nn.Module,
    names: Iterable[str] | None = None,
    interventions: Mapping[str, Intervention | Iterable[Intervention]] | None = None,
    room: Mapping[str, int] | None = None,
) -> Iterator[RecordedCache]:
    """`transformer.hooks.capture`, keeping its records as the engine's runs do.

    Args:
        room: hook name → a side S: its (..., Tq, Tk) record is kept as the start of a (..., S, S) tensor
            (`RecordedCache.rooms`), which later rows and keys can fill without copying it
            (`transformer.engine.recorded_decoding`: a long prompt's patterns, then each step's row).
    Records are kept as `keeping` says where a capture starts inside it.
    """
    keeper = RecordKeeper(_KEEP_AS.get(), room or {})
    with hooks.capture(model, names, interventions, keep=keeper) as cache:
        try:
            yield RecordedCache(cache, keeper.rooms)
        finally:
            if keeper.room:  # this run's records are the ones the next long run may write over
                record_memory.keep(keeper.rooms.values())


def _keeper(state: hooks.CaptureState) -> RecordKeeper | None:
    return state.keep if isinstance(state.keep, RecordKeeper) else None


def observed(point: HookPoint) -> bool:
    """Whether the current context records or edits `point` at all: a point nobody observes may go uncalled
    (the engine computes a large layer a block of query rows at a time, never its whole scores)."""
    state = hooks.active_capture()
    return state is not None and (state.edits(point.name) or state.records(point.name))


def edited(point: HookPoint) -> bool:
    """Whether an intervention changes the tensor at `point` in the current context."""
    state = hooks.active_capture()
    return state is not None and state.edits(point.name)


def records_as(point: HookPoint, dtype: torch.dtype) -> torch.dtype | None:
    """The dtype a `dtype` tensor given to `point` is recorded as (`keeping`), or None where it is not recorded."""
    state = hooks.active_capture()
    if state is None or not state.records(point.name):
        return None
    keeper = _keeper(state)
    return dtype if keeper is None else keeper.recorded_dtype(dtype)


def recording_buffer(point: HookPoint, shape: tuple[int, ...], dtype: torch.dtype) -> Tensor:
    """A tensor of `shape` and `dtype` (contents undefined) to build `point`'s recorded tensor in before passing it
    there: the start of a larger one where the capture leaves room for later rows and keys (`capture(room=)`), so
    recording it copies nothing; else a fresh one."""
    state = hooks.active_capture()
    keeper = None if state is None else _keeper(state)
    return torch.empty(shape, dtype=dtype) if keeper is None else keeper.buffer(point.name, shape, dtype)


def may_keep(point: HookPoint, dtype: torch.dtype) -> bool:
    """Whether a tensor of `dtype` given to `point` may outlive the call: the current context records it as it is
    (not as a `keeping` copy in another dtype) or hands it to an intervention. The engine must then not overwrite
    it in place afterwards, nor write the next layer's numbers over it (`transformer.engine.workspace`)."""
    state = hooks.active_capture()
    if state is None:
        return False
    if state.edits(point.name):
        return True
    return records_as(point, dtype) == dtype
