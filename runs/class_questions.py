"""What a class answers on each lesson step: choices built from the step's own numbers, and the truth.

The lesson asks before it reveals (`runs.lesson`); in class mode every student answers on their own
screen. The choices come from the same step record (`runs.lesson_numbers`) the Reveal shows, so they
follow the class's sentence and model: the sentence's tokens for "which word will it read most?", yes /
no where the model decides, ranges around a measured number, or a number to type where the answer is a
count. Nothing is written down in advance; a test changes the sentence and checks the truth follows.

A choice's `code` is what the class store keeps (language-neutral, at most a few characters); its
label is shown as it is (a token, a range) or, when `literal` is False, looked up in the catalog
`classroom.opt_<label>` by the page. No Streamlit here.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from runs.lesson_numbers import (
    ArchitectureNumbers,
    AttentionNumbers,
    CrossNumbers,
    EmbeddingNumbers,
    FeedForwardNumbers,
    HeadsNumbers,
    LayerNormNumbers,
    MaskNumbers,
    PositionalNumbers,
    RecapNumbers,
    ScalingNumbers,
    TaskNumbers,
    WhyAttentionNumbers,
)
from viz.trace import TraceData

MAX_CHOICES = 8  # a phone shows eight tokens without scrolling
NUMBER_MAX = 1_000_000  # the largest number a student may type (counts of steps, heads)


@dataclass(frozen=True)
class Choice:
    code: str  # what the store keeps: "t5" (token 5), "r2" (the third range), "yes"
    label: str  # a token or a range as shown, or (literal=False) a catalog name: classroom.opt_<label>
    literal: bool = True


@dataclass(frozen=True)
class ClassQuestion:
    """One step's question for the class. No `choices`: the answer is a whole number typed in (`truth`
    is it, as text); else `truth` is the right choice's code. `prompt` names what is asked
    (classroom.prompt_<prompt>): the lesson's own question stays above it."""

    step: str
    prompt: str
    truth: str
    choices: tuple[Choice, ...] = ()

    @property
    def is_number(self) -> bool:
        return not self.choices

    def correct(self, answer: str | None) -> bool:
        return answer == self.truth

    def normalize(self, raw: object) -> str | None:
        """An answer as the store keeps it: a known choice's code, or a whole number in 0 … NUMBER_MAX as
        text ("007" → "7"); None for anything else (the page refuses it before the store sees it)."""
        if not isinstance(raw, str | int | float) or isinstance(raw, bool) or len(str(raw)) > 32:
            return None
        if not self.is_number:
            return raw if isinstance(raw, str) and raw in {c.code for c in self.choices} else None
        try:
            value = float(raw)
        except (TypeError, ValueError):
            return None
        if not 0 <= value <= NUMBER_MAX or value != int(value):  # NaN fails the first test, ±inf too
            return None
        return str(int(value))


def named(*codes: str) -> tuple[Choice, ...]:
    """Choices whose labels are catalog names (classroom.opt_<code>): yes / no, "the output changes"."""
    return tuple(Choice(code, code, literal=False) for code in codes)


def yes_no(step: str, truth: bool | None) -> ClassQuestion | None:
    """A yes / no question, or None when the model gives no answer to compare with."""
    if truth is None:
        return None
    return ClassQuestion(step, "choose", "yes" if truth else "no", named("yes", "no"))


def token_choices(tokens: Sequence[str], truth: int, limit: int = MAX_CHOICES) -> tuple[tuple[Choice, ...], str]:
    """(choices, truth's code): the sentence's distinct tokens in sentence order, at most `limit` of them,
    the truth always among them (a long sentence keeps evenly spaced others). A token that repeats is one
    choice, coded by its first position, so "the" is right wherever "the" was read."""
    first: dict[str, int] = {}
    for i, token in enumerate(tokens):
        first.setdefault(token, i)
    positions = sorted(first.values())
    truth_pos = first[tokens[truth]]
    others = [p for p in positions if p != truth_pos]
    if len(others) > limit - 1:
        step = len(others) / (limit - 1)
        others = [others[int(k * step)] for k in range(limit - 1)]
    kept = sorted({truth_pos, *others})
    return tuple(Choice(f"t{p}", tokens[p]) for p in kept), f"t{truth_pos}"


def range_choices(value: float, edges: Sequence[float], digits: int = 2) -> tuple[tuple[Choice, ...], str]:
    """(choices, truth's code): the ranges `edges` cut the number line into ("< 1", "1 – 3", …, "≥ 30"),
    and the one `value` falls in."""

    def fmt(x: float) -> str:
        return f"{x:.{digits}g}"

    labels = [f"< {fmt(edges[0])}"]
    labels += [f"{fmt(a)} – {fmt(b)}" for a, b in itertools.pairwise(edges)]
    labels.append(f"≥ {fmt(edges[-1])}")
    index = sum(value >= edge for edge in edges)
    return tuple(Choice(f"r{i}", label) for i, label in enumerate(labels)), f"r{index}"


def number(step: str, prompt: str, truth: int) -> ClassQuestion:
    return ClassQuestion(step, prompt, str(int(truth)))


