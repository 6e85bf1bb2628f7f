"""Incremental decoding: each decoder layer's keys and values kept from one step to the next.

Decoding writes one token per step. Rerunning the decoder over the whole prefix at every step makes
token t cost t positions' work. The causal mask makes that waste: position i never reads a later
position, so the keys and values a layer computed for positions 0..t-1 at an earlier step are exactly
what it would compute for them again. A step needs only the newest position's query, key and value:

    self-attention:   K ← [K; x_t W^K],  V ← [V; x_t W^V]      (B, H, t + 1, d_k), one row per step
    cross-attention:  K = memory W^K,    V = memory W^V        (B, H, Ts, d_k), computed once

and token t costs one position's work plus attention over t keys.

The same equality tells where a cache cannot be used: an intervention that lets an earlier row read
a later token (the causal mask lifted), or that depends on where a row lies in the call (a replaced
pattern, an arbitrary function of the whole tensor), changes the earlier positions at every step.
Decoding then reruns the prefix (`FullRecompute`), as it did before this cache existed. Interventions
known to act on each query row alone (`transformer.interventions.row_local`: head ablation, hidden
tokens) are honoured by the cache with the meaning they have in a full pass.

Both strategies answer one question, `next_logits(ys)`: the logits of the token after `ys`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence

import torch
from torch import Tensor

from transformer.attention import MultiHeadAttention
from transformer.engine.attend import KeyValueStore, reading_from
from transformer.hooks import Intervention, active_interventions
from transformer.interventions import is_row_local
from transformer.masks import cross_mask, decoder_self_mask
from transformer.model import Transformer

CACHED_POSITIONALS = ("sinusoidal", "sinusoidal-split", "learned", "none", "rotary")
"""Position schemes that only add a vector to position t's embedding, so a step can start at t (Marian's split
sinusoids are a fixed column permutation of the paper's table: the same row lookup), and rotary positions, whose
attention turns a step's new queries and keys from the store's length on (`transformer.grouped_query_attention`)."""

# Computed the same way by both strategies: the encoder once per run, the generator on the newest row only.
_SAME_EITHER_WAY = ("encoder.", "src_", "generator.")
_CROSS_KEYS_VALUES = (".cross_attn.hook_k", ".cross_attn.hook_v")  # projected once from the encoder's output


class SelfAttentionKeysValues:
    """One self-attention layer's keys and values of every position read so far: (B, H, T, d_k) each.

    Kept in buffers of the model's maximum length, written in place: appending by concatenation
    copied (and freshly allocated) the whole prefix at every step.
    """

    def __init__(self, max_len: int) -> None:
        self.max_len = max_len
        self.k: Tensor | None = None  # (B, H, max_len, d_k), positions 0 .. length - 1 filled
        self.v: Tensor | None = None
        self.length = 0

    def keys_values(self, attention: MultiHeadAttention, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """Project the new positions (key, value: (B, T_new, d_model)) and append them to the earlier ones."""
        k, v = attention.project_keys_values(key, value)  # (B, H, T_new, d_k) each
        if self.k is None or self.v is None:
            b, h, _, d_k = k.shape
            self.k, self.v = (k.new_empty(b, h, self.max_len, d_k) for _ in range(2))  # (B, H, max_len, d_k) each
        elif self.k.dtype != k.dtype:  # a bfloat16 prompt's keys, read by float32 steps (`KeyValueCache.next_logits`)
            self.k, self.v = self.k.to(k.dtype), self.v.to(k.dtype)
        start, end = self.length, self.length + k.shape[2]
        self.k[:, :, start:end], self.v[:, :, start:end] = k, v
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]  # (B, H, T, d_k) each


class CrossAttentionKeysValues:
    """One cross-attention layer's keys and values of the encoder's output, projected at the first step only."""

    def __init__(self) -> None:
        self.k: Tensor | None = None
        self.v: Tensor | None = None

    def keys_values(self, attention: MultiHeadAttention, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """key, value: the memory (B, Ts, d_model), the same at every step → (B, H, Ts, d_k) each."""
        if self.k is None or self.v is None:
            self.k, self.v = attention.project_keys_values(key, value)
        elif self.k.dtype != key.dtype and not torch.is_autocast_enabled("cpu"):  # float32 steps after a bfloat16 one
            self.k, self.v = self.k.to(key.dtype), self.v.to(key.dtype)
        return self.k, self.v


class FullRecompute:
    """Decoding without a cache: every step reruns the decoder over the whole prefix (the encoder runs once)."""

    def __init__(self, model: Transformer, src_ids: Tensor | None) -> None:
        """src_ids: (B, Ts) source ids (encoder-decoder) or None (decoder-only)."""
        self.model = model
        self.src_ids = src_ids
        self.memory = model.encode(src_ids) if src_ids is not None else None  # (B, Ts, d_model)

    def next_logits(self, ys: Tensor) -> Tensor:
        """ys: (B, T) the decoder's input so far → (B, vocab) logits of the token after it."""
        return self.model.generator(self.model.decode(ys, self.memory, self.src_ids)[:, -1])


