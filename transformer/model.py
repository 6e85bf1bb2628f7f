"""The whole Transformer: embeddings, encoder, decoder, generator — built from one config."""

from __future__ import annotations

from collections.abc import Mapping

from torch import Tensor, nn
from torch.overrides import TorchFunctionMode

from transformer.config import TransformerConfig
from transformer.feedforward import ACTIVATIONS
from transformer.hooks import HookPoint, name_hook_points
from transformer.layernorm import LayerNorm
from transformer.layers import Decoder, Encoder
from transformer.masks import cross_mask, decoder_self_mask, padding_mask
from transformer.positional import Embeddings, PositionalEncoding


class OutputTransform(nn.Module):
    """BERT's masked-LM head before its output linear: Linear(d, d), the activation, LayerNorm."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.dense = nn.Linear(config.d_model, config.d_model)
        self.activation = ACTIVATIONS[config.activation]
        self.norm = LayerNorm(config.d_model, config.norm_eps)

    def forward(self, x: Tensor) -> Tensor:
        return self.norm(self.activation(self.dense(x)))  # (B, T, d_model)


class Generator(nn.Module):
    """The final linear layer: the last stack's output → logits over the target vocabulary."""

    def __init__(self, d_model: int, vocab_size: int, transform: OutputTransform | None = None) -> None:
        super().__init__()
        self.transform = transform
        self.proj = nn.Linear(d_model, vocab_size)
        self.hook_logits = HookPoint()  # (B, T, vocab)

    def forward(self, x: Tensor) -> Tensor:
        if self.transform is not None:
            x = self.transform(x)
        return self.hook_logits(self.proj(x))


class SkipInit(TorchFunctionMode):
    """Within it, weight initialisation leaves its tensor as it is (for weights about to be replaced): the
    `torch.nn.init` functions that dispatch, and the in-place random fills the others end in (`xavier_uniform_`
    calls `tensor.uniform_` itself)."""

    RANDOM_FILLS = frozenset({"uniform_", "normal_"})

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if getattr(func, "__module__", None) == "torch.nn.init" or getattr(func, "__name__", "") in self.RANDOM_FILLS:
            return args[0] if args else kwargs["tensor"]
        return func(*args, **kwargs)


