"""BERT with its masked-LM head (encoder-only, post-norm, learned positions, GELU) → the project's Transformer.

    embeddings.word_embeddings      → src_embed.lut (renumbered, `VocabMap`)
    embeddings.token_type_embeddings[0] → src_embed.token_type (the app reads one sentence: type 0)
    embeddings.position_embeddings  → src_pos.learned;  embeddings.LayerNorm → src_pos.norm
    encoder.layer.i.attention       → encoder.layers.i.self_attn (+ sublayer.0.norm: post-norm)
    intermediate, output            → feed_forward.w_1, w_2 (+ sublayer.1.norm)
    cls.predictions.transform       → generator.transform;  cls.predictions.decoder → generator.proj (tied)

Reading order is BERT's: [CLS] text [SEP], with [CLS] at the project's <bos> and [SEP] at <eos>.
"""

from __future__ import annotations

from typing import Any

from hook_names import attn_module, layer_module
from transformer.config import TransformerConfig
from transformer.hf.parts import (
    State,
    activation,
    attention,
    feed_forward,
    layer_norm,
    linear,
    require,
    same_matrix,
    sublayer_norm,
)
from transformer.hf.vocab import VocabMap

MODEL_CLASS = "BertForMaskedLM"


def vocab_map(hf_config: Any, hf_tokenizer: Any) -> VocabMap:
    t = hf_tokenizer
    return VocabMap(hf_config.vocab_size, t.pad_token_id, t.cls_token_id, t.sep_token_id, t.unk_token_id)


def config(hf_config: Any, vocab: VocabMap, tied: bool) -> TransformerConfig:
    c = hf_config
    kind = getattr(c, "position_embedding_type", "absolute")
    require(kind == "absolute", f"BERT with position_embedding_type={kind!r} is not converted (only 'absolute')")
    require(not getattr(c, "is_decoder", False), "BERT configured as a decoder is not converted")
    return TransformerConfig(
        architecture="encoder-only",
        src_vocab_size=len(vocab),
        tgt_vocab_size=len(vocab),
        n_layers=c.num_hidden_layers,
        d_model=c.hidden_size,
        n_heads=c.num_attention_heads,
        d_ff=c.intermediate_size,
        dropout=0.0,
        max_len=c.max_position_embeddings,
        norm_position="post",
        positional="learned",
        share_embeddings=tied,
        activation=activation(c.hidden_act),  # type: ignore[arg-type]
        norm_eps=c.layer_norm_eps,
        scale_embeddings=False,
        token_type=True,
        embed_norm=True,
        output_transform=True,
    )


def is_tied(hf_model: Any) -> bool:
    return same_matrix(hf_model.bert.embeddings.word_embeddings.weight, hf_model.cls.predictions.decoder.weight)


def state(hf_model: Any, cfg: TransformerConfig, vocab: VocabMap) -> State:
    emb, head = hf_model.bert.embeddings, hf_model.cls.predictions
    lut, proj = vocab.gather_each(emb.word_embeddings.weight.detach(), head.decoder.weight.detach())
    out: State = {
        "src_embed.lut.weight": lut,
        "src_embed.token_type": emb.token_type_embeddings.weight.detach()[0],
        "src_pos.learned": emb.position_embeddings.weight.detach(),
        **layer_norm("src_pos.norm", emb.LayerNorm),
        **linear("generator.transform.dense", head.transform.dense),
        **layer_norm("generator.transform.norm", head.transform.LayerNorm),
        "generator.proj.weight": proj,
        "generator.proj.bias": vocab.output_bias(
            head.decoder.bias.detach() if head.decoder.bias is not None else head.bias.detach()
        ),
    }
    for i, layer in enumerate(hf_model.bert.encoder.layer):
        self_attn = layer.attention.self
        out |= attention(attn_module("encoder", i), self_attn.query, self_attn.key, self_attn.value, layer.attention.output.dense)
        out |= feed_forward(layer_module("encoder", i, "feed_forward"), layer.intermediate.dense, layer.output.dense)
        out |= sublayer_norm("encoder", i, 0, layer.attention.output.LayerNorm)
        out |= sublayer_norm("encoder", i, 1, layer.output.LayerNorm)
    return out
