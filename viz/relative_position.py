"""The relative-position property of the sinusoids (paper §3.5), computed two ways and checked.

"For any fixed offset k, PE(pos+k) can be represented as a linear function of PE(pos)": one matrix
M_k works for every position. Closed form: each sin/cos pair turns by the angle ω_i·k, so M_k is
block-diagonal with 2×2 rotations. Data-driven: least squares over all positions finds a matrix
with the same effect without knowing the formula. The page shows both and the largest error, so
the claim is checked on numbers, not taken on trust.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.figure_parts import MARGIN
from viz.positional import PositionalText
from viz.style import DIVERGING_SCALE, base_layout


def angular_frequencies(d_model: int) -> np.ndarray:
    """(d_model/2,) ω_i = 1 / 10000^(2i/d_model), the speed of pair i (as in `sinusoidal_encoding`)."""
    return 10000.0 ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)


def rotation_matrix(d_model: int, k: int) -> np.ndarray:
    """(d_model, d_model) M_k with PE(pos + k) = M_k · PE(pos) for every pos (even d_model).

    sin(ω(p+k)) =  cos(ωk)·sin(ωp) + sin(ωk)·cos(ωp)
    cos(ω(p+k)) = −sin(ωk)·sin(ωp) + cos(ωk)·cos(ωp)
    """
    if d_model % 2:
        raise ValueError("the closed form needs an even d_model (each sine paired with a cosine)")
    angle = angular_frequencies(d_model) * k  # (d/2,)
    m = np.zeros((d_model, d_model))
    even = np.arange(0, d_model, 2)
    m[even, even] = np.cos(angle)
    m[even, even + 1] = np.sin(angle)
    m[even + 1, even] = -np.sin(angle)
    m[even + 1, even + 1] = np.cos(angle)
    return m


def least_squares_matrix(pe: np.ndarray, k: int) -> np.ndarray:
    """(d, d) M fitted to the table alone: each sin/cos pair's 2×2 block minimises
    Σ_pos ‖B·PE_pair(pos) − PE_pair(pos+k)‖² over the positions of `pe` (P, d).

    Why per pair: over a few hundred positions the slow pairs barely move, so a full d×d fit has
    many equally good answers (lstsq returns the smallest, which looks like noise); a pair's two
    columns always determine its 2×2 block, and the fit recovers the rotation by ω_i·k.
    """
    n_pos, d_model = pe.shape
    if not 0 < k <= n_pos - 2:  # each pair needs two (pos, pos+k) examples for its two unknowns per row
        raise ValueError(f"offset k={k} must be between 1 and {n_pos - 2}")
    if d_model % 2:
        raise ValueError("the fit needs an even d_model (each sine paired with a cosine)")
    pe64 = pe.astype(np.float64)
    m = np.zeros((d_model, d_model))
    for j in range(0, d_model, 2):
        pair = pe64[:, j : j + 2]  # (P, 2): sin, cos of one frequency
        x, *_ = np.linalg.lstsq(pair[:-k], pair[k:], rcond=None)  # pair[:-k] @ X ≈ pair[k:], X = Bᵀ
        m[j : j + 2, j : j + 2] = x.T
    return m


def mapping_error(pe: np.ndarray, m: np.ndarray, k: int) -> float:
    """max over pos and dims of |M·PE(pos) − PE(pos+k)|."""
    pe64 = pe.astype(np.float64)
    return float(np.abs(pe64[:-k] @ m.T - pe64[k:]).max())


@dataclass(frozen=True)
class RelativeCheck:
    """Both matrices for one offset and how well each maps PE(pos) to PE(pos+k)."""

    k: int
    closed: np.ndarray  # (d, d)
    fitted: np.ndarray  # (d, d)
    closed_error: float
    fitted_error: float
    difference: float  # max |closed − fitted|

    @classmethod
    def compute(cls, pe: np.ndarray, k: int) -> RelativeCheck:
        closed = rotation_matrix(pe.shape[1], k)
        fitted = least_squares_matrix(pe, k)
        return cls(
            k, closed, fitted, mapping_error(pe, closed, k), mapping_error(pe, fitted, k), float(np.abs(closed - fitted).max())
        )


def relative_figure(check: RelativeCheck, n_dims: int, text: PositionalText = PositionalText()) -> go.Figure:
    """The two matrices side by side, cropped to the first `n_dims` dimensions (2×2 blocks stay visible)."""
    closed_title, fitted_title = text.closed.format(k=check.k), text.fitted.format(k=check.k)
    row_title, col_title, value = text.out_dim, text.in_dim, text.value
    n = min(n_dims, check.closed.shape[0])
    fig = make_subplots(rows=1, cols=2, subplot_titles=(closed_title, fitted_title), horizontal_spacing=0.08)
    hover = f"{row_title} %{{y}}<br>{col_title} %{{x}}<br>{value} %{{z:.3f}}<extra></extra>"
    for col, m in ((1, check.closed), (2, check.fitted)):
        fig.add_trace(
            go.Heatmap(
                z=np.ascontiguousarray(m[:n, :n], dtype=np.float32),
                zmin=-1,
                zmax=1,
                colorscale=DIVERGING_SCALE,
                coloraxis="coloraxis",
                hovertemplate=hover,
            ),
            row=1,
            col=col,
        )
        fig.update_xaxes(title_text=col_title, constrain="domain", row=1, col=col)
        fig.update_yaxes(
            title_text=row_title,
            autorange="reversed",
            scaleanchor=f"x{col if col > 1 else ''}",
            constrain="domain",
            row=1,
            col=col,
        )
    fig.update_layout(
        **base_layout(
            height=440,
            margin=MARGIN,
            coloraxis={
                "colorscale": DIVERGING_SCALE,
                "cmin": -1,
                "cmax": 1,
                "colorbar": {"title": {"text": value}, "thickness": 14},
            },
        )
    )
    return fig
