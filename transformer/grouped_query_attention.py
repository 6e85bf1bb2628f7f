"""Grouped-query attention (Ainslie et al., 2023) with rotary positions: self-attention as Llama and Qwen have it.

The paper gives every head its own keys and values. Grouped-query attention keeps n_heads query heads but only
n_kv_heads key/value heads; query head h reads key/value head h // (n_heads / n_kv_heads), so each group of
consecutive query heads shares one. The key/value cache of a decoding run shrinks by the same factor.

Everything after the projections is the paper's (`MultiHeadAttention.forward`): this class only changes how the
queries, keys and values are made (`project_queries`, `project_keys_values`):

    q = RoPE(norm_q(x W^Q + b))                (B, H, Tq, d_k)
    k = RoPE(norm_k(x W^K + b)), v = x W^V + b  (B, H_kv, Tk, d_k), then each KV head repeated for its group

Shown per query head: `hook_k` and `hook_v` hold (B, H, Tk, d_k), a key/value head's tensor once for each query
head that reads it, so every page that reads head h's keys reads the keys head h used (`kv_group` says which heads
share them). The norms (Qwen3 only) and biases (Qwen2: W^Q, W^K, W^V only) are the config's.

Positions: a rotation needs each token's position. In a full pass the queries and keys are positions 0 .. T-1; in
key/value-cache decoding the new tokens start after the tokens the layer's store already holds. `forward` asks
the engine for that offset (`transformer.attention.first_position`, the seam's one question about positions) and
keeps it for this call only (a ContextVar: the model is shared by every session's thread, and a forward pass never
changes it).
"""

from __future__ import annotations

import contextvars

from torch import Tensor, nn

from transformer.attention import MultiHeadAttention, first_position
from transformer.rmsnorm import RMSNorm
from transformer.rotary import apply_rotary

_START: contextvars.ContextVar[int] = contextvars.ContextVar("rotary_start", default=0)
"""Position of the first token of the current call's queries and new keys (0 outside key/value-cache decoding)."""


def kv_group(head: int, n_heads: int, n_kv_heads: int) -> int:
    """The key/value head query head `head` reads (0-based): heads are grouped in order, n_heads / n_kv_heads each."""
    return head // (n_heads // n_kv_heads)


class GroupedQueryAttention(MultiHeadAttention):
    """n_heads query heads over n_kv_heads key/value heads, with rotary positions (`rope_theta`; None: none)."""

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        n_kv_heads: int,
        d_k: int,
        rope_theta: float | None,
        *,
        qkv_bias: bool = True,
        out_bias: bool = True,
        qk_norm_eps: float | None = None,
        dropout: float = 0.0,
    ) -> None:
        super().__init__(d_model, n_heads, dropout)
        self.d_k = d_k
        self.n_kv_heads = n_kv_heads
        self.rope_theta = rope_theta
        self.w_q = nn.Linear(d_model, n_heads * d_k, bias=qkv_bias)
        self.w_k = nn.Linear(d_model, n_kv_heads * d_k, bias=qkv_bias)
        self.w_v = nn.Linear(d_model, n_kv_heads * d_k, bias=qkv_bias)
        self.w_o = nn.Linear(n_heads * d_k, d_model, bias=out_bias)
        self.q_norm = RMSNorm(d_k, qk_norm_eps, hooks=False) if qk_norm_eps is not None else None
        self.k_norm = RMSNorm(d_k, qk_norm_eps, hooks=False) if qk_norm_eps is not None else None

    def _heads(self, x: Tensor, n: int) -> Tensor:
        b, t, _ = x.shape
        return x.view(b, t, n, self.d_k).transpose(1, 2)  # (B, n, T, d_k)

    def _positioned(self, x: Tensor, norm: RMSNorm | None) -> Tensor:
        """A head's queries or keys (B, n, T, d_k): normed (Qwen3), then turned to their positions."""
        if norm is not None:
            x = norm(x)
        return x if self.rope_theta is None else apply_rotary(x, _START.get(), self.rope_theta)

    def _per_query_head(self, x: Tensor) -> Tensor:
        """(B, H_kv, T, d_k) → (B, H, T, d_k): each key/value head once for every query head of its group."""
        groups = self.n_heads // self.n_kv_heads
        return x if groups == 1 else x.repeat_interleave(groups, dim=1)

    def project_queries(self, query: Tensor) -> Tensor:
        """(B, Tq, d_model) → (B, H, Tq, d_k) queries, turned to their positions."""
        return self.hook_q(self._positioned(self._heads(self.w_q(query), self.n_heads), self.q_norm))

    def project_keys_values(self, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """(B, Tk, d_model) each → (B, H, Tk, d_k) each: keys turned to their positions, each KV head per query head."""
        k = self._positioned(self._heads(self.w_k(key), self.n_kv_heads), self.k_norm)  # (B, H_kv, Tk, d_k)
        v = self._heads(self.w_v(value), self.n_kv_heads)  # (B, H_kv, Tk, d_k)
        return self.hook_k(self._per_query_head(k)), self.hook_v(self._per_query_head(v))

    def forward(self, query: Tensor, key: Tensor, value: Tensor, allowed: Tensor | None = None) -> Tensor:
        """`MultiHeadAttention.forward`, with the position of this call's first new token (what a key/value cache
        already holds, else 0) kept for `project_queries` and `project_keys_values`."""
        token = _START.set(first_position(self))
        try:
            return super().forward(query, key, value, allowed)
        finally:
            _START.reset(token)
