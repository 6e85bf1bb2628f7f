"""The numbers the pages show about today's decoder parts (rotary positions, grouped-query attention, RMSNorm,
SwiGLU) on a converted Llama / Qwen model or the shipped `gpt-en-zh`: each computed from the model and the text.

- `rotary`: the rotation frequencies, and, on the reader's text, one head's score of two of its tokens as both move
  together along the positions (the same at every shift) and as the distance between them changes.
- `kv_groups`: which query heads share each key/value head.
- `rms_statistics`: each token's mean and root mean square before and after the first RMSNorm.
- `swiglu_statistics`: how much of the first SwiGLU's hidden units the gate lets through, on the text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from hook_names import hook_name, layer_module, norm_module
from transformer.grouped_query_attention import GroupedQueryAttention, kv_group
from transformer.hooks import capture
from transformer.rotary import apply_rotary, rotary_frequencies
from transformer.storage.checkpoint import ModelBundle
from transformer.text.prompt import text_rows

SHIFTS = 48  # positions the pair of tokens is moved along


def is_modern(bundle: ModelBundle) -> bool:
    """Whether the model has today's parts (its self-attention is grouped-query attention with rotary positions)."""
    return bundle.config.positional == "rotary"


@dataclass(frozen=True)
class RotaryView:
    theta: float
    d_k: int
    frequencies: np.ndarray  # (d_k/2,) radians per position, fastest first
    query_token: str
    key_token: str
    distance: int  # key position - query position (≤ 0: the key is earlier)
    shifts: np.ndarray  # (S,) how far both tokens were moved
    moved_scores: np.ndarray  # (S,) the score with both moved by each shift
    spread: float  # max - min of `moved_scores`: rounding only
    distances: np.ndarray  # (D,) other distances, query fixed at its own position
    distance_scores: np.ndarray  # (D,)


def _first_attention(bundle: ModelBundle) -> GroupedQueryAttention:
    attention = bundle.model.get_submodule(layer_module("decoder", 0, "self_attn"))
    assert isinstance(attention, GroupedQueryAttention)
    return attention


def rotary(bundle: ModelBundle, text: str) -> RotaryView | None:
    """Layer 1, head 1: the unturned query of the text's last token and key of its first, turned to positions
    (m + s, n + s) for shifts s, and to other distances. None for a text of fewer than two tokens."""
    config, model = bundle.config, bundle.model
    rows = text_rows(bundle, text)
    ids = torch.tensor([rows.prefix])  # (1, T): <bos>, the text and the prompt's suffix
    if ids.shape[1] < 3:
        return None
    attention = _first_attention(bundle)
    with torch.no_grad():
        x = bundle.model.decoder.layers[0].sublayer[0].norm(model.tgt_embed(ids))  # (1, T, d_model) what W^Q reads
        q = attention._heads(attention.w_q(x), attention.n_heads)[:, :1]  # (1, 1, T, d_k) head 1, unturned
        k = attention._heads(attention.w_k(x), attention.n_kv_heads)[:, :1]  # its key/value head
        if attention.q_norm is not None and attention.k_norm is not None:
            q, k = attention.q_norm(q), attention.k_norm(k)
    m, n = ids.shape[1] - 1, 1  # the last token asks, the first token of the text answers
    theta, d_k = config.rope_theta, config.d_k
    q_m, k_n = q[..., m : m + 1, :].double(), k[..., n : n + 1, :].double()  # (1, 1, 1, d_k)

    def score(qpos: int, kpos: int) -> float:
        return float((apply_rotary(q_m, qpos, theta) * apply_rotary(k_n, kpos, theta)).sum() / d_k**0.5)

    shifts = np.arange(0, min(SHIFTS, config.max_len - m - 1) + 1)
    moved = np.array([score(m + s, n + s) for s in shifts])
    distances = np.arange(-m, 1)
    by_distance = np.array([score(m, m + d) for d in distances])
    symbols = bundle.target_tokenizer.symbols(rows.prefix)
    return RotaryView(
        theta,
        d_k,
        rotary_frequencies(d_k, theta).numpy(),
        symbols[m],
        symbols[n],
        n - m,
        shifts,
        moved,
        float(moved.max() - moved.min()),
        distances,
        by_distance,
    )


def rope_frequencies(bundle: ModelBundle) -> np.ndarray:
    """θ_i of the model's heads: (d_k/2,) radians per position."""
    return rotary_frequencies(bundle.config.d_k, bundle.config.rope_theta).numpy()


def kv_groups(bundle: ModelBundle) -> list[tuple[int, list[int]]]:
    """(key/value head, the query heads that read it), numbered from 1 as pages show them."""
    c = bundle.config
    groups: dict[int, list[int]] = {}
    for head in range(c.n_heads):
        groups.setdefault(kv_group(head, c.n_heads, c.kv_heads) + 1, []).append(head + 1)
    return list(groups.items())


@dataclass(frozen=True)
class RmsStatistics:
    """Per token of the text, at the first RMSNorm (its gain left out): mean and RMS before and after."""

    mean_in: tuple[float, float]  # (min, max) over tokens
    rms_in: tuple[float, float]
    mean_out: tuple[float, float]
    rms_out: tuple[float, float]


def rms_statistics(bundle: ModelBundle, text: str) -> RmsStatistics:
    """RMSNorm divides each token by its root mean square and subtracts nothing: after it (gain left out) every
    token's RMS is 1 while its mean is whatever the direction of the vector gives."""
    prefix = norm_module("decoder", 0, 0)
    ids = torch.tensor([text_rows(bundle, text).prefix])  # (1, T)
    name_in = hook_name(prefix, "in")
    with torch.no_grad(), capture(bundle.model, [name_in]) as cache:
        bundle.model(None, ids)
    x = cache[name_in][0].double()  # (T, d_model)
    norm = bundle.model.get_submodule(prefix)
    y = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + norm.eps)  # (T, d_model) without the gain

    def extremes(values: torch.Tensor) -> tuple[float, float]:
        return float(values.min()), float(values.max())

    rms = lambda v: v.pow(2).mean(-1).sqrt()  # noqa: E731
    return RmsStatistics(extremes(x.mean(-1)), extremes(rms(x)), extremes(y.mean(-1)), extremes(rms(y)))


@dataclass(frozen=True)
class SwigluStatistics:
    d_ff: int
    passed: float  # share of hidden units whose gate |SiLU(x W_1)| is above 0.1 of its layer's largest
    negative: float  # share of gate values below 0 (SiLU lets small negatives through, ReLU none)


def swiglu_statistics(bundle: ModelBundle, text: str) -> SwigluStatistics:
    ids = torch.tensor([text_rows(bundle, text).prefix])  # (1, T)
    name = hook_name(layer_module("decoder", 0, "feed_forward"), "gate")
    with torch.no_grad(), capture(bundle.model, [name]) as cache:
        bundle.model(None, ids)
    gate = cache[name][0]  # (T, d_ff)
    largest = float(gate.abs().max()) or 1.0
    return SwigluStatistics(
        bundle.config.d_ff, float((gate.abs() > 0.1 * largest).float().mean()), float((gate < 0).float().mean())
    )
