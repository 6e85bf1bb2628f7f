"""Multi-head attention's last step: concatenate every head's output and project it with W^O.

    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O

Like the output channels of a convolution, each head computes its own weighted sum in its own
d_k-dimensional subspace; W^O mixes them back into one d_model vector. Written as a sum, the
output is Σ_h head_h · W^O_h (the slice of W^O that reads head h) + b, so the figure shows each
head's share of the output and `concat_error` checks the whole computation against `hook_out`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from hook_names import act_name, ordinal
from viz.step_figures import finish, number_heatmap
from viz.style import TICK_FONT_SIZE
from viz.tokens import Labels, hover_labels

MULTIHEAD_HOOKS = ("hook_z", "hook_out")


def concat_heads(z: np.ndarray) -> np.ndarray:
    """(B, H, T, d_k) per-head outputs → (B, T, H·d_k), head 0's dimensions first (as the model does)."""
    b, h, t, d_k = z.shape
    return z.transpose(0, 2, 1, 3).reshape(b, t, h * d_k)  # (B, T, H·d_k)


def project(concat: np.ndarray, w_o: np.ndarray, b_o: np.ndarray) -> np.ndarray:
    """concat @ W^Oᵀ + b in float64; `w_o` is stored like torch's Linear: (d_model, H·d_k)."""
    return concat.astype(np.float64) @ w_o.T.astype(np.float64) + b_o.astype(np.float64)  # (..., d_model)


def concat_error(arrays: Mapping[str, np.ndarray], kind: str, layer: int, w_o: np.ndarray, b_o: np.ndarray) -> float:
    """max |Concat(z) W^Oᵀ + b − hook_out| over every position of one attention module."""
    out = project(concat_heads(arrays[act_name(kind, layer, "z")]), w_o, b_o)  # (B, T, d_model)
    return float(np.abs(out - arrays[act_name(kind, layer, "out")]).max(initial=0.0))


@dataclass(frozen=True)
class MultiHeadView:
    """One query's path from h head outputs to the module's output, and the shapes on the way."""

    query_label: str
    n_heads: int
    d_k: int
    concat: np.ndarray  # (H·d_k,) this query's concatenated head outputs
    per_head: np.ndarray  # (H, d_model) head_h · W^O_hᵀ: each head's share of the output
    bias: np.ndarray  # (d_model,)
    out: np.ndarray  # (d_model,) Σ_h per_head + bias
    captured_out: np.ndarray  # (d_model,) hook_out
    error: float  # concat_error over every position
    shapes: dict[str, tuple[int, ...]]  # "z", "concat", "w_o" (paper orientation), "out"


def build_multihead_view(
    arrays: Mapping[str, np.ndarray],
    kind: str,
    layer: int,
    query: int,
    query_tokens: Labels,
    w_o: np.ndarray,
    b_o: np.ndarray,
) -> MultiHeadView:
    z = arrays[act_name(kind, layer, "z")]  # (B, H, T, d_k)
    _, h, _, d_k = z.shape
    concat = concat_heads(z)  # (B, T, H·d_k)
    row = concat[0, query].astype(np.float64)  # (H·d_k,)
    w64 = w_o.astype(np.float64)
    per_head = np.stack([row[i * d_k : (i + 1) * d_k] @ w64[:, i * d_k : (i + 1) * d_k].T for i in range(h)])  # (H, d_model)
    captured = arrays[act_name(kind, layer, "out")]  # (B, T, d_model)
    return MultiHeadView(
        query_label=hover_labels(query_tokens)[query],
        n_heads=h,
        d_k=d_k,
        concat=row,
        per_head=per_head,
        bias=b_o.astype(np.float64),
        out=per_head.sum(axis=0) + b_o,
        captured_out=captured[0, query].astype(np.float64),
        error=concat_error(arrays, kind, layer, w_o, b_o),
        # W^O as the paper writes it, (H·d_k, d_model); torch's Linear stores its transpose
        shapes={"z": z.shape, "concat": concat.shape, "w_o": w_o.shape[::-1], "out": captured.shape},
    )


@dataclass(frozen=True)
class MultiHeadText:
    """The translated words of the W^O figure (pages pass them in; the defaults are the English ones)."""

    concat: str = "Concat(head₁ … headₕ) for this query"  # the three panel titles
    per_head: str = "Each head's share of the output: headᵢ · Wᵢᴼ"
    out: str = "Σ heads + b, next to the model's output"
    head: str = "head {h}"  # a head's name; {h} counts from 1
    sum: str = "Σ + b"  # the last panel's rows: the sum and the model's own output
    captured: str = "model"
    dim: str = "dimension"


def multihead_figure(view: MultiHeadView, text: MultiHeadText = MultiHeadText()) -> go.Figure:
    """Three panels: Concat(head_1..h) for the query; each head's share after W^O; their sum vs the model's."""
    h, d_k = view.n_heads, view.d_k
    fig = make_subplots(
        rows=3,
        cols=1,
        row_heights=[1.4, h, 2],
        vertical_spacing=0.14,
        subplot_titles=(text.concat, text.per_head, text.out),
    )
    fig.add_trace(number_heatmap(view.concat, text=np.full((1, h * d_k), "")), row=1, col=1)
    fig.add_trace(number_heatmap(view.per_head, text=np.full(view.per_head.shape, "")), row=2, col=1)
    both = np.stack([view.out, view.captured_out])  # (2, d_model)
    fig.add_trace(number_heatmap(both, text=np.full(both.shape, "")), row=3, col=1)
    heads = [text.head.format(h=ordinal(i)) for i in range(h)]  # "head 1" is index 0
    centers = [i * d_k + (d_k - 1) / 2 for i in range(h)]
    fig.update_xaxes(tickmode="array", tickvals=centers, ticktext=heads, tickfont={"size": TICK_FONT_SIZE}, row=1, col=1)
    for i in range(1, h):  # boundaries between heads in the concatenated vector
        fig.add_vline(x=i * d_k - 0.5, line={"color": "black", "width": 2}, row=1, col=1)
    fig.update_yaxes(tickmode="array", tickvals=[0], ticktext=[view.query_label], row=1, col=1)
    fig.update_yaxes(tickmode="array", tickvals=list(range(h)), ticktext=heads, autorange="reversed", row=2, col=1)
    fig.update_yaxes(tickmode="array", tickvals=[0, 1], ticktext=[text.sum, text.captured], autorange="reversed", row=3, col=1)
    fig.update_xaxes(title={"text": text.dim}, row=3, col=1)
    return finish(fig, 260 + 34 * (h + 4), top=40)
