"""Llama, Qwen2 and Qwen3 (decoder-only, pre-RMSNorm, rotary positions, grouped-query attention, SwiGLU) →
the project's Transformer.

embed_tokens                       → tgt_embed.lut (renumbered, `VocabMap`); no position table (`positional="rotary"`)
layers.i.input_layernorm           → decoder.layers.i.sublayer.0.norm (RMSNorm)
layers.i.self_attn.q/k/v/o_proj    → self_attn.w_q, w_k, w_v, w_o (GroupedQueryAttention; biases where the family has them)
layers.i.self_attn.q_norm, k_norm  → self_attn.q_norm, k_norm (Qwen3)
layers.i.post_attention_layernorm  → decoder.layers.i.sublayer.1.norm
layers.i.mlp.gate/up/down_proj     → feed_forward.w_1, w_3, w_2 (SwiGLU)
norm                               → decoder.norm;  lm_head (tied to embed_tokens or not, no bias) → generator.proj

The three families differ in their biases (Llama: `attention_bias` for all four projections; Qwen2: W^Q, W^K, W^V
always, W^O never; Qwen3: `attention_bias`) and Qwen3's q/k norms. `check` reads config.json alone, before any
weight is read, and refuses what this conversion would not compute exactly: another rope type, sliding-window
attention, experts, a config over the project's limits, a folder without its tokenizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hook_names import attn_module, layer_module, norm_module
from transformer.config import MAX_LEN, TransformerConfig
from transformer.hf.errors import PretrainedRefused
from transformer.hf.parts import State, linear, same_matrix
from transformer.hf.vocab import VocabMap
from transformer.text.tokenizer import SPECIALS

TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json")
"""A folder's tokenizer: one of these must be there (the app never fetches a tokenizer from elsewhere)."""
EXPERT_KEYS = ("num_experts", "num_local_experts", "n_routed_experts")


def _get(c: Any, key: str, default: Any = None) -> Any:
    """A config value from config.json's dict or from a `transformers` config object."""
    value = c.get(key, default) if isinstance(c, dict) else getattr(c, key, default)
    return default if value is None else value


def refused(key: str, message: str, **details: Any) -> PretrainedRefused:
    """An "unsupported" refusal whose sentence in the UI's language is `modern.refused_<key>` (assets/i18n/*/modern.json)."""
    return PretrainedRefused("unsupported", message, what=message, catalog=f"modern.refused_{key}", **details)


def rope(c: Any) -> tuple[str, float]:
    """(rope type, theta) from either layout: `rope_parameters` (transformers 5) or `rope_theta` + `rope_scaling`."""
    params = _get(c, "rope_parameters", {}) or {}
    scaling = _get(c, "rope_scaling", {}) or {}
    kind = params.get("rope_type") or params.get("type") or scaling.get("rope_type") or scaling.get("type") or "default"
    theta = params.get("rope_theta", _get(c, "rope_theta", 10000.0))
    return str(kind), float(theta)