class Transformer(nn.Module):
    """Encoder-decoder (the paper), decoder-only or encoder-only, according to `config.architecture`.

    After construction every HookPoint knows its dotted name (`hook_names`), and the model is
    never changed by a forward pass: the app shares one instance between all sessions.
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        c = config
        self.config = config
        embed_norm = c.norm_eps if c.embed_norm else None
        if c.has_encoder:
            self.src_embed = Embeddings(c.src_vocab_size, c.d_model, c.scale_embeddings, c.token_type)
            self.src_pos = PositionalEncoding(c.positional, c.max_len, c.d_model, c.dropout, embed_norm)
            self.encoder = Encoder(c)
        if c.has_decoder:
            self.tgt_embed = Embeddings(c.tgt_vocab_size, c.d_model, c.scale_embeddings, c.token_type)
            self.tgt_pos = PositionalEncoding(c.positional, c.max_len, c.d_model, c.dropout, embed_norm)
            self.decoder = Decoder(c)
        self.generator = Generator(c.d_model, c.tgt_vocab_size, OutputTransform(c) if c.output_transform else None)
        self._init_weights()
        self.tie_embeddings()  # after init, so all three names refer to one initialized matrix
        self.hook_names = name_hook_points(self)

    @classmethod
    def unfilled(cls, config: TransformerConfig) -> Transformer:
        """A model of `config` built with `torch.nn.init` switched off (`SkipInit`), for `assign` to fill: no random
        initialisation to overwrite, and its storage, never written, costs no memory. (The meta device would do the
        same but imports torch._dynamo on its first initialiser: a second of cold start.)"""
        with SkipInit():
            return cls(config)

    def assign(self, state: Mapping[str, Tensor]) -> None:
        """Take `state`'s tensors themselves as the weights (`load_state_dict(assign=True)`): a checkpoint is held
        once while it loads (a GPT-2-sized one is 0.5 GB), not copied into a second set of weights."""
        self.load_state_dict(state, assign=True)
        self.tie_embeddings()

    def tie_embeddings(self) -> None:
        """With `share_embeddings`, make every embedding and the generator one Parameter (the first's).

        Called again after `load_state_dict(..., assign=True)`, which gives each name a Parameter of its own.
        """
        c = self.config
        if not c.share_embeddings:
            return
        first = self.src_embed if c.has_encoder else self.tgt_embed
        if c.is_encoder_decoder:
            self.tgt_embed.lut.weight = first.lut.weight
        self.generator.proj.weight = first.lut.weight

    def _init_weights(self) -> None:
        # Glorot / fan_avg uniform, as the Annotated Transformer does; biases stay at their defaults.
        # A learned position table keeps its own randn * 0.02: Xavier over a (max_len, d_model)
        # "matrix" would scale it by the table's length, which has nothing to do with fan-in.
        own_init = {id(m.learned) for m in self.modules() if isinstance(m, PositionalEncoding) and m.kind == "learned"}
        for p in self.parameters():
            if p.dim() > 1 and id(p) not in own_init:
                nn.init.xavier_uniform_(p)

    def encode(self, src_ids: Tensor) -> Tensor:
        """(B, Ts) source ids → memory (B, Ts, d_model)."""
        x = self.src_pos(self.src_embed(src_ids))
        return self.encoder(x, padding_mask(src_ids, self.config.pad_id))

    def decode(
        self,
        tgt_ids: Tensor,
        memory: Tensor | None = None,
        src_ids: Tensor | None = None,
        cross_allowed: Tensor | None = None,
    ) -> Tensor:
        """(B, Tt) target ids (shifted right, starting with <bos>) → decoder output (B, Tt, d_model).

        Args:
            memory: (B, Ts, d_model) encoder output; required by an encoder-decoder model.
            src_ids: (B, Ts) the source ids `memory` was encoded from: cross-attention must not
                read its padding. Pass these, or `cross_allowed` (B, 1, Tt, Ts) explicitly;
                without either, padded source positions would silently receive attention.
        """
        pad = self.config.pad_id
        if self.config.is_encoder_decoder:
            if memory is None:
                raise ValueError("an encoder-decoder model's decode needs memory (the encoder's output)")
            if src_ids is None and cross_allowed is None:
                raise ValueError("decode needs src_ids or cross_allowed, so cross-attention can ignore source padding")
        x = self.tgt_pos(self.tgt_embed(tgt_ids))
        if cross_allowed is None and src_ids is not None:
            cross_allowed = cross_mask(src_ids, pad, tgt_ids.shape[1])  # (B, 1, Tt, Ts)
        return self.decoder(x, decoder_self_mask(tgt_ids, pad), memory, cross_allowed)

    def forward(self, src_ids: Tensor | None, tgt_ids: Tensor | None = None) -> Tensor:
        """Teacher-forced forward pass.

        Args:
            src_ids: (B, Ts) source ids, or None for a decoder-only model.
            tgt_ids: (B, Tt) decoder input ids; None for an encoder-only model.
        Returns:
            logits (B, Tt, tgt_vocab_size); an encoder-only model's are (B, Ts, vocab), one per input position.
        """
        if self.config.is_encoder_only:
            if src_ids is None:
                raise ValueError("an encoder-only model needs source ids")
            return self.generator(self.encode(src_ids))
        if tgt_ids is None:
            raise ValueError("a model with a decoder needs decoder input ids")
        if self.config.is_encoder_decoder:
            if src_ids is None:
                raise ValueError("an encoder-decoder model needs source ids")
            return self.generator(self.decode(tgt_ids, self.encode(src_ids), src_ids))
        return self.generator(self.decode(tgt_ids))

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())