NORM_SIZES = (1.0, 3.0, 10.0, 30.0)  # vector lengths: the embeddings step's ranges
MAX_WEIGHTS = (0.25, 0.5, 0.75, 0.95)  # the biggest softmax weight: the scaling step's ranges


def task_question(numbers: TaskNumbers, trace: TraceData) -> ClassQuestion | None:
    return yes_no("task", numbers.correct)


def why_attention_question(numbers: WhyAttentionNumbers, trace: TraceData) -> ClassQuestion:
    return number("why_attention", "rnn_steps", numbers.rnn)


def embeddings_question(numbers: EmbeddingNumbers, trace: TraceData) -> ClassQuestion:
    choices, truth = range_choices(numbers.scaled, NORM_SIZES)
    return ClassQuestion("embeddings", "scaled_norm", truth, choices)


def positional_question(numbers: PositionalNumbers, trace: TraceData) -> ClassQuestion:
    position, last = numbers.position, numbers.positions  # positions 0 … last − 1: the table the step draws
    nearest, *tied = numbers.nearest  # positions equally alike: one of them is offered
    candidates = {nearest, numbers.farthest[0], 0, 2 * position, last // 2}
    kept = sorted(p for p in candidates - {position, *tied} if 0 <= p < last)
    return ClassQuestion("positional", "nearest", f"p{nearest}", tuple(Choice(f"p{p}", str(p)) for p in kept))


def attention_question(numbers: AttentionNumbers, trace: TraceData) -> ClassQuestion:
    tokens = trace.key_tokens(numbers.kind)
    choices, truth = token_choices(tokens, numbers.key_index)
    return ClassQuestion("attention", "choose", truth, choices)


def scaling_question(numbers: ScalingNumbers, trace: TraceData) -> ClassQuestion:
    choices, truth = range_choices(numbers.unscaled, MAX_WEIGHTS)
    return ClassQuestion("scaling", "unscaled_weight", truth, choices)


def heads_question(numbers: HeadsNumbers, trace: TraceData) -> ClassQuestion:
    truth = "changes" if numbers.before != numbers.after else "same"
    return ClassQuestion("heads", "choose", truth, named("changes", "same"))


LN_SETTLED = 0.05  # a mean within this of 0, a spread within this of 1: what LayerNorm promises


def layernorm_question(numbers: LayerNormNumbers, trace: TraceData) -> ClassQuestion:
    """What the first norm leaves of each token's mean and spread, from the run's numbers: LayerNorm's mean and
    standard deviation, or, on an RMSNorm model, its mean and root mean square (`rmsnorm_question`)."""
    if numbers.norm == "rmsnorm":
        return rmsnorm_question(numbers)
    centred = numbers.out_mean < LN_SETTLED
    unit = abs(numbers.out_std_min - 1) < LN_SETTLED and abs(numbers.out_std_max - 1) < LN_SETTLED
    truth = {(True, True): "mean0_std1", (True, False): "mean0", (False, True): "std1", (False, False): "unchanged"}[
        (centred, unit)
    ]
    return ClassQuestion("layernorm", "choose", truth, named("mean0_std1", "mean0", "std1", "unchanged"))


RMS_CHOICES = ("rms1", "mean0_rms1", "mean0_only", "neither")  # classroom.opt_<code>: RMSNorm's, never "LayerNorm"


def rmsnorm_question(numbers: LayerNormNumbers) -> ClassQuestion:
    """RMSNorm divides each token's vector by its root mean square and subtracts nothing: the choices name the mean
    and the root mean square, and the truth is what this run's numbers show after it (gain removed)."""
    centred = numbers.out_mean < LN_SETTLED
    unit = abs(numbers.out_rms_min - 1) < LN_SETTLED and abs(numbers.out_rms_max - 1) < LN_SETTLED
    truth = {(True, True): "mean0_rms1", (False, True): "rms1", (True, False): "mean0_only", (False, False): "neither"}[
        (centred, unit)
    ]
    return ClassQuestion("layernorm", "choose", truth, named(*RMS_CHOICES))


def feed_forward_question(numbers: FeedForwardNumbers, trace: TraceData) -> ClassQuestion:
    truth = "ffn" if numbers.ffn_params > numbers.attn_params else "attn"
    return ClassQuestion("feed_forward", "choose", truth, named("ffn", "attn"))


def masks_question(numbers: MaskNumbers, trace: TraceData) -> ClassQuestion | None:
    return yes_no("masks", numbers.changed)


def cross_question(numbers: CrossNumbers, trace: TraceData) -> ClassQuestion:
    choices, truth = token_choices(trace.src_tokens, numbers.key)
    return ClassQuestion("cross", "choose", truth, choices)


def architecture_question(numbers: ArchitectureNumbers, trace: TraceData) -> ClassQuestion | None:
    word = numbers.word
    written = list(trace.next_tokens or trace.output_tokens)
    if not word or word not in written:
        return None  # nothing generated, or a written token the run's axes do not name
    choices, truth = token_choices(written, written.index(word))
    return ClassQuestion("architecture", "choose", truth, choices)


def recap_question(numbers: RecapNumbers, trace: TraceData) -> ClassQuestion:
    return number("recap", "heads_total", numbers.heads)