class KeyValueCache:
    """Decoding with a cache: each step reads only the tokens of `ys` it has not read before."""

    def __init__(self, model: Transformer, src_ids: Tensor | None, *, every_row: bool = False) -> None:
        """src_ids: (B, Ts) source ids (encoder-decoder) or None (decoder-only).

        `every_row`: the generator reads every new row, not only the last (a trace that records the logits of a
        prompt's rows); otherwise a 1,000-token prompt would pay for 1,000 rows of the vocabulary's matmul to
        use one.
        """
        self.model = model
        self.src_ids = src_ids
        self.every_row = every_row
        self.memory = model.encode(src_ids) if src_ids is not None else None  # (B, Ts, d_model)
        self.stores: dict[MultiHeadAttention, KeyValueStore] = {}  # each decoder attention's keys and values so far
        for layer in model.decoder.layers:
            self.stores[layer.self_attn] = SelfAttentionKeysValues(model.config.max_len)
            if layer.cross_attn is not None:
                self.stores[layer.cross_attn] = CrossAttentionKeysValues()
        self.length = 0  # positions read so far (their keys and values are in `stores`)

    def next_logits(self, ys: Tensor) -> Tensor:
        """ys: (B, T) the decoder's input so far, whose first `length` tokens were read by earlier calls
        (the first call reads the whole prefix in one pass) → (B, vocab) logits of the token after ys."""
        model, pad = self.model, self.model.config.pad_id
        start, total = self.length, ys.shape[1]
        if start >= total:
            raise ValueError(f"the cache has read {start} tokens; ys has {total}: nothing new to read")
        # One new position multiplies in float32 even inside bfloat16 arithmetic (`transformer.engine.precision`): for one
        # row, casting every weight to bfloat16 costs more than the products it speeds up
        one_row = contextlib.nullcontext() if total - start > 1 else torch.autocast("cpu", enabled=False)
        with one_row:
            x = model.tgt_pos(model.tgt_embed(ys[:, start:]), start=start)  # (B, T_new, d_model)
            allowed = decoder_self_mask(ys, pad)[:, :, start:]  # (B, 1, T_new, T): the new rows of the full mask
            cross_allowed = (
                cross_mask(self.src_ids, pad, total - start) if self.src_ids is not None else None
            )  # (B, 1, T_new, Ts)
            with reading_from(self.stores):  # the engine computes each attention from its store
                h = model.decoder(x, allowed, self.memory, cross_allowed)  # (B, T_new, d_model)
            self.length = total
            if self.every_row:
                return model.generator(h)[:, -1]  # (B, vocab), every new row's logits computed (and recorded)
        with torch.autocast("cpu", enabled=False):  # the last row alone: float32, as a step's (see above)
            return model.generator(h[:, -1].float())  # (B, vocab)


Decoding = KeyValueCache | FullRecompute


def cache_honours(model: Transformer, interventions: Mapping[str, Sequence[Intervention]]) -> bool:
    """Whether a key/value cache computes what a full rerun of the prefix would, under `interventions`.

    Yes when the model's positions are added to its embeddings (`CACHED_POSITIONALS`) and every
    intervention on the decoder acts on each query row alone (`row_local`); interventions on the
    encoder, the generator and cross-attention's keys and values (each computed alike by both) are free.
    """
    if model.config.positional not in CACHED_POSITIONALS:
        return False
    for name, functions in interventions.items():
        if name.startswith(_SAME_EITHER_WAY) or name.endswith(_CROSS_KEYS_VALUES):
            continue
        if not all(is_row_local(fn) for fn in functions):
            return False
    return True


def start_decoding(model: Transformer, src_ids: Tensor | None, *, incremental: bool = True) -> Decoding:
    """The way to decode `src_ids` under the interventions active now: a key/value cache where it can
    honour them (and `incremental`), else a full rerun of the prefix at every step."""
    if incremental and cache_honours(model, active_interventions()):
        return KeyValueCache(model, src_ids)
    return FullRecompute(model, src_ids)
