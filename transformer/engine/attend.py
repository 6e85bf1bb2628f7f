"""The engine's attention: what `MultiHeadAttention.forward` hands over inside `transformer.attention.run_by`.

`MultiHeadAttention.attend` is the paper's steps as written. The engine computes the same steps with the same hook
points passed in the same order, and changes only where the numbers are written and which ones are written at all:

- keys and values: from a key/value cache where a decoding step reads one new position (`reading_from`,
  `transformer.engine.kv_cache`), else `attention.project_keys_values`;
- a large layer inside bfloat16 arithmetic whose scores nobody observes: a block of query rows at a time
  (`transformer.engine.by_rows`);
- otherwise the whole matrix, masked and normalized in place where nothing keeps the tensor given to a hook point,
  in scratch memory the run lends where nothing keeps any of them (`transformer.engine.steps`).

The contract (`tests/transformer/test_engine_contract.py`): in float32 the engine's tokens, weights and logits
are the paper's, bit for bit; in bfloat16 they are within the tolerances the test states.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import Protocol

import torch
from torch import Tensor

from transformer.attention import MultiHeadAttention, full_mask, run_by
from transformer.engine import by_rows
from transformer.engine.records import may_keep, recording_buffer, records_as
from transformer.engine.steps import apply_mask, attention_scores, masked_softmax, scores_dtype, weighted_values


class KeyValueStore(Protocol):
    """Where a decoding step's keys and values come from when earlier steps computed some of them
    (`transformer.engine.kv_cache`: self-attention appends the new positions' keys, cross-attention
    projects the encoder's output once)."""

    def keys_values(self, attention: MultiHeadAttention, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """(B, H, Tk, d_k) keys and values of every position a query of this step may read."""
        ...


_STORES: ContextVar[Mapping[MultiHeadAttention, KeyValueStore] | None] = ContextVar("attention_atlas_kv", default=None)


@contextlib.contextmanager
def reading_from(stores: Mapping[MultiHeadAttention, KeyValueStore]) -> Iterator[None]:
    """Attention calls inside (in this context only) take their keys and values from `stores` (attention module →
    its store; a module without one projects its own), computed by the engine."""
    token = _STORES.set(stores)
    try:
        with engaged():
            yield
    finally:
        _STORES.reset(token)


class Engine:
    """`transformer.attention.Engine`: the paper's steps, computed for speed (see the module's docstring)."""

    def first_position(self, attention: MultiHeadAttention) -> int:
        """How many positions `attention`'s key/value store already holds (0 without a store)."""
        store = (_STORES.get() or {}).get(attention)
        return int(getattr(store, "length", 0))

    def attend(self, attention: MultiHeadAttention, q: Tensor, key: Tensor, value: Tensor, allowed: Tensor | None) -> Tensor:
        """(B, H, Tq, d_k) each head's weighted sum of values; q (B, H, Tq, d_k), key and value (B, Tk', d_model)."""
        store = (_STORES.get() or {}).get(attention)
        if store is None:
            k, v = attention.project_keys_values(key, value)  # (B, H, Tk, d_k) each
        else:
            k, v = store.keys_values(attention, key, value)  # (B, H, Tk, d_k) each, earlier positions' included
        b, h, tq, _ = q.shape
        tk = k.shape[2]
        if by_rows.takes_rows(attention, q, tk):
            allowed = attention.hook_mask(full_mask(allowed, b, tq, tk, q.device))  # (B, 1, Tq, Tk)
            dtype = records_as(attention.hook_pattern, torch.float32)  # None: nobody records the weights
            pattern = None if dtype is None else recording_buffer(attention.hook_pattern, (b, h, tq, tk), dtype)
            z = by_rows.attention_by_rows(q, k, v, allowed, pattern)
            if pattern is not None:
                attention.hook_pattern(pattern)  # (B, H, Tq, Tk), recorded where it was built
            return z
        dtype = scores_dtype(q)
        # Each step overwrites the last one's tensor where nothing keeps it (see `apply_mask`): the masked scores are
        # the scores themselves only when those were not kept (masked in place). Where none of the three is kept and
        # no gradient will read them, they are written over the previous layer's (`transformer.engine.workspace`).
        hooks = (attention.hook_scores, attention.hook_masked_scores, attention.hook_pattern)
        keeps = [may_keep(hook, dtype) for hook in hooks]
        lent = not torch.is_grad_enabled() and not any(keeps)
        scores = attention.hook_scores(attention_scores(q, k, lent))  # (B, H, Tq, Tk)
        allowed = attention.hook_mask(full_mask(allowed, b, tq, tk, q.device))  # (B, 1, Tq, Tk)
        masked = attention.hook_masked_scores(apply_mask(scores, allowed, in_place=not keeps[0]))
        pattern = attention.hook_pattern(masked_softmax(masked, allowed, in_place=not keeps[1]))
        return weighted_values(attention.dropout(pattern), v, lent)  # (B, H, Tq, d_k)


ENGINE = Engine()


def engaged() -> contextlib.AbstractContextManager[None]:
    """The engine computes the attention calls made inside (in this context only): `run_by(ENGINE)`."""
    return run_by(ENGINE)
