"""What each lesson step shows, before any words: one frozen record per step.

A record holds the step's live answer (what Reveal says, what the class's question is scored by) and what
its figure draws (arrays and view-models). `runs.lesson` computes them, one call per step; the lesson page
(`ui.pages.lesson.steps`), its handout and the class's questions (`runs.class_questions`) read their fields, so a
misspelt name fails where it is written, not as a missing key on the projector. A step that does not apply
to the model (no causal mask to lift, no cross-attention) has no record: its call gives None.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from viz.embedding_scale import EmbeddingScale
from viz.layernorm import StackStats
from viz.scaling import ScalingDemo
from viz.step_by_step import StepView
from viz.tokens import TokenAxis

SAME_SIZE = 1.5  # two vector lengths within this factor of each other are "about the same size"
NEAR_CAP = 0.05  # an average probability within this of 1 − ε is "near" label smoothing's target


@dataclass(frozen=True)
class HeadChoice:
    """The attention head a step is about: its kind ("encoder", "decoder", "cross"), layer and head (0-based)."""

    kind: str
    layer: int
    head: int


@dataclass(frozen=True)
class TaskNumbers:
    """What the model wrote and whether the task's rules call it right; the figure shows what it read to write it.

    A model that writes on past the right output (no <eos>: the induction model continues its loop) is judged on
    its first tokens only: `output` is that part and `more` counts the tokens after it. The figure is the task's
    alignment, else (a real sentence pair comes without one) the card's alignment head, else nothing."""

    output: str
    more: int  # tokens written after the judged part
    correct: bool | None  # None: no right answer known
    expected: str | None  # the task's right output (a natural translator: its reference)
    heldout: bool  # the sentence and its reference were never trained on
    chrf: float | None  # a natural translator's closeness to its references
    source: tuple[str, ...]  # the figure's source tokens: the encoder's, or a decoder-only model's prompt words
    alignment: np.ndarray | None  # (T_out, T_src) 1 where output token i renders source token j
    attention: np.ndarray | None  # (T_out, T_src) the alignment head's weights, row i writing output token i
    head: HeadChoice | None  # that alignment head (with `attention`)


@dataclass(frozen=True)
class WhyAttentionNumbers:
    """Steps between the sentence's first and last word in a recurrent model (one state per position) and in
    self-attention (always 1); the figure: those steps between every pair of tokens."""

    first: str
    last: str
    rnn: int
    attention: int
    n: int  # tokens in the sentence
    tokens: tuple[str, ...]  # T: the figure's axes
    lengths: np.ndarray  # (T, T) steps a recurrent model needs to carry token j to token i: |i − j|
    raw: tuple[str, ...] = ()  # each token's raw bytes as hex ("e4 bd"; "" where the label is the text), for a hover


@dataclass(frozen=True)
class EmbeddingNumbers:
    """The mean norm of a token vector before and after × √d_model, and of a position vector; the figure: every
    token's norms."""

    raw: float
    scaled: float
    pe: float
    scale: EmbeddingScale  # the sentence's embeddings, per token: what the figure draws

    @property
    def d_model(self) -> int:
        return self.scale.d_model

    @property
    def ratio(self) -> float:
        """How many times longer the larger of the scaled token vector and the position vector is (≥ 1)."""
        big, little = max(self.scaled, self.pe), min(self.scaled, self.pe)
        return big / max(little, 1e-12)

    @property
    def balance(self) -> str:
        """Which is larger after × √d_model: "same" (within `SAME_SIZE` of each other), "word" or "position"."""
        if self.ratio <= SAME_SIZE:
            return "same"
        return "word" if self.scaled > self.pe else "position"

    @property
    def sqrt_d(self) -> float:
        return float(np.sqrt(self.d_model))


@dataclass(frozen=True)
class PositionalNumbers:
    """Which other positions' codes are most and least like `position`'s (cosine of the table's rows; equal to 3
    decimals, as shown, is a tie: every tied position is named); the figure: a few dimensions' curves."""

    position: int
    nearest: tuple[int, ...]
    farthest: tuple[int, ...]
    cos_nearest: float
    cos_farthest: float
    learned: bool  # the model learned its codes (else they are the paper's sinusoids)
    table: np.ndarray  # (P, d_model) the codes the model adds
    dims: tuple[int, ...]  # the dimensions the figure draws

    @property
    def positions(self) -> int:
        return len(self.table)

    @property
    def d_model(self) -> int:
        return int(self.table.shape[1])


@dataclass(frozen=True)
class AttentionNumbers:
    """The key the middle token attends to most in the first layer's first head (after q·k, ÷√d_k and softmax),
    with its weight; the figure: that query's scores, step by step, over at most `runs.lesson.LESSON_KEYS` keys."""

    kind: str  # the attention computed: the encoder's self-attention when there is one
    query: str  # the query token
    query_index: int
    key: str  # the key token it attends to most
    key_index: int
    weight: float
    n_keys: int
    view: StepView  # the query's numbers, clipped to a window of keys

    @property
    def first_shown(self) -> int:
        return int(self.view.keys[0])

    @property
    def last_shown(self) -> int:
        return int(self.view.keys[-1])

    @property
    def hidden_weight(self) -> float:
        """The weight on the keys outside the window the figure shows."""
        return float(self.view.hidden_weight)


@dataclass(frozen=True)
class ScalingNumbers:
    """The largest softmax weight with and without ÷√d_k at this model's d_k: a seeded demo, also the figure."""

    demo: ScalingDemo

    @property
    def d_k(self) -> int:
        return self.demo.d_k

    @property
    def unscaled(self) -> float:
        return float(self.demo.unscaled.max_weight)

    @property
    def scaled(self) -> float:
        return float(self.demo.scaled.max_weight)

    @property
    def variance(self) -> float:
        return float(self.demo.variance)


