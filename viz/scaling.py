"""Why Attention divides by sqrt(d_k): a live experiment with random vectors (paper §3.2.1, footnote 4).

If the components of q and k are independent with mean 0 and variance 1, q·k = Σᵢ qᵢkᵢ has mean 0
and variance d_k. Unscaled, the scores of a 512-dimensional head spread over ±60, softmax puts
almost all weight on one key and its gradient (∂p/∂s = diag(p) − p pᵀ) nearly vanishes: nothing
to learn from. Divided by sqrt(d_k), the variance is 1 for every d_k and softmax stays soft.
Everything here is drawn from a seeded generator, so the numbers are a live sample, not a table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.step_figures import finish
from viz.style import QUALITATIVE

D_K_OPTIONS = tuple(2**i for i in range(11))  # 1 … 1024, log steps


def d_k_options(model_d_k: int) -> tuple[int, ...]:
    """The slider's d_k values: powers of two, and the model's own d_k among them (48 on en-zh: the slider opens
    on the model's real d_k, never on a neighbouring power of two a class would read as the model's)."""
    return tuple(sorted({*D_K_OPTIONS, model_d_k}))


N_SAMPLES = 2000  # q·k pairs per d_k for the variance estimate
N_KEYS = 8  # keys one query attends over in the softmax demo
N_QUERIES = 200  # queries the softmax statistics are averaged over
LOG_TICKS = [1, 4, 16, 64, 256, 1024, 4096]


@dataclass(frozen=True)
class ScalingText:
    """The translated words of the √d_k figures (pages pass them in; the defaults are the English ones)."""

    unscaled: str = "q·k (unscaled)"  # both figures: the two series
    scaled: str = "q·k / √d_k (scaled)"
    expected: str = "d_k (theory)"  # the variance figure: the line it should follow,
    d_k: str = "d_k"  # its x axis,
    variance: str = "variance over {n} random pairs"  # and its y axis ({n}: the sample size)
    key: str = "key"  # the softmax figure's axes
    weight: str = "softmax weight"


def dot_samples(d_k: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n,) dot products q·k of independent standard-normal q, k ∈ R^d_k."""
    q = rng.standard_normal((n, d_k), dtype=np.float32)
    k = rng.standard_normal((n, d_k), dtype=np.float32)
    return np.einsum("nd,nd->n", q, k, dtype=np.float64)  # (n,)


def variance_curve(d_ks: tuple[int, ...], n: int, seed: int) -> np.ndarray:
    """(len(d_ks),) empirical variance of q·k for each d_k (the scaled one is this / d_k)."""
    rng = np.random.default_rng(seed)
    return np.array([dot_samples(d, n, rng).var() for d in d_ks])


def softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, stable for scores in the hundreds."""
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def entropy(p: np.ndarray) -> np.ndarray:
    """Entropy in bits over the last axis: log2(n) for uniform weights, 0 for one-hot."""
    return -(p * np.log2(np.where(p > 0, p, 1.0))).sum(axis=-1)


def jacobian_norm(p: np.ndarray) -> np.ndarray:
    """Frobenius norm of ∂softmax/∂scores = diag(p) − p pᵀ, per row: 0 when p is one-hot."""
    jac = np.einsum("...i,ij->...ij", p, np.eye(p.shape[-1])) - p[..., :, None] * p[..., None, :]
    return np.sqrt((jac**2).sum(axis=(-2, -1)))


@dataclass(frozen=True)
class SoftmaxStats:
    """Averages over many random queries, for unscaled (q·k) or scaled (q·k / sqrt(d_k)) scores."""

    max_weight: float
    entropy_bits: float
    grad_norm: float

    def formatted(self) -> list[str]:
        """The three numbers with 3 decimals, in field order (a table column)."""
        return [f"{v:.3f}" for v in (self.max_weight, self.entropy_bits, self.grad_norm)]


@dataclass(frozen=True)
class ScalingDemo:
    d_k: int
    seed: int
    n_samples: int
    d_ks: tuple[int, ...]
    variances: np.ndarray  # (len(d_ks),) Var(q·k) for each d_k
    scores: np.ndarray  # (N_KEYS,) one example query's unscaled scores at this d_k
    unscaled: SoftmaxStats
    scaled: SoftmaxStats

    @property
    def variance(self) -> float:
        """Var(q·k) at the chosen d_k."""
        return float(self.variances[self.d_ks.index(self.d_k)])


def _stats(weights: np.ndarray) -> SoftmaxStats:  # weights (N_QUERIES, N_KEYS)
    return SoftmaxStats(float(weights.max(axis=-1).mean()), float(entropy(weights).mean()), float(jacobian_norm(weights).mean()))


def scaling_demo(d_k: int, seed: int = 0, n_samples: int = N_SAMPLES, d_ks: tuple[int, ...] = D_K_OPTIONS) -> ScalingDemo:
    """Sample q·k for every d_k in `d_ks`, and softmax statistics of N_QUERIES queries at `d_k`."""
    d_ks = tuple(sorted({*d_ks, d_k}))
    rng = np.random.default_rng([seed, d_k])
    q = rng.standard_normal((N_QUERIES, 1, d_k))  # (Q, 1, d_k)
    k = rng.standard_normal((N_QUERIES, N_KEYS, d_k))  # (Q, N, d_k)
    scores = (q * k).sum(axis=-1)  # (Q, N)
    return ScalingDemo(
        d_k=d_k,
        seed=seed,
        n_samples=n_samples,
        d_ks=d_ks,
        variances=variance_curve(d_ks, n_samples, seed),
        scores=scores[0],
        unscaled=_stats(softmax(scores)),
        scaled=_stats(softmax(scores / np.sqrt(d_k))),
    )


def variance_figure(demo: ScalingDemo, text: ScalingText = ScalingText()) -> go.Figure:
    """Var(q·k) grows like d_k (log–log: a line of slope 1); Var(q·k / sqrt(d_k)) stays at 1."""
    x = np.array(demo.d_ks, dtype=float)
    fig = go.Figure()
    fig.add_scatter(x=x, y=x, mode="lines", name=text.expected, line={"color": "#999999", "dash": "dash"})
    fig.add_scatter(
        x=x,
        y=demo.variances,
        mode="lines+markers",
        name=text.unscaled,
        marker={"size": 10, "color": QUALITATIVE[5]},
        line={"color": QUALITATIVE[5]},
    )
    fig.add_scatter(
        x=x,
        y=demo.variances / x,
        mode="lines+markers",
        name=text.scaled,
        marker={"size": 10, "color": QUALITATIVE[0], "symbol": "square"},
        line={"color": QUALITATIVE[0]},
    )
    fig.add_vline(x=demo.d_k, line={"color": "black", "width": 1, "dash": "dot"})
    fig.add_annotation(
        x=np.log10(demo.d_k),
        y=np.log10(max(demo.variance, 1e-3)),
        text=f"{demo.variance:.1f}",
        showarrow=True,
        arrowhead=2,
        ax=-40,
        ay=-30,
        font={"size": 16},
    )
    ticks = {"tickmode": "array", "tickvals": LOG_TICKS, "ticktext": [str(v) for v in LOG_TICKS]}
    fig.update_xaxes(type="log", title={"text": text.d_k}, **ticks)
    fig.update_yaxes(type="log", title={"text": text.variance.format(n=demo.n_samples)}, **ticks)
    legend = {"x": 0.02, "y": 0.98, "bgcolor": "rgba(255,255,255,0.85)", "bordercolor": "#cccccc", "borderwidth": 1}
    return finish(fig, 440, grid=True, legend=legend)


def softmax_figure(demo: ScalingDemo, text: ScalingText = ScalingText()) -> go.Figure:
    """One query's weights over N_KEYS random keys: unscaled (near one-hot at large d_k) vs scaled."""
    keys = [str(j) for j in range(len(demo.scores))]
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, subplot_titles=(text.unscaled, text.scaled), horizontal_spacing=0.06)
    for col, (scores, color) in enumerate(((demo.scores, QUALITATIVE[5]), (demo.scores / np.sqrt(demo.d_k), QUALITATIVE[0])), 1):
        weights = softmax(scores)
        fig.add_bar(
            x=keys,
            y=weights,
            marker={"color": color},
            text=[f"{w:.2f}" for w in weights],
            textposition="outside",
            textfont={"size": 14},
            showlegend=False,
            row=1,
            col=col,
        )
        fig.update_xaxes(title={"text": text.key}, row=1, col=col)
    fig.update_yaxes(range=[0, 1.15], row=1, col=2)
    fig.update_yaxes(range=[0, 1.15], title={"text": text.weight}, row=1, col=1)
    return finish(fig, 400, top=40, grid=True)
