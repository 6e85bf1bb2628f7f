"""Training curves: loss and accuracy over the steps, and the learning-rate schedule (pure numpy + plotly).

The page redraws these every second while a job trains, so each figure sends at most `MAX_POINTS` points per
line (a run of 20,000 steps is thinned by a stride) and no per-point text.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from viz.style import BASE_FONT_SIZE, base_layout

MAX_POINTS = 600  # points per line sent to the browser
LOSS_COLOR, ACCURACY_COLOR, HELDOUT_COLOR, RATE_COLOR, NOW_COLOR = "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#555555"
STAGE_COLOR = "#D55E00"  # a stage boundary: vermilion, apart from every curve (Okabe-Ito)


@dataclass(frozen=True)
class CurveText:
    """The translated words of the curves (pages pass them in; the defaults are the English ones)."""

    step: str = "Step"
    loss: str = "Loss"
    accuracy: str = "Token accuracy"
    heldout: str = "Held-out exact match"
    fraction: str = "Fraction right"
    rate: str = "Learning rate"
    frame: str = "Frame shown"


def thin(steps: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At most MAX_POINTS points: every k-th, always keeping the last (the step the page reports)."""
    stride = max(1, -(-len(steps) // MAX_POINTS))
    if stride == 1:
        return steps, values
    index = np.unique(np.r_[np.arange(0, len(steps), stride), len(steps) - 1])
    return steps[index], values[index]


def _vertical(x: float | None) -> list[dict]:
    if x is None:
        return []
    return [
        {
            "type": "line",
            "x0": x,
            "x1": x,
            "yref": "paper",
            "y0": 0,
            "y1": 1,
            "line": {"color": NOW_COLOR, "width": 1.5, "dash": "dot"},
        }
    ]


def _stage_marks(stages: Sequence[tuple[float, str, str]]) -> tuple[list[dict], list[dict]]:
    """(shapes, annotations): a dashed line at each stage boundary, labelled at the top; its hover says what changed."""
    shapes = [
        {
            "type": "line",
            "x0": step,
            "x1": step,
            "yref": "paper",
            "y0": 0,
            "y1": 1,
            "line": {"color": STAGE_COLOR, "width": 2, "dash": "dash"},
        }
        for step, _, _ in stages
    ]
    notes = [
        {
            "x": step,
            "y": 1.0,
            "yref": "paper",
            "yanchor": "top",
            "xanchor": "left",
            "text": html.escape(label),
            "hovertext": html.escape(reason),
            "showarrow": False,
            "font": {"color": STAGE_COLOR, "size": BASE_FONT_SIZE - 2},
        }
        for step, label, reason in stages
    ]
    return shapes, notes


def curves_figure(
    steps: np.ndarray,
    loss: np.ndarray,
    accuracy: np.ndarray,
    checks: np.ndarray,
    text: CurveText,
    *,
    total_steps: int,
    marker_step: float | None = None,
    height: int = 300,
    stages: Sequence[tuple[float, str, str]] = (),
) -> go.Figure:
    """Loss (left axis) and the training batch's token accuracy and held-out exact match (right axis, 0–1).

    Args:
        steps, loss, accuracy: (N,) one value per step taken.
        checks: (K, 2) (step, held-out exact match) of each periodic check.
        total_steps: the x axis spans the whole run, so the curve grows from left to right as it trains.
        marker_step: a dotted vertical line at the frame the attention view shows.
        stages: (step, label, reason) of each boundary between training stages: a dashed line labelled at the top,
            the reason in its hover (a loss spike there has a cause: a new schedule, longer strings).
    """
    s, lo = thin(steps, loss)
    _, acc = thin(steps, accuracy)
    label = {name: html.escape(value) for name, value in vars(text).items()}
    traces = [
        go.Scatter(
            x=s,
            y=lo,
            name=label["loss"],
            mode="lines",
            line={"color": LOSS_COLOR, "width": 2},
            yaxis="y",
            hovertemplate=f"{label['step']} %{{x}}<br>{label['loss']} %{{y:.3f}}<extra></extra>",
        ),
        go.Scatter(
            x=s,
            y=acc,
            name=label["accuracy"],
            mode="lines",
            line={"color": ACCURACY_COLOR, "width": 1.5},
            yaxis="y2",
            hovertemplate=f"{label['step']} %{{x}}<br>{label['accuracy']} %{{y:.1%}}<extra></extra>",
        ),
        go.Scatter(
            x=checks[:, 0] if len(checks) else [],
            y=checks[:, 1] if len(checks) else [],
            name=label["heldout"],
            mode="lines+markers",
            line={"color": HELDOUT_COLOR, "width": 2.5},
            marker={"size": 7},
            yaxis="y2",
            hovertemplate=f"{label['step']} %{{x}}<br>{label['heldout']} %{{y:.1%}}<extra></extra>",
        ),
    ]
    stage_shapes, stage_notes = _stage_marks(stages)
    top = float(np.nanmax(loss)) * 1.05 if len(loss) and np.isfinite(loss).any() else 1.0
    layout = base_layout(
        height=height,
        margin={"l": 60, "r": 60, "t": 10, "b": 40},
        template="none",
        hovermode="x",
        xaxis={"title": {"text": label["step"]}, "range": [0, max(total_steps, 1)], "showgrid": False},
        yaxis={"title": {"text": label["loss"], "font": {"color": LOSS_COLOR}}, "range": [0, top], "rangemode": "tozero"},
        yaxis2={
            "title": {"text": label["fraction"]},
            "overlaying": "y",
            "side": "right",
            "range": [0, 1.02],
            "dtick": 0.25,
            "tickformat": ".0%",
            "showgrid": False,
        },
        legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom", "font": {"size": BASE_FONT_SIZE - 2}},
        shapes=_vertical(marker_step) + stage_shapes,
        annotations=stage_notes,
    )
    return go.Figure(traces, layout=layout)


def rate_figure(
    schedule_steps: np.ndarray, schedule: np.ndarray, text: CurveText, *, now: float | None = None, height: int = 180
) -> go.Figure:
    """The learning-rate schedule over the whole run, with a line at the current step."""
    label = {name: html.escape(value) for name, value in vars(text).items()}
    trace = go.Scatter(
        x=schedule_steps,
        y=schedule,
        mode="lines",
        line={"color": RATE_COLOR, "width": 2},
        name=label["rate"],
        hovertemplate=f"{label['step']} %{{x}}<br>{label['rate']} %{{y:.2e}}<extra></extra>",
    )
    layout = base_layout(
        height=height,
        margin={"l": 60, "r": 60, "t": 10, "b": 40},
        template="none",
        showlegend=False,
        xaxis={"title": {"text": label["step"]}, "showgrid": False},
        yaxis={"title": {"text": label["rate"]}, "exponentformat": "e", "rangemode": "tozero"},
        shapes=_vertical(now),
    )
    return go.Figure(trace, layout=layout)