@dataclass(frozen=True)
class HeadsNumbers:
    """The output with and without one head (its output zeroed), and how many output tokens changed; the figure:
    every head of its kind, that one marked."""

    choice: HeadChoice
    from_table: bool  # chosen from the model's stored importance table (else: the sharpest head of the last layer)
    share: float | None  # (from the table) the fraction of the model's test sample whose output the head's removal changed
    tied: tuple[HeadChoice, ...]  # (from the table) the other heads whose removal changed exactly as many outputs
    before: str
    after: str
    changed: int
    patterns: np.ndarray  # (L, H, Tq, Tk) every head of the chosen kind
    marked: np.ndarray  # (L, H) True at the chosen head
    axes: tuple[TokenAxis, TokenAxis]  # (query axis, key axis)


@dataclass(frozen=True)
class LayerNormNumbers:
    """Each token's mean and standard deviation before and after the first LayerNorm (its gain and bias removed),
    extremes over the sentence's tokens, and the standard deviations with gain and bias (`affine_*`, the output
    line the figure draws)."""

    in_mean: float  # the largest |mean|
    in_std_min: float
    in_std_max: float
    out_mean: float
    out_std_min: float
    out_std_max: float
    affine_std_min: float
    affine_std_max: float
    stats: StackStats  # the stack's statistics per site and token: what the figure draws
    tokens: tuple[str, ...]  # the figure's tokens
    # the model's norm: "layernorm" (mean subtracted, then ÷ std; gain and bias) or "rmsnorm" (÷ root mean square
    # only; a gain, no bias: Llama, Qwen), and each token's root mean square before and after it (gain removed)
    norm: str = "layernorm"
    in_rms_min: float = 0.0
    in_rms_max: float = 0.0
    out_rms_min: float = 0.0
    out_rms_max: float = 0.0
    # per token (T,) each: the input's mean and root mean square, the output's (gain removed): the RMSNorm figure
    rms_series: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    raw: tuple[str, ...] = ()  # each of `tokens`' raw bytes as hex ("e4 bd"; "" where the label is the text), for a hover


@dataclass(frozen=True)
class FeedForwardNumbers:
    """The shapes through one position-wise feed-forward layer and its share of the parameters; the figure: the
    parameters per part of the model."""

    n: int  # tokens of the sentence the stack reads
    d_model: int
    d_ff: int
    ffn_params: int
    attn_params: int
    total: int
    groups: dict[str, int]  # part → parameters: feed_forward, attention, embeddings, norm

    @property
    def share(self) -> float:
        return self.ffn_params / max(self.total, 1)


@dataclass(frozen=True)
class MaskNumbers:
    """Whether lifting the decoder's causal mask changes the generated sentence (`transformer.probes.causal`); the figure:
    the mask the model applied."""

    changed: bool | None  # None: nothing was generated (an untrained model, an empty output)
    with_mask: str
    without_mask: str
    rows: int  # decoder rows whose attention changed
    n_rows: int
    looking: int  # rows that looked ahead once allowed
    mask: np.ndarray  # (k, k) layer 0's decoder self-attention mask (True = may attend), its first k ≤ 16 positions
    axes: tuple[TokenAxis, TokenAxis]  # (query axis, key axis) of those k positions
    positions: int  # the decoder's positions in all (the figure shows the first k)

    @property
    def shown(self) -> int:
        return len(self.mask)


@dataclass(frozen=True)
class CrossNumbers:
    """The decoder row whose most-read source word sits farthest from its own place, the word it writes and the
    source word it reads; the figure: the chosen cross-attention head."""

    choice: HeadChoice
    row: int
    writes: str
    reads: str
    key: int  # the source position it reads
    weight: float
    pattern: np.ndarray  # (Tq, Tk) the head's weights
    axes: tuple[TokenAxis, TokenAxis]  # (query axis, key axis)
    alignment: tuple[int | None, ...] | None  # the task's gold alignment per decoder row, outlined


@dataclass(frozen=True)
class ArchitectureNumbers:
    """The least sure token of the output and its probability; the figure: each written token's probability."""

    word: str
    p: float
    mean: float
    label_smoothing: float | None  # the card's ε (None: not known)
    probabilities: tuple[tuple[str, float], ...]  # (token, probability), in writing order
    raw: tuple[str, ...] = ()  # each of those tokens' raw bytes as hex ("e4 bd"; "" where the label is the text)

    @property
    def versus_cap(self) -> str | None:
        """Where the average probability sits against label smoothing's target 1 − ε: "near" (within `NEAR_CAP`),
        "below" or "above"; None without a known ε > 0 or an output."""
        if not self.label_smoothing or not self.probabilities:
            return None
        gap = self.mean - (1 - self.label_smoothing)
        return "near" if abs(gap) <= NEAR_CAP else "below" if gap < 0 else "above"


@dataclass(frozen=True)
class RecapNumbers:
    """The model's own numbers for the recap questions; the figure: one cell per head, a row per kind and layer."""

    choice: HeadChoice  # the head the lab link opens on
    kinds: tuple[str, ...]  # the attention kinds, in the paper's order
    n_layers: int
    n_heads: int
    d_k: int
    d_model: int
    params: int

    @property
    def heads(self) -> int:
        return len(self.kinds) * self.n_layers * self.n_heads


StepNumbers = (
    TaskNumbers
    | WhyAttentionNumbers
    | EmbeddingNumbers
    | PositionalNumbers
    | AttentionNumbers
    | ScalingNumbers
    | HeadsNumbers
    | LayerNormNumbers
    | FeedForwardNumbers
    | MaskNumbers
    | CrossNumbers
    | ArchitectureNumbers
    | RecapNumbers
)
