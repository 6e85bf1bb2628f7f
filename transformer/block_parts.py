"""Which module fills each place of a layer, by the config: the paper's parts, or today's decoders' (Llama, Qwen).

    self-attention   MultiHeadAttention (paper §3.2)  or GroupedQueryAttention (RoPE, KV groups, q/k norms)
    feed-forward     PositionwiseFeedForward (§3.3)   or SwiGLUFeedForward
    normalization    LayerNorm (Ba et al.)            or RMSNorm

`transformer.layers` builds its layers from these, so a layer's code is the same whichever parts it holds.
"""

from __future__ import annotations

from torch import nn

from transformer.attention import MultiHeadAttention
from transformer.config import TransformerConfig
from transformer.feedforward import PositionwiseFeedForward
from transformer.grouped_query_attention import GroupedQueryAttention
from transformer.layernorm import LayerNorm
from transformer.rmsnorm import RMSNorm
from transformer.swiglu import SwiGLUFeedForward


def self_attention(config: TransformerConfig) -> MultiHeadAttention:
    """A layer's self-attention: the paper's, or grouped-query attention where the config asks for its parts."""
    c = config
    if not c.has_modern_attention:
        return MultiHeadAttention(c.d_model, c.n_heads, c.dropout)
    return GroupedQueryAttention(
        c.d_model,
        c.n_heads,
        c.kv_heads,
        c.d_k,
        c.rope_theta if c.positional == "rotary" else None,
        qkv_bias=c.qkv_bias,
        out_bias=c.out_bias,
        qk_norm_eps=c.norm_eps if c.qk_norm else None,
        dropout=c.dropout,
    )


def feed_forward(config: TransformerConfig) -> nn.Module:
    c = config
    if c.feed_forward == "swiglu":
        return SwiGLUFeedForward(c.d_model, c.d_ff, c.dropout, c.ff_bias)
    return PositionwiseFeedForward(c.d_model, c.d_ff, c.dropout, c.activation)


def norm(kind: str, d_model: int, eps: float) -> nn.Module:
    """A LayerNorm ("layernorm") or an RMSNorm ("rmsnorm") over d_model features."""
    return RMSNorm(d_model, eps) if kind == "rmsnorm" else LayerNorm(d_model, eps)
