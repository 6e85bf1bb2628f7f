"""Token embeddings before and after the position is added, and why they are scaled by sqrt(d_model).

The paper multiplies embeddings by sqrt(d_model) (§3.4). A sinusoidal PE vector always has norm
sqrt(d_model/2) (each sin/cos pair contributes sin² + cos² = 1); small raw lookup vectors would be
drowned by it, while scaled ones are of the same size, so the sum keeps both "what" and "where".
Learned position tables start as small noise and only get their structure from training.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from hook_names import embed_module, hook_name, pos_module
from viz.figure_parts import MARGIN, TOP_LEGEND, TOP_LEGEND_MARGIN, reference_line
from viz.positional import PositionalText
from viz.style import DIVERGING_SCALE, QUALITATIVE, base_layout
from viz.tokens import TokenAxis, axis, hover_labels


@dataclass(frozen=True)
class EmbeddingScale:
    """One run's input side: scaled token embeddings, the position vectors added, and their sum.

    `stack` is "encoder" (encoder-decoder: the encoder reads the text) or "decoder" (decoder-only).
    """

    tokens: tuple[str, ...]
    scaled: np.ndarray  # (T, d_model): lut(x) · sqrt(d_model)   (hook_tokens)
    pe: np.ndarray  # (T, d_model): the position vectors added   (hook_pe)
    total: np.ndarray  # (T, d_model): scaled + pe                  (hook_out)
    raw: tuple[str, ...] = ()  # each token's raw bytes as hex ("e4 bd"; "" where the label is the text), for a hover

    @classmethod
    def from_arrays(
        cls, arrays: Mapping[str, np.ndarray], stack: str, tokens: Sequence[str], raw: Sequence[str] = ()
    ) -> EmbeddingScale:
        """Read the embedding's `hook_tokens` and the positional encoding's `hook_pe`, `hook_out` (batch item 0);
        `raw`: the tokens' raw bytes, carried for the hover."""
        scaled = arrays[hook_name(embed_module(stack), "tokens")][0]
        pe = np.broadcast_to(arrays[hook_name(pos_module(stack), "pe")][0], scaled.shape)
        return cls(tuple(tokens), scaled, pe, arrays[hook_name(pos_module(stack), "out")][0], tuple(raw))

    @property
    def d_model(self) -> int:
        return self.scaled.shape[1]

    def norms(self) -> dict[str, np.ndarray]:
        """Per-token L2 norms (T,) of the raw lookup, the scaled embedding, the PE and their sum."""
        scaled = np.linalg.norm(self.scaled.astype(np.float64), axis=1)
        return {
            "raw": scaled / np.sqrt(self.d_model),
            "scaled": scaled,
            "pe": np.linalg.norm(self.pe.astype(np.float64), axis=1),
            "total": np.linalg.norm(self.total.astype(np.float64), axis=1),
        }


def norms_figure(scale: EmbeddingScale, text: PositionalText = PositionalText()) -> go.Figure:
    """Grouped bars per token: raw, scaled, PE and sum norms; a dashed line at sqrt(d_model/2)."""
    names = {"raw": text.norm_raw, "scaled": text.norm_scaled, "pe": text.norm_pe, "total": text.norm_total}
    x_title, y_title = text.token, text.norm
    reference_label = text.pe_reference.format(value=f"{(scale.d_model / 2) ** 0.5:.2f}")
    norms = scale.norms()
    hover = hover_labels(TokenAxis(scale.tokens, hex=scale.raw), text.bytes)  # a byte-level piece's raw bytes under it
    fig = go.Figure()
    for n, key in enumerate(("raw", "scaled", "pe", "total")):
        fig.add_trace(
            go.Bar(
                x=np.arange(len(scale.tokens)),
                y=norms[key].astype(np.float32),
                name=names[key],
                marker_color=QUALITATIVE[n],
                customdata=hover,
                hovertemplate=f"%{{customdata}}<br>{names[key]}: %{{y:.2f}}<extra></extra>",
            )
        )
    fig.add_trace(reference_line(np.arange(len(scale.tokens)), float(np.sqrt(scale.d_model / 2)), reference_label))
    fig.update_layout(**base_layout(height=400, margin=TOP_LEGEND_MARGIN, barmode="group", legend=TOP_LEGEND))
    fig.update_xaxes(**axis(scale.tokens, x_title))
    fig.update_yaxes(title_text=y_title, showgrid=True, gridcolor="#eee")
    return fig


