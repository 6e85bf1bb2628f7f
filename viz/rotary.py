"""Figures of rotary positions: the frequencies of the pairs, and one head's score as two tokens move together
(flat: only their distance counts) beside the same query's score at other distances."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go


@dataclass(frozen=True)
class FrequencyText:
    """The frequency plot's axis titles."""

    pair: str
    rate: str


@dataclass(frozen=True)
class MovedText:
    """The moved-tokens plot's words: its two traces, two x axes and the score axis."""

    moved: str
    distance: str
    shift_axis: str
    distance_axis: str
    score: str


def frequency_figure(frequencies: np.ndarray, theta: float, words: FrequencyText) -> go.Figure:
    """θ_i = theta^(-2i/d_k) per pair i, on a log axis: the first pairs turn a radian a position, the last hardly."""
    pairs = np.arange(1, len(frequencies) + 1)
    fig = go.Figure(go.Scatter(x=pairs, y=frequencies, mode="lines+markers", name=f"θ = {theta:,.0f}"))
    fig.update_layout(xaxis_title=words.pair, yaxis_title=words.rate, yaxis_type="log", height=320, margin={"t": 20, "b": 40})
    return fig


def moved_scores_figure(
    shifts: np.ndarray,
    moved: np.ndarray,
    distances: np.ndarray,
    by_distance: np.ndarray,
    words: MovedText,
) -> go.Figure:
    """Left trace: the score with both tokens moved by each shift (x: shift); right: the query kept, the key at
    each distance (x: distance)."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12)
    fig.add_trace(go.Scatter(x=shifts, y=moved, mode="lines+markers", name=words.moved), row=1, col=1)
    fig.add_trace(go.Scatter(x=distances, y=by_distance, mode="lines+markers", name=words.distance), row=1, col=2)
    low = float(min(moved.min(), by_distance.min()))
    high = float(max(moved.max(), by_distance.max()))
    pad = 0.05 * (high - low or 1.0)
    fig.update_yaxes(range=[low - pad, high + pad], title_text=words.score, row=1, col=1)
    fig.update_yaxes(range=[low - pad, high + pad], row=1, col=2)
    fig.update_xaxes(title_text=words.shift_axis, row=1, col=1)
    fig.update_xaxes(title_text=words.distance_axis, row=1, col=2)
    fig.update_layout(height=340, margin={"t": 20, "b": 40}, legend={"orientation": "h", "y": 1.12})
    return fig