@dataclass(frozen=True)
class DecoderFamily:
    """One of the three families: its name, its `transformers` class, and which biases and norms it has."""

    name: str
    MODEL_CLASS: str
    qkv_bias_always: bool = False  # Qwen2: W^Q, W^K, W^V biased, W^O not, whatever attention_bias says
    qk_norm: bool = False  # Qwen3

    def check(self, folder: Path, c: dict[str, Any]) -> None:
        """Refuse, from config.json alone, what would not convert exactly (see the module docstring)."""
        experts = [k for k in EXPERT_KEYS if isinstance(c.get(k), int) and c[k] > 0]
        if experts:
            raise refused("experts", f"{folder}: a mixture-of-experts model ({experts[0]}={c[experts[0]]}) is not converted")
        kind, _ = rope(c)
        if kind != "default":
            why = f"{folder}: rope type {kind!r} is not converted (only the default rotary positions)"
            raise refused("rope_type", why, rope_type=kind)
        if float(_get(c, "partial_rotary_factor", 1.0)) != 1.0:
            raise refused("rope_type", f"{folder}: partial rotary positions are not converted", rope_type="partial")
        layer_types = _get(c, "layer_types", []) or []
        if _get(c, "use_sliding_window", False) or any(t != "full_attention" for t in layer_types):
            raise refused("sliding_window", f"{folder}: sliding-window attention is on; only full causal attention is converted")
        act = _get(c, "hidden_act", "silu")
        if act not in ("silu", "swish"):
            raise refused("activation", f"{folder}: hidden_act {act!r} is not converted (SwiGLU uses silu)", activation=act)
        if not any((folder / name).is_file() for name in TOKENIZER_FILES):
            why = f"{folder}: no tokenizer ({', '.join(TOKENIZER_FILES)}); the app reads the folder's own"
            raise refused("no_tokenizer", why, folder=folder.name)
        try:
            self.config(c, None, bool(_get(c, "tie_word_embeddings", False)))
        except (ValueError, TypeError) as err:
            sizes = {k: c.get(key) for k, key in (("layers", "num_hidden_layers"), ("heads", "num_attention_heads"))}
            sizes |= {"d_model": c.get("hidden_size"), "vocab": c.get("vocab_size")}
            raise refused("limits", f"{folder}: {err}", **sizes) from None

    def vocab_map(self, hf_config: Any, hf_tokenizer: Any) -> VocabMap:
        """Start at the config's bos token (else the end token), stop at its (first) end token."""
        eos = _get(hf_config, "eos_token_id", None)
        eos = eos[0] if isinstance(eos, list) else eos
        if eos is None:
            eos = hf_tokenizer.eos_token_id
        bos = _get(hf_config, "bos_token_id", None)
        bos = eos if bos is None else bos
        return VocabMap(_get(hf_config, "vocab_size"), hf_tokenizer.pad_token_id, bos, eos, hf_tokenizer.unk_token_id)

    def config(self, hf_config: Any, vocab: VocabMap | None, tied: bool) -> TransformerConfig:
        c = hf_config
        _, theta = rope(c)
        size = len(vocab) if vocab is not None else len(SPECIALS) + int(_get(c, "vocab_size"))
        heads = int(_get(c, "num_attention_heads"))
        d_model = int(_get(c, "hidden_size"))
        attention_bias = bool(_get(c, "attention_bias", False))
        return TransformerConfig(
            architecture="decoder-only",
            src_vocab_size=size,
            tgt_vocab_size=size,
            n_layers=int(_get(c, "num_hidden_layers")),
            d_model=d_model,
            n_heads=heads,
            d_ff=int(_get(c, "intermediate_size")),
            dropout=0.0,
            # rotary positions have no table: the app's own limit on a text's length, not the checkpoint's
            max_len=min(int(_get(c, "max_position_embeddings", MAX_LEN)), MAX_LEN),
            norm_position="pre",
            positional="rotary",
            share_embeddings=tied,
            norm_eps=float(_get(c, "rms_norm_eps", 1e-6)),
            scale_embeddings=False,
            rope_theta=theta,
            n_kv_heads=int(_get(c, "num_key_value_heads", heads)),
            head_dim=int(_get(c, "head_dim", d_model // heads)),
            norm="rmsnorm",
            feed_forward="swiglu",
            qkv_bias=attention_bias or self.qkv_bias_always,
            out_bias=attention_bias and not self.qkv_bias_always,
            ff_bias=bool(_get(c, "mlp_bias", False)),
            qk_norm=self.qk_norm,
        )

    def is_tied(self, hf_model: Any) -> bool:
        return same_matrix(hf_model.model.embed_tokens.weight, hf_model.lm_head.weight)

    def state(self, hf_model: Any, cfg: TransformerConfig, vocab: VocabMap) -> State:
        body = hf_model.model
        lut, proj = vocab.gather_each(body.embed_tokens.weight.detach(), hf_model.lm_head.weight.detach())
        out: State = {
            "tgt_embed.lut.weight": lut,
            "decoder.norm.gain": body.norm.weight.detach(),
            "generator.proj.weight": proj,
            "generator.proj.bias": vocab.output_bias(None),
        }
        for i, block in enumerate(body.layers):
            attn, a = attn_module("decoder", i), block.self_attn
            for ours, theirs in (("w_q", a.q_proj), ("w_k", a.k_proj), ("w_v", a.v_proj), ("w_o", a.o_proj)):
                out |= linear(f"{attn}.{ours}", theirs)
            if cfg.qk_norm:
                out[f"{attn}.q_norm.gain"] = a.q_norm.weight.detach()
                out[f"{attn}.k_norm.gain"] = a.k_norm.weight.detach()
            ff, mlp = layer_module("decoder", i, "feed_forward"), block.mlp
            for ours, theirs in (("w_1", mlp.gate_proj), ("w_3", mlp.up_proj), ("w_2", mlp.down_proj)):
                out |= linear(f"{ff}.{ours}", theirs)
            out[f"{norm_module('decoder', i, 0)}.gain"] = block.input_layernorm.weight.detach()
            out[f"{norm_module('decoder', i, 1)}.gain"] = block.post_attention_layernorm.weight.detach()
        return out


LLAMA = DecoderFamily("Llama", "LlamaForCausalLM")
QWEN2 = DecoderFamily("Qwen2", "Qwen2ForCausalLM", qkv_bias_always=True)
QWEN3 = DecoderFamily("Qwen3", "Qwen3ForCausalLM", qk_norm=True)
