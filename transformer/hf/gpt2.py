"""GPT-2 (decoder-only, pre-norm, learned positions, GELU tanh, tied output) → the project's Transformer.

wte, wpe           → tgt_embed.lut (renumbered, `VocabMap`), tgt_pos.learned
h.i.ln_1, ln_2     → decoder.layers.i.sublayer.0.norm, sublayer.1.norm   (pre-norm)
h.i.attn.c_attn    → w_q, w_k, w_v (one Conv1D of width 3·d split in three, transposed)
h.i.attn.c_proj    → w_o;  h.i.mlp.c_fc, c_proj → feed_forward.w_1, w_2
ln_f               → decoder.norm;  lm_head (tied to wte, no bias) → generator.proj
"""

from __future__ import annotations

from typing import Any

from hook_names import attn_module, layer_module
from transformer.config import TransformerConfig
from transformer.hf.parts import State, activation, conv1d, layer_norm, require, same_matrix, sublayer_norm
from transformer.hf.vocab import VocabMap

MODEL_CLASS = "GPT2LMHeadModel"


def vocab_map(hf_config: Any, hf_tokenizer: Any) -> VocabMap:
    """GPT-2 reads `<|endoftext|>` as its start, stops at it, and has no padding token of its own."""
    eos = hf_config.eos_token_id
    bos = hf_config.bos_token_id if hf_config.bos_token_id is not None else eos
    return VocabMap(hf_config.vocab_size, hf_tokenizer.pad_token_id, bos, eos, hf_tokenizer.unk_token_id)


def config(hf_config: Any, vocab: VocabMap, tied: bool) -> TransformerConfig:
    c = hf_config
    require(c.scale_attn_weights, "GPT-2 without scaled attention (scale_attn_weights=false) is not converted")
    require(not c.scale_attn_by_inverse_layer_idx, "GPT-2 with scale_attn_by_inverse_layer_idx is not converted")
    return TransformerConfig(
        architecture="decoder-only",
        src_vocab_size=len(vocab),
        tgt_vocab_size=len(vocab),
        n_layers=c.n_layer,
        d_model=c.n_embd,
        n_heads=c.n_head,
        d_ff=c.n_inner or 4 * c.n_embd,
        dropout=0.0,
        max_len=c.n_positions,
        norm_position="pre",
        positional="learned",
        share_embeddings=tied,
        activation=activation(c.activation_function),  # type: ignore[arg-type]
        norm_eps=c.layer_norm_epsilon,
        scale_embeddings=False,
    )


def is_tied(hf_model: Any) -> bool:
    return same_matrix(hf_model.transformer.wte.weight, hf_model.lm_head.weight)


def state(hf_model: Any, cfg: TransformerConfig, vocab: VocabMap) -> State:
    body, d = hf_model.transformer, cfg.d_model
    lut, proj = vocab.gather_each(body.wte.weight.detach(), hf_model.lm_head.weight.detach())
    out: State = {
        "tgt_embed.lut.weight": lut,
        "tgt_pos.learned": body.wpe.weight.detach(),
        **layer_norm("decoder.norm", body.ln_f),
        "generator.proj.weight": proj,
        "generator.proj.bias": vocab.output_bias(None),
    }
    for i, block in enumerate(body.h):
        attn = attn_module("decoder", i)
        w, b = block.attn.c_attn.weight, block.attn.c_attn.bias  # (d, 3d), (3d,)
        for j, name in enumerate(("w_q", "w_k", "w_v")):
            out |= conv1d(f"{attn}.{name}", w[:, j * d : (j + 1) * d], b[j * d : (j + 1) * d])
        out |= conv1d(f"{attn}.w_o", block.attn.c_proj.weight, block.attn.c_proj.bias)
        ff = layer_module("decoder", i, "feed_forward")
        out |= conv1d(f"{ff}.w_1", block.mlp.c_fc.weight, block.mlp.c_fc.bias)
        out |= conv1d(f"{ff}.w_2", block.mlp.c_proj.weight, block.mlp.c_proj.bias)
        out |= sublayer_norm("decoder", i, 0, block.ln_1) | sublayer_norm("decoder", i, 1, block.ln_2)
    return out
