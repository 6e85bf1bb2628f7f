"""Residual sublayers and the encoder / decoder stacks (paper §3.1, Figure 1)."""

from __future__ import annotations

from collections.abc import Callable

from torch import Tensor, nn

from transformer.attention import MultiHeadAttention
from transformer.block_parts import feed_forward, norm, self_attention
from transformer.config import TransformerConfig
from transformer.dropout import Dropout
from transformer.hooks import HookPoint


class SublayerConnection(nn.Module):
    """A residual connection around one sublayer, with LayerNorm after (paper) or before it.

    post (paper):  LayerNorm(x + Dropout(Sublayer(x)))
    pre:           x + Dropout(Sublayer(LayerNorm(x)))   — trains without warm-up more easily,
                   and needs a final LayerNorm after the stack.
    """

    def __init__(self, d_model: int, dropout: float, norm_position: str, eps: float = 1e-5, kind: str = "layernorm") -> None:
        super().__init__()
        self.norm = norm(kind, d_model, eps)  # LayerNorm, or RMSNorm (`config.norm`)
        self.norm_position = norm_position
        self.dropout = Dropout(dropout)
        self.hook_sublayer_out = HookPoint()  # (B, T, d_model): what the sublayer adds
        self.hook_resid = HookPoint()  # (B, T, d_model): the residual stream after this sublayer

    def forward(self, x: Tensor, sublayer: Callable[[Tensor], Tensor]) -> Tensor:
        if self.norm_position == "pre":
            return self.hook_resid(x + self.hook_sublayer_out(self.dropout(sublayer(self.norm(x)))))
        return self.hook_resid(self.norm(x + self.hook_sublayer_out(self.dropout(sublayer(x)))))


class EncoderLayer(nn.Module):
    """Self-attention, then feed-forward, each in a SublayerConnection."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        c = config
        self.self_attn = MultiHeadAttention(c.d_model, c.n_heads, c.dropout)
        self.feed_forward = feed_forward(c)
        self.sublayer = nn.ModuleList(
            SublayerConnection(c.d_model, c.dropout, c.norm_position, c.norm_eps, c.norm) for _ in range(2)
        )

    def forward(self, x: Tensor, src_allowed: Tensor) -> Tensor:
        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, src_allowed))
        return self.sublayer[1](x, self.feed_forward)


class DecoderLayer(nn.Module):
    """Masked self-attention, encoder-decoder (cross) attention, then feed-forward.

    A decoder-only model's layers have no cross-attention (`cross_attn` is None).
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        c = config
        self.self_attn = self_attention(c)  # the paper's, or grouped-query attention with rotary positions
        self.cross_attn = MultiHeadAttention(c.d_model, c.n_heads, c.dropout) if c.is_encoder_decoder else None
        self.feed_forward = feed_forward(c)  # the paper's, or SwiGLU
        n_sublayers = 3 if c.is_encoder_decoder else 2
        self.sublayer = nn.ModuleList(
            SublayerConnection(c.d_model, c.dropout, c.norm_position, c.norm_eps, c.norm) for _ in range(n_sublayers)
        )

    def forward(
        self,
        x: Tensor,
        tgt_allowed: Tensor,
        memory: Tensor | None,
        cross_allowed: Tensor | None,
    ) -> Tensor:
        """x: (B, Tt, d_model); memory: encoder output (B, Ts, d_model) or None for decoder-only."""
        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, tgt_allowed))
        if self.cross_attn is not None:
            assert memory is not None, "an encoder-decoder layer needs the encoder's output"
            x = self.sublayer[1](x, lambda x: self.cross_attn(x, memory, memory, cross_allowed))
        return self.sublayer[-1](x, self.feed_forward)


class Encoder(nn.Module):
    """N encoder layers; pre-norm stacks end with a LayerNorm (post-norm outputs are normalized already)."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(config) for _ in range(config.n_layers))
        self.norm = norm(config.norm, config.d_model, config.norm_eps) if config.norm_position == "pre" else None

    def forward(self, x: Tensor, src_allowed: Tensor) -> Tensor:
        for layer in self.layers:
            x = layer(x, src_allowed)
        return self.norm(x) if self.norm is not None else x


class Decoder(nn.Module):
    """N decoder layers; pre-norm stacks end with a LayerNorm."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.n_layers))
        self.norm = norm(config.norm, config.d_model, config.norm_eps) if config.norm_position == "pre" else None

    def forward(
        self,
        x: Tensor,
        tgt_allowed: Tensor,
        memory: Tensor | None = None,
        cross_allowed: Tensor | None = None,
    ) -> Tensor:
        for layer in self.layers:
            x = layer(x, tgt_allowed, memory, cross_allowed)
        return self.norm(x) if self.norm is not None else x
