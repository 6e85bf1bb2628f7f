"""Numbers that help find interesting heads among many: where does each head look, and how sharply?

For every layer × head, averaged over query positions:
- entropy (bits) of the attention row: 0 = looks at one token, log2(Tk) = spread evenly;
- weight on the previous token (i → i−1): a "previous-token head" scores near 1;
- weight on the same position (i → i);
- weight on the first token (i → 0), a common "resting place" for heads with nothing to do;
- mean distance Σ_j p_ij |i − j|: how far a head reaches.
Positions are compared by index, which means something only when queries and keys index the
same sequence. Across two languages (cross-attention) "the source word at the same index" is
no word in particular, so a cross-attention summary drops those metrics and, when the task's
gold word alignment is known, reports instead
- alignment: the share of aligned rows whose largest weight is on the gold source word
(viz/alignment.py). `metrics_for(kind, ...)` tells the page which metrics a kind has.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from hook_names import ordinal
from viz.alignment import Alignment, alignment_score
from viz.style import ATTENTION_SCALE, base_layout

SELF_METRICS = ("entropy", "previous", "same", "first", "distance")  # self-attention: one sequence, indices comparable
CROSS_METRICS = ("entropy", "first")  # cross-attention: nothing that compares a target index with a source index
ALIGNMENT = "alignment"
METRICS = SELF_METRICS  # what a summary of self-attention (or of `kind=None`) has; pages should ask `summary.metrics`
ALL_METRICS = (*SELF_METRICS, ALIGNMENT)  # every metric name (each needs a `heads.metric_<name>` catalog entry)


def metrics_for(kind: str | None, has_alignment: bool = False) -> tuple[str, ...]:
    """The metrics that mean something for an attention kind ("encoder", "decoder", "cross").

    `kind=None` keeps the index metrics for any patterns (the caller vouches they are self-attention).
    """
    if kind == "cross":
        return (*CROSS_METRICS, ALIGNMENT) if has_alignment else CROSS_METRICS
    return SELF_METRICS


@dataclass(frozen=True)
class HeadSummary:
    """Per-head statistics, each (L, H), in display order; NaN where undefined (e.g. previous with one query)."""

    values: Mapping[str, np.ndarray]
    max_entropy: float  # log2(Tk): the entropy of a head that spreads evenly over every key

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics this summary has (ask for no others)."""
        return tuple(self.values)

    def __getattr__(self, name: str) -> np.ndarray:
        """`summary.entropy` etc., as before the metric set depended on the kind."""
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(f"{type(self).__name__} has no metric {name!r}")

    def metric(self, name: str) -> np.ndarray:
        if name not in self.values:
            raise KeyError(f"unknown metric {name!r}; one of {self.metrics}")
        return self.values[name]

    def rows(self) -> list[dict[str, float | int]]:
        """One dict per head ({"layer", "head", metric...}), in layer-major order, for a table."""
        n_layers, n_heads = self.metric("entropy").shape
        return [
            {"layer": layer, "head": head, **{m: float(self.values[m][layer, head]) for m in self.metrics}}
            for layer in range(n_layers)
            for head in range(n_heads)
        ]


def _mean_diagonal(patterns: np.ndarray, offset: int) -> np.ndarray:
    """Mean over queries i of p[i, i − offset], over the queries where that key exists; (L, H)."""
    tq, tk = patterns.shape[-2:]
    queries = np.arange(offset, min(tq, tk + offset))
    if queries.size == 0:
        return np.full(patterns.shape[:-2], np.nan)
    return patterns[..., queries, queries - offset].mean(axis=-1)


def _index_metrics(p: np.ndarray) -> dict[str, np.ndarray]:
    """previous, same and distance: the metrics that compare a query's index with a key's."""
    tq, tk = p.shape[-2:]
    distance = np.abs(np.arange(tq)[:, None] - np.arange(tk)[None, :])  # (Tq, Tk)
    return {"previous": _mean_diagonal(p, 1), "same": _mean_diagonal(p, 0), "distance": (p * distance).sum(axis=-1).mean(axis=-1)}


