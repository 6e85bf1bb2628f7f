"""Which heads matter: a layer × head table of what removing each head does to the output.

Two numbers per head, measured elsewhere (ablation over a fixed held-out sample, in the run layer):
- changed: the share of sentences whose output changes when the head is removed (0..1);
- logprob_drop: how much the log-probability of the right output falls (nats; ≥ 0 when it hurts).
A teacher should not have to search: `ranked_rows` lists the heads that matter first, and the
figure prints both numbers side by side, each head's cell outlined where it changes any output.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from hook_names import ordinal
from viz.style import ATTENTION_SCALE, MARK_COLOR, base_layout


@dataclass(frozen=True)
class HeadImportance:
    """Per-head ablation effects, each (L, H)."""

    changed: np.ndarray  # share of sample outputs that change without the head
    logprob_drop: np.ndarray  # mean drop in log-probability of the right output without the head

    def __post_init__(self) -> None:
        changed = np.asarray(self.changed, dtype=np.float32)
        drop = np.asarray(self.logprob_drop, dtype=np.float32)
        if changed.ndim != 2 or changed.shape != drop.shape:
            raise ValueError(f"changed {changed.shape} and logprob_drop {drop.shape} must both be (layers, heads)")
        object.__setattr__(self, "changed", changed)
        object.__setattr__(self, "logprob_drop", drop)

    @property
    def important(self) -> np.ndarray:
        """(L, H) bool: heads whose removal changes at least one output of the sample."""
        return self.changed > 0

    def most_important(self) -> tuple[int, int]:
        """(layer, head) that changes the most outputs (ties: the larger log-probability drop)."""
        order = np.lexsort((self.logprob_drop.ravel(), self.changed.ravel()))  # last key sorts first
        layer, head = np.unravel_index(order[-1], self.changed.shape)
        return int(layer), int(head)

    def ranked_rows(self) -> list[dict[str, float | int]]:
        """One dict per head {"layer", "head", "changed", "logprob_drop"}, most important first."""
        n_layers, n_heads = self.changed.shape
        rows = [
            {
                "layer": layer,
                "head": head,
                "changed": float(self.changed[layer, head]),
                "logprob_drop": float(self.logprob_drop[layer, head]),
            }
            for layer in range(n_layers)
            for head in range(n_heads)
        ]
        return sorted(rows, key=lambda r: (-r["changed"], -r["logprob_drop"], r["layer"], r["head"]))


@dataclass(frozen=True)
class ImportanceText:
    """The translated words of the importance figure (pages pass them in; the defaults are the English ones)."""

    changed: str = "Outputs that change"  # the two panels
    drop: str = "Log-probability drop"
    layer: str = "Layer"
    head: str = "Head"


def importance_figure(importance: HeadImportance, text: ImportanceText = ImportanceText()) -> go.Figure:
    """Two layer × head panels, (changed as a percentage, log-prob drop), every cell printed.

    Heads that change any output get an orange outline in both panels (colour plus shape).
    """
    n_layers, n_heads = importance.changed.shape
    layers, heads = [ordinal(i) for i in range(n_layers)], [ordinal(h) for h in range(n_heads)]
    layer, head = html.escape(text.layer), html.escape(text.head)
    names = (html.escape(text.changed), html.escape(text.drop))
    fig = make_subplots(rows=1, cols=2, subplot_titles=names, horizontal_spacing=0.12)
    panels = ((importance.changed, 1.0, ".0%"), (importance.logprob_drop, None, ".2f"))
    for col, ((values, zmax, fmt), name) in enumerate(zip(panels, names, strict=True), start=1):
        fig.add_trace(
            go.Heatmap(
                z=values,
                x=heads,  # layers and heads as readers count them (hook_names.ordinal)
                y=layers,
                colorscale=ATTENTION_SCALE,
                zmin=0.0,
                zmax=zmax if zmax is not None else max(float(values.max(initial=0.0)), 1e-6),
                showscale=False,
                texttemplate=f"%{{z:{fmt}}}",
                xgap=2,
                ygap=2,
                hovertemplate=f"{layer} %{{y}}, {head} %{{x}}<br>{name}: %{{z:{fmt}}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        for row_i, head_i in zip(*np.nonzero(importance.important), strict=True):
            fig.add_shape(
                type="rect",
                x0=ordinal(head_i) - 0.5,
                x1=ordinal(head_i) + 0.5,
                y0=ordinal(row_i) - 0.5,
                y1=ordinal(row_i) + 0.5,
                line={"color": MARK_COLOR, "width": 3},
                row=1,
                col=col,
            )
        axis = {"tickmode": "array", "showgrid": False, "zeroline": False, "fixedrange": True}
        fig.update_xaxes(axis, title={"text": head}, tickvals=heads, row=1, col=col)
        fig.update_yaxes(
            axis, title={"text": layer if col == 1 else ""}, tickvals=layers, autorange="reversed", row=1, col=col
        )  # the right panel shares the left one's layer labels
    fig.update_layout(base_layout(template="none", height=120 + 44 * n_layers, margin={"l": 66, "r": 10, "t": 40, "b": 66}))
    return fig