def before_after_figure(scale: EmbeddingScale, n_dims: int, text: PositionalText = PositionalText()) -> go.Figure:
    """Three heatmaps (token × first `n_dims` dimensions): scaled embedding + PE = what layer 1 reads. Rows are
    categories named "3: 你 ¹⁄₃" (unique), so the hover names the token, with a byte-level piece's raw bytes under it."""
    titles, x_title, y_title, value = (text.scaled, text.pe, text.sum), text.dimension, text.token, text.value
    n = min(n_dims, scale.d_model)
    panels = [scale.scaled[:, :n], scale.pe[:, :n], scale.total[:, :n]]  # each (T, n)
    peak = float(max(np.abs(p).max() for p in panels)) or 1.0
    fig = make_subplots(rows=1, cols=3, subplot_titles=tuple(titles), horizontal_spacing=0.06, shared_yaxes=True)
    hover = f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>{value} %{{z:.2f}}<extra></extra>"
    names = hover_labels(TokenAxis(scale.tokens, hex=scale.raw), text.bytes)  # (T,) unique row categories
    for col, panel in enumerate(panels, start=1):
        fig.add_trace(
            go.Heatmap(z=np.ascontiguousarray(panel, dtype=np.float32), y=names, coloraxis="coloraxis", hovertemplate=hover),
            row=1,
            col=col,
        )
        fig.update_xaxes(title_text=x_title, row=1, col=col)
    rows = axis(scale.tokens, y_title)
    rows.update(type="category", tickvals=[names[i] for i in rows["tickvals"]])
    fig.update_yaxes(**rows, autorange="reversed", row=1, col=1)
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(
        **base_layout(
            height=max(320, 60 + 22 * min(len(scale.tokens), 40)),
            margin=MARGIN,
            coloraxis={
                "colorscale": DIVERGING_SCALE,
                "cmin": -peak,
                "cmax": peak,
                "colorbar": {"title": {"text": value}, "thickness": 14},
            },
        )
    )
    return fig


def cosine_similarity(table: np.ndarray) -> np.ndarray:
    """(P, P) cosine similarity between the rows of a (P, d) table (zero rows give 0)."""
    t64 = table.astype(np.float64)
    norm = np.linalg.norm(t64, axis=1, keepdims=True)
    unit = np.divide(t64, norm, out=np.zeros_like(t64), where=norm > 0)
    return unit @ unit.T


def learned_figure(learned: np.ndarray, sinusoid: np.ndarray, text: PositionalText = PositionalText()) -> go.Figure:
    """Top: the learned table beside the sinusoids (position × dimension), each on its own scale.
    Bottom: their cosine similarity between positions — a smooth band means neighbours look alike.

    Args:
        learned, sinusoid: (P, d_model) tables for the same positions.
    """
    titles = (text.learned_table, text.sinusoid_table, text.learned_sim, text.sinusoid_sim)
    x_title, y_title, sim_title = text.dimension, text.position, text.cosine
    fig = make_subplots(rows=2, cols=2, subplot_titles=tuple(titles), vertical_spacing=0.2, horizontal_spacing=0.1)
    for col, table in enumerate((learned, sinusoid), start=1):
        peak = float(np.abs(table).max()) or 1.0
        fig.add_trace(
            go.Heatmap(
                z=np.ascontiguousarray(table, dtype=np.float32),
                colorscale=DIVERGING_SCALE,
                zmin=-peak,
                zmax=peak,
                showscale=False,
                hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>%{{z:.3f}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.add_trace(
            go.Heatmap(
                z=cosine_similarity(table).astype(np.float32),
                colorscale=DIVERGING_SCALE,
                zmin=-1,
                zmax=1,
                colorbar={"title": {"text": sim_title}, "thickness": 14, "len": 0.42, "y": 0.2} if col == 2 else None,
                showscale=col == 2,
                hovertemplate=f"{y_title} %{{y}} · %{{x}}<br>{sim_title} %{{z:.2f}}<extra></extra>",
            ),
            row=2,
            col=col,
        )
        fig.update_xaxes(title_text=x_title, row=1, col=col)
        fig.update_xaxes(title_text=y_title, row=2, col=col)
    fig.update_yaxes(autorange="reversed")
    fig.update_yaxes(title_text=y_title, col=1)
    fig.update_layout(**base_layout(height=820, margin=MARGIN))
    return fig
