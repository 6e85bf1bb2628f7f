"""The whole Transformer: embeddings, encoder, decoder, generator — built from one config."""

from __future__ import annotations

from torch import Tensor, nn

from transformer.config import TransformerConfig
from transformer.hooks import HookPoint, name_hook_points
from transformer.layers import Decoder, Encoder
from transformer.masks import cross_mask, decoder_self_mask, padding_mask
from transformer.positional import Embeddings, PositionalEncoding


class Generator(nn.Module):
    """The final linear layer: decoder output → logits over the target vocabulary."""

    def __init__(self, d_model: int, vocab_size: int) -> None:
        super().__init__()
        self.proj = nn.Linear(d_model, vocab_size)
        self.hook_logits = HookPoint()  # (B, T, vocab)

    def forward(self, x: Tensor) -> Tensor:
        return self.hook_logits(self.proj(x))


class Transformer(nn.Module):
    """Encoder-decoder (the paper) or decoder-only, according to `config.architecture`.

    After construction every HookPoint knows its dotted name (`hook_names`), and the model is
    never changed by a forward pass: the app shares one instance between all sessions.
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        c = config
        self.config = config
        if c.is_encoder_decoder:
            self.src_embed = Embeddings(c.src_vocab_size, c.d_model)
            self.src_pos = PositionalEncoding(c.positional, c.max_len, c.d_model, c.dropout)
            self.encoder = Encoder(c)
        self.tgt_embed = Embeddings(c.tgt_vocab_size, c.d_model)
        self.tgt_pos = PositionalEncoding(c.positional, c.max_len, c.d_model, c.dropout)
        self.decoder = Decoder(c)
        self.generator = Generator(c.d_model, c.tgt_vocab_size)
        self._init_weights()
        if c.share_embeddings:  # tie after init, so all three names refer to one initialized matrix
            if c.is_encoder_decoder:
                self.tgt_embed.lut.weight = self.src_embed.lut.weight
            self.generator.proj.weight = self.tgt_embed.lut.weight
        self.hook_names = name_hook_points(self)

    def _init_weights(self) -> None:
        # Glorot / fan_avg uniform, as the Annotated Transformer does; biases stay at their defaults.
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def encode(self, src_ids: Tensor) -> Tensor:
        """(B, Ts) source ids → memory (B, Ts, d_model)."""
        x = self.src_pos(self.src_embed(src_ids))
        return self.encoder(x, padding_mask(src_ids, self.config.pad_id))

    def decode(self, tgt_ids: Tensor, memory: Tensor | None = None, src_ids: Tensor | None = None) -> Tensor:
        """(B, Tt) target ids (shifted right, starting with <bos>) → decoder output (B, Tt, d_model)."""
        pad = self.config.pad_id
        x = self.tgt_pos(self.tgt_embed(tgt_ids))
        cross_allowed = None if src_ids is None else cross_mask(src_ids, pad, tgt_ids.shape[1])
        return self.decoder(x, decoder_self_mask(tgt_ids, pad), memory, cross_allowed)

    def forward(self, src_ids: Tensor | None, tgt_ids: Tensor) -> Tensor:
        """Teacher-forced forward pass.

        Args:
            src_ids: (B, Ts) source ids, or None for a decoder-only model.
            tgt_ids: (B, Tt) decoder input ids.
        Returns:
            logits (B, Tt, tgt_vocab_size).
        """
        if self.config.is_encoder_decoder:
            if src_ids is None:
                raise ValueError("an encoder-decoder model needs source ids")
            return self.generator(self.decode(tgt_ids, self.encode(src_ids), src_ids))
        return self.generator(self.decode(tgt_ids))

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())