def summarize(
    patterns: np.ndarray | Sequence[np.ndarray], kind: str | None = None, alignment: Alignment | None = None
) -> HeadSummary:
    """Statistics of (L, H, Tq, Tk) attention weights (rows summing to 1; or L arrays of (H, Tq, Tk)), the set
    `metrics_for(kind)` names.

    `alignment` (gold source position per decoder row) adds the alignment score to a cross-attention summary.
    """
    names = metrics_for(kind, alignment is not None)
    # One layer at a time: each temporary is one layer's (H, Tq, Tk), not the whole stack's (a GPT-2-sized model at
    # 1,024 tokens has 604 MB of patterns, and p·log p or p·distance over all of them at once peaked at 2.4 GB more).
    per_layer = [_layer_metrics(np.asarray(layer, dtype=np.float32), names, alignment) for layer in patterns]
    values = {name: np.stack([m[name] for m in per_layer]) for name in names}  # each (L, H)
    return HeadSummary(values=values, max_entropy=float(np.log2(np.shape(patterns)[-1])))


def _layer_metrics(p: np.ndarray, names: tuple[str, ...], alignment: Alignment | None) -> dict[str, np.ndarray]:
    """The metrics `names` of one layer's (H, Tq, Tk) weights, float32 as captured, each (H,)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(p > 0, p * np.log2(p), np.float32(0.0))  # 0 log 0 = 0: masked keys add nothing
    computed = {"entropy": -plogp.sum(axis=-1).mean(axis=-1), "first": p[..., 0].mean(axis=-1)}
    if "previous" in names:
        computed.update(_index_metrics(p))
    if ALIGNMENT in names:
        computed[ALIGNMENT] = alignment_score(p, alignment)
    return {name: computed[name] for name in names}


@dataclass(frozen=True)
class MetricText:
    """The translated words of a metric's figure (pages pass them in; the defaults are the English ones)."""

    title: str = ""  # the metric's name
    layer: str = "Layer"
    head: str = "Head"


def metric_figure(
    values: np.ndarray, text: MetricText = MetricText(), *, zmax: float | None = None, fmt: str = ".2f"
) -> go.Figure:
    """A small layer × head heatmap of one metric, each cell printed, so the odd head stands out."""
    n_layers, n_heads = values.shape
    layers, heads = [ordinal(i) for i in range(n_layers)], [ordinal(h) for h in range(n_heads)]  # as readers count
    layer, head, value = (html.escape(s) for s in (text.layer, text.head, text.title))
    layout = base_layout(
        title={"text": value, "x": 0.0, "xanchor": "left", "font": {"size": 15}},
        template="none",
        # Fixed margins for the axis titles and ≤ 2-digit tick labels (automargin would draw the figure twice).
        height=110 + 44 * n_layers,
        margin={"l": 66, "r": 10, "t": 36, "b": 66},
        xaxis={
            "title": {"text": head},
            "tickmode": "array",
            "tickvals": heads,
            "showgrid": False,
            "zeroline": False,
            "fixedrange": True,
        },
        yaxis={
            "title": {"text": layer},
            "tickmode": "array",
            "tickvals": layers,
            "autorange": "reversed",
            "showgrid": False,
            "zeroline": False,
            "fixedrange": True,
        },
    )
    return go.Figure(
        go.Heatmap(  # layout passed here, not via update_layout: several times cheaper to build
            z=np.asarray(values, dtype=np.float32),
            x=heads,
            y=layers,
            colorscale=ATTENTION_SCALE,
            zmin=0.0,
            zmax=zmax,
            texttemplate=f"%{{z:{fmt}}}",
            showscale=False,
            hovertemplate=f"{layer} %{{y}}, {head} %{{x}}<br>{value}: %{{z:{fmt}}}<extra></extra>",
            xgap=2,
            ygap=2,
        ),
        layout=layout,
    )
