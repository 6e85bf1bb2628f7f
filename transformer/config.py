"""The model's hyper-parameters: one frozen, validated dataclass.

Every variant a teacher may want to compare (post-norm vs pre-norm, sinusoidal vs learned
positions, encoder-decoder vs decoder-only) is a field here, so two models differ only by config.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Architecture = Literal["encoder-decoder", "decoder-only", "encoder-only"]
NormPosition = Literal["post", "pre"]
# "sinusoidal-split": the paper's frequencies with every sine first and every cosine after (Marian's layout)
# "rotary": nothing is added to the embeddings; each attention rotates its queries and keys (`transformer.rotary`)
Positional = Literal["sinusoidal", "sinusoidal-split", "learned", "none", "rotary"]
Norm = Literal["layernorm", "rmsnorm"]
FeedForward = Literal["mlp", "swiglu"]
Activation = Literal["relu", "gelu", "gelu_new", "silu"]

# Documented limits (README, "Limits"). They are checked before any tensor is allocated, so a hostile
# or mistyped config fails in microseconds with a message instead of after minutes and gigabytes in
# the allocator. Each is far above what the app can show usefully (the paper's big model fits).
MAX_LAYERS = 24  # N per stack; the paper uses 6
MAX_D_MODEL = 4096  # the paper's big model uses 1024
MAX_HEADS = 64
MAX_D_FF = 16384  # the paper's big model uses 4096
MAX_LEN = 4096  # positions; the app shows T x T attention maps, far smaller in practice
MAX_VOCAB = 262_144
# Parameters plus positional tables, in float32: 2 GiB, so that a Qwen2.5-0.5B-sized folder (494 M parameters,
# 1.84 GiB in float32) converts, within a 24 GB laptop's means (benchmarks/modern_scale.py measures its server peak).
MAX_MODEL_BYTES = 2 << 30
FLOAT32_BYTES = 4
_LIMITS: dict[str, int] = {
    "src_vocab_size": MAX_VOCAB,
    "tgt_vocab_size": MAX_VOCAB,
    "n_layers": MAX_LAYERS,
    "d_model": MAX_D_MODEL,
    "n_heads": MAX_HEADS,
    "d_ff": MAX_D_FF,
    "max_len": MAX_LEN,
}

_CHOICES: dict[str, tuple[str, ...]] = {
    "architecture": ("encoder-decoder", "decoder-only", "encoder-only"),
    "norm_position": ("post", "pre"),
    "positional": ("sinusoidal", "sinusoidal-split", "learned", "none", "rotary"),
    "activation": ("relu", "gelu", "gelu_new", "silu"),
    "norm": ("layernorm", "rmsnorm"),
    "feed_forward": ("mlp", "swiglu"),
}
_FLAGS = (
    "share_embeddings",
    "scale_embeddings",
    "token_type",
    "embed_norm",
    "output_transform",
    "qkv_bias",
    "out_bias",
    "ff_bias",
    "qk_norm",
)


@dataclass(frozen=True)
class TransformerConfig:
    """Sizes and variants of a Transformer ("Attention Is All You Need", Table 3 names).

    The defaults are a small model that trains in minutes on a laptop CPU; the paper's base model
    is `TransformerConfig.base()`.
    """

    architecture: Architecture = "encoder-decoder"
    src_vocab_size: int = 64  # ignored by decoder-only models, which read tgt_vocab_size
    tgt_vocab_size: int = 64
    n_layers: int = 2  # N: layers in the encoder and, separately, in the decoder
    d_model: int = 64  # width of every sublayer's output, so residual connections add up
    n_heads: int = 4  # h: d_k = d_v = d_model / h
    d_ff: int = 256  # inner width of the position-wise feed-forward network
    dropout: float = 0.1  # P_drop, applied to each sublayer output and to embeddings + PE
    max_len: int = 256  # longest sequence the positional encoding (and the app) accepts
    norm_position: NormPosition = "post"  # paper: LayerNorm(x + Sublayer(x)); pre: x + Sublayer(LayerNorm(x))
    positional: Positional = "sinusoidal"
    pad_id: int = 0  # token id whose keys every attention ignores
    # Paper §3.4: one weight matrix for both embeddings and the pre-softmax linear layer. Needs one
    # shared vocabulary; it lets a rare symbol's output row learn from every time it is read.
    share_embeddings: bool = False
    # What pretrained families need (transformer/hf/ converts GPT-2, BERT and Marian into this model);
    # the defaults are the paper's. ReLU in the paper; GELU (BERT), its tanh form (GPT-2), SiLU (Marian).
    activation: Activation = "relu"
    norm_eps: float = 1e-5  # every LayerNorm's epsilon (BERT: 1e-12)
    scale_embeddings: bool = True  # multiply token embeddings by sqrt(d_model) (paper, Marian); GPT-2 and BERT do not
    token_type: bool = False  # BERT: a learned "sentence A" vector added to every token embedding
    embed_norm: bool = False  # BERT: a LayerNorm over embeddings + positions, before the first layer
    output_transform: bool = False  # BERT's masked-LM head: Linear, activation, LayerNorm before the output linear
    # Today's decoders (Llama, Qwen2, Qwen3; `transformer/hf/llama.py`): decoder-only models only. The defaults are
    # the paper's, so a config that names none of these is the 2017 model.
    rope_theta: float = 10000.0  # positional="rotary": the base of the rotation frequencies (`transformer.rotary`)
    n_kv_heads: int = 0  # grouped-query attention: key/value heads, each read by n_heads / n_kv_heads query heads; 0 = n_heads
    head_dim: int = 0  # d_k when it is not d_model / n_heads (Qwen3); 0 = d_model / n_heads
    norm: Norm = "layernorm"  # "rmsnorm": x / RMS(x) · gain, no mean subtracted and no bias (`transformer.rmsnorm`)
    feed_forward: FeedForward = "mlp"  # "swiglu": (SiLU(x W_1) ⊙ x W_3) W_2 (`transformer.swiglu`)
    qkv_bias: bool = True  # biases of W^Q, W^K, W^V (Llama: none; Qwen2: these only)
    out_bias: bool = True  # bias of W^O
    ff_bias: bool = True  # biases of the feed-forward's linears (swiglu only may leave them out)
    qk_norm: bool = False  # Qwen3: an RMSNorm over each head's queries and keys, before the rotation

    def __post_init__(self) -> None:
        for field, choices in _CHOICES.items():
            value = getattr(self, field)
            if value not in choices:
                raise ValueError(f"{field}={value!r} is not supported; choose one of {', '.join(choices)}")
        for field in ("tgt_vocab_size", "n_layers", "d_model", "n_heads", "d_ff", "max_len"):
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"{field} must be a positive integer, got {value!r}")
        if self.has_encoder and (
            not isinstance(self.src_vocab_size, int) or isinstance(self.src_vocab_size, bool) or self.src_vocab_size <= 0
        ):
            raise ValueError(f"src_vocab_size must be a positive integer, got {self.src_vocab_size!r}")
        for field, limit in _LIMITS.items():
            if (field != "src_vocab_size" or self.has_encoder) and getattr(self, field) > limit:
                raise ValueError(f"{field}={getattr(self, field)} is above the limit of {limit} (see README, Limits)")
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model={self.d_model} must be divisible by n_heads={self.n_heads} "
                f"(each head gets d_model / n_heads dimensions); try n_heads in "
                f"{[h for h in range(1, min(self.d_model, 16) + 1) if self.d_model % h == 0]}"
            )
        # Type checks first: comparing a string (e.g. from `--config dropout=abc`) raises TypeError.
        if not isinstance(self.dropout, (int, float)) or isinstance(self.dropout, bool) or not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be a number in [0, 1), got {self.dropout!r}")
        if not isinstance(self.pad_id, int) or isinstance(self.pad_id, bool) or not 0 <= self.pad_id < min(self.vocab_sizes):
            raise ValueError(f"pad_id={self.pad_id} must be a valid token id (below every vocabulary size)")
        for flag in _FLAGS:
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} must be true or false, got {getattr(self, flag)!r}")
        if not isinstance(self.norm_eps, (int, float)) or isinstance(self.norm_eps, bool) or not 0.0 < self.norm_eps < 1.0:
            raise ValueError(f"norm_eps must be a number in (0, 1), got {self.norm_eps!r}")
        if self.is_encoder_only and self.src_vocab_size != self.tgt_vocab_size:
            raise ValueError(
                f"an encoder-only model predicts its own vocabulary: src_vocab_size={self.src_vocab_size} "
                f"must equal tgt_vocab_size={self.tgt_vocab_size}"
            )
        if self.share_embeddings and len(set(self.vocab_sizes)) != 1:
            raise ValueError(
                f"share_embeddings needs one vocabulary for source and target, but src_vocab_size="
                f"{self.src_vocab_size} and tgt_vocab_size={self.tgt_vocab_size}; set share_embeddings=false"
            )
        self._check_modern_parts()
        if self.estimated_bytes() > MAX_MODEL_BYTES:
            raise ValueError(
                f"this config needs about {self.estimated_bytes() / 2**20:,.0f} MiB for {self.estimated_parameters():,} "
                f"parameters, above the limit of {MAX_MODEL_BYTES / 2**20:,.0f} MiB (see README, Limits)"
            )

    def _check_modern_parts(self) -> None:
        """The fields of today's decoders: valid values, and only where the model has them (decoder-only)."""
        for field in ("n_kv_heads", "head_dim"):
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{field} must be a non-negative integer (0: the default), got {value!r}")
        if self.n_kv_heads > self.n_heads or self.n_heads % self.kv_heads:
            raise ValueError(
                f"n_kv_heads={self.n_kv_heads} must divide n_heads={self.n_heads}: each key/value head is read by "
                f"the same number of query heads"
            )
        if self.head_dim > MAX_D_MODEL:
            raise ValueError(f"head_dim={self.head_dim} is above the limit of {MAX_D_MODEL} (see README, Limits)")
        theta = self.rope_theta
        if not isinstance(theta, (int, float)) or isinstance(theta, bool) or not 1.0 < theta < 1e12:
            raise ValueError(f"rope_theta must be a number above 1, got {theta!r}")
        if self.positional == "rotary" and self.d_k % 2:
            raise ValueError(f"rotary positions turn pairs of dimensions: d_k={self.d_k} must be even")
        if self.has_modern_attention and self.architecture != "decoder-only":
            raise ValueError(
                "rotary positions, grouped-query attention, head_dim, q/k norms and biases left out are for "
                "decoder-only models (architecture=decoder-only)"
            )
        if not self.ff_bias and self.feed_forward != "swiglu":
            raise ValueError("ff_bias=false is for feed_forward=swiglu; the paper's feed-forward keeps its biases")

    @property
    def d_k(self) -> int:
        """Width of one head's queries, keys and values (the paper's d_k = d_v = d_model / h; Qwen3 sets its own)."""
        return self.head_dim or self.d_model // self.n_heads

    @property
    def kv_heads(self) -> int:
        """Key/value heads: n_heads (the paper), or fewer in grouped-query attention, each shared by a group."""
        return self.n_kv_heads or self.n_heads

    @property
    def has_modern_attention(self) -> bool:
        """Whether self-attention is `GroupedQueryAttention` (`transformer.grouped_query_attention`) rather than the
        paper's: rotary positions, fewer key/value heads, a head width of its own, q/k norms or biases left out."""
        return (
            self.positional == "rotary"
            or self.kv_heads != self.n_heads
            or self.d_k * self.n_heads != self.d_model
            or self.qk_norm
            or not self.qkv_bias
            or not self.out_bias
        )

    @property
    def is_encoder_decoder(self) -> bool:
        return self.architecture == "encoder-decoder"

    @property
    def is_encoder_only(self) -> bool:
        """BERT's shape: the encoder stack alone, its output read by the output layer (no decoder, no generation)."""
        return self.architecture == "encoder-only"

    @property
    def has_encoder(self) -> bool:
        return self.architecture != "decoder-only"

    @property
    def has_decoder(self) -> bool:
        return self.architecture != "encoder-only"

    @property
    def vocab_sizes(self) -> tuple[int, ...]:
        if self.is_encoder_decoder:
            return (self.src_vocab_size, self.tgt_vocab_size)
        return (self.src_vocab_size,) if self.is_encoder_only else (self.tgt_vocab_size,)

    def estimated_parameters(self) -> int:
        """The model's parameter count, computed from the sizes without building it.

        Equals `Transformer(config).num_parameters()` (a test pins it), so size limits can be
        checked before a single tensor is allocated.
        """
        d, f = self.d_model, self.d_ff
        q_width, kv_width = self.n_heads * self.d_k, self.kv_heads * self.d_k
        attention = d * (q_width + 2 * kv_width) + q_width * d  # W_Q, W_K, W_V, W_O
        attention += (q_width + 2 * kv_width) * self.qkv_bias + d * self.out_bias + 2 * self.d_k * self.qk_norm
        swiglu = 3 * d * f + (2 * f + d) * self.ff_bias  # W_1 (gate), W_3 (up), W_2 (down)
        feed_forward = swiglu if self.feed_forward == "swiglu" else d * f + f + f * d + d
        norm = d if self.norm == "rmsnorm" else 2 * d  # gain (and bias)
        cross = self.is_encoder_decoder
        encoder_layer = attention + feed_forward + 2 * norm
        decoder_layer = attention * (2 if cross else 1) + feed_forward + norm * (3 if cross else 2)
        stacks = 2 if cross else 1
        total = self.n_layers * (decoder_layer * self.has_decoder + encoder_layer * self.has_encoder)
        total += stacks * norm * (self.norm_position == "pre")  # the final LayerNorm of a pre-norm stack
        total += stacks * self.max_len * d * (self.positional == "learned")
        layer_norm = 2 * d  # BERT's embedding and output LayerNorms stay LayerNorms
        total += stacks * (d * self.token_type + layer_norm * self.embed_norm)
        total += (d * d + d + layer_norm) * self.output_transform
        if self.share_embeddings:  # one matrix for every embedding and the generator, plus its bias
            return total + self.tgt_vocab_size * d + self.tgt_vocab_size
        embeddings = sum(self.vocab_sizes) * d
        return total + embeddings + d * self.tgt_vocab_size + self.tgt_vocab_size

    def estimated_bytes(self) -> int:
        """float32 bytes of the parameters plus the sinusoid tables (buffers): the model's resident size."""
        sinusoid = self.positional in ("sinusoidal", "sinusoidal-split")
        tables = (2 if self.is_encoder_decoder else 1) * self.max_len * self.d_model * sinusoid
        return FLOAT32_BYTES * (self.estimated_parameters() + tables)

    @classmethod
    def base(cls, **overrides: Any) -> TransformerConfig:
        """The paper's base model: N=6, d_model=512, h=8, d_ff=2048, P_drop=0.1."""
        return cls(**{"n_layers": 6, "d_model": 512, "n_heads": 8, "d_ff": 2048, "max_len": 512, **overrides})

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TransformerConfig:
        """Build from JSON data, naming unknown keys instead of failing with a bare TypeError."""
        if not isinstance(data, dict):
            raise ValueError(f"a config must be a JSON object, got {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown config keys {unknown}; known keys are {sorted(known)}")
        return cls(**data)

    def replace(self, **changes: Any) -> TransformerConfig:
        return dataclasses.replace(self, **changes)


def config_overrides(pairs: Sequence[str]) -> dict[str, object]:
    """Command-line `--config KEY=VALUE` pairs → a dict: `["d_model=64", "norm_position=pre"]` →
    {"d_model": 64, "norm_position": "pre"} (values parsed as JSON where they are JSON, else text)."""
    out: dict[str, object] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep:
            raise ValueError(f"--config expects KEY=VALUE, got {pair!r}")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out
