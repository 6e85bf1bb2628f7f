"""Rotary position embeddings (RoPE; Su et al., 2021, "RoFormer"), as Llama and Qwen use them.

The paper adds a position vector to each token's embedding (§3.5). RoPE adds nothing: it turns each query and
key, just before their dot product, by angles that grow with the token's position. Dimension i of the first half
of a head is paired with dimension i + d_k/2 (the layout of Llama's and Qwen's checkpoints), and the pair at
position m is turned by the angle m · θ_i, with frequencies

    θ_i = rope_theta^(-2i / d_k),   i = 0 .. d_k/2 - 1        (fast turns first, slow ones last)

A rotation keeps lengths and turning both vectors by the same angle keeps their dot product, so

    (R_m q) · (R_n k) = q · (R_(n-m) k)

depends on the distance n - m alone, never on where the two tokens stand: the same two tokens moved together
get the same score (the Positional page shows it on the reader's text). Only the default rope type is here;
checkpoints with other `rope_scaling` types are refused by name (`transformer/hf/llama.py`).
"""

from __future__ import annotations

import torch
from torch import Tensor


def rotary_frequencies(d_k: int, theta: float) -> Tensor:
    """θ_i = theta^(-2i/d_k) for i = 0 .. d_k/2 - 1: (d_k/2,) float64, radians per position."""
    return theta ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)


def rotary_angles(
    start: int, length: int, d_k: int, theta: float, dtype: torch.dtype, device: torch.device
) -> tuple[Tensor, Tensor]:
    """cos and sin of m · θ_i for positions m = start .. start + length - 1, each (length, d_k): the d_k/2 angles
    twice, once for each half of a pair. Computed in float64 and rounded once, position by position: a key
    computed alone at a decoding step is turned exactly as it is inside the whole prefix."""
    positions = torch.arange(start, start + length, dtype=torch.float64)[:, None]  # (T, 1)
    angles = positions * rotary_frequencies(d_k, theta)[None]  # (T, d_k/2)
    angles = torch.cat([angles, angles], dim=-1)  # (T, d_k): dimension i and i + d_k/2 share an angle
    return angles.cos().to(dtype=dtype, device=device), angles.sin().to(dtype=dtype, device=device)


def rotate_half(x: Tensor) -> Tensor:
    """(x₁, x₂) → (-x₂, x₁) over the two halves of the last dimension: a quarter turn of every pair."""
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def apply_rotary(x: Tensor, start: int, theta: float) -> Tensor:
    """Turn each pair of x's dimensions by its position's angles: x (B, H, T, d_k) at positions start .. start+T-1.

    x' = x · cos(mθ) + rotate_half(x) · sin(mθ)        (the 2-D rotation of each pair, written per half)
    """
    cos, sin = rotary_angles(start, x.shape[-2], x.shape[-1], theta, x.dtype, x.device)  # (T, d_k) each
    return x * cos + rotate_half(x) * sin
