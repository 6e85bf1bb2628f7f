"""Marian (the opus-mt translators: encoder-decoder, post-norm, sinusoids sines-then-cosines) → the project's Transformer.

The paper's own architecture at real scale, so the mapping is one to one:

    shared (encoder, decoder, lm_head)  → src_embed.lut, tgt_embed.lut, generator.proj (renumbered)
    final_logits_bias                   → generator.proj.bias
    embed_positions (fixed sinusoids)   → positional="sinusoidal-split" (computed, not read)
    layers.i.self_attn, encoder_attn    → self_attn, cross_attn (q/k/v/out_proj → w_q/w_k/w_v/w_o)
    self_attn_layer_norm, encoder_attn_layer_norm, final_layer_norm → sublayer.0/1/2.norm (post-norm)
    fc1, fc2                            → feed_forward.w_1, w_2

The decoder starts from `decoder_start_token_id` (Marian's `<pad>`), which becomes the project's <bos>.
"""

from __future__ import annotations

from typing import Any

from hook_names import attn_module, layer_module
from transformer.config import TransformerConfig
from transformer.hf.parts import State, activation, attention, feed_forward, require, same_matrix, sublayer_norm
from transformer.hf.vocab import VocabMap

MODEL_CLASS = "MarianMTModel"


def vocab_map(hf_config: Any, hf_tokenizer: Any) -> VocabMap:
    c = hf_config
    return VocabMap(c.vocab_size, c.pad_token_id, c.decoder_start_token_id, c.eos_token_id, hf_tokenizer.unk_token_id)


def config(hf_config: Any, vocab: VocabMap, tied: bool) -> TransformerConfig:
    c = hf_config
    pairs = ("layers", "attention_heads", "ffn_dim")  # one N, h and d_ff for both stacks
    for enc, dec in ((f"encoder_{p}", f"decoder_{p}") for p in pairs):
        require(getattr(c, enc) == getattr(c, dec), f"Marian with {enc} != {dec} is not converted")
    decoder_vocab = getattr(c, "decoder_vocab_size", None)
    require(decoder_vocab in (None, c.vocab_size), "Marian with a separate decoder vocabulary is not converted")
    shared = getattr(c, "share_encoder_decoder_embeddings", True)
    require(shared, "Marian with separate encoder and decoder embeddings is not converted")
    return TransformerConfig(
        architecture="encoder-decoder",
        src_vocab_size=len(vocab),
        tgt_vocab_size=len(vocab),
        n_layers=c.encoder_layers,
        d_model=c.d_model,
        n_heads=c.encoder_attention_heads,
        d_ff=c.encoder_ffn_dim,
        dropout=0.0,
        max_len=c.max_position_embeddings,
        norm_position="post",
        positional="sinusoidal-split",
        share_embeddings=tied,
        activation=activation(c.activation_function),  # type: ignore[arg-type]
        scale_embeddings=bool(c.scale_embedding),
    )


def is_tied(hf_model: Any) -> bool:
    m = hf_model.model
    return same_matrix(m.encoder.embed_tokens.weight, m.decoder.embed_tokens.weight, hf_model.lm_head.weight)


def _self_and_feed_forward(stack: str, i: int, layer: Any, ff_sublayer: int) -> State:
    a = layer.self_attn
    return {
        **attention(attn_module("encoder" if stack == "encoder" else "decoder", i), a.q_proj, a.k_proj, a.v_proj, a.out_proj),
        **feed_forward(layer_module(stack, i, "feed_forward"), layer.fc1, layer.fc2),
        **sublayer_norm(stack, i, 0, layer.self_attn_layer_norm),
        **sublayer_norm(stack, i, ff_sublayer, layer.final_layer_norm),
    }


def state(hf_model: Any, cfg: TransformerConfig, vocab: VocabMap) -> State:
    m = hf_model.model
    src, tgt, proj = vocab.gather_each(
        m.encoder.embed_tokens.weight.detach(), m.decoder.embed_tokens.weight.detach(), hf_model.lm_head.weight.detach()
    )
    out: State = {
        "src_embed.lut.weight": src,
        "tgt_embed.lut.weight": tgt,
        "generator.proj.weight": proj,
        "generator.proj.bias": vocab.output_bias(hf_model.final_logits_bias.detach()[0]),
    }
    for i, layer in enumerate(m.encoder.layers):
        out |= _self_and_feed_forward("encoder", i, layer, 1)
    for i, layer in enumerate(m.decoder.layers):
        out |= _self_and_feed_forward("decoder", i, layer, 2)
        a = layer.encoder_attn
        out |= attention(attn_module("cross", i), a.q_proj, a.k_proj, a.v_proj, a.out_proj)
        out |= sublayer_norm("decoder", i, 1, layer.encoder_attn_layer_norm)
    return out
