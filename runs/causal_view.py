"""The Masks page's causal experiment: which target the decoder reads, and what the run says.

`transformer.probes.causal.causal_experiment` lifts the decoder's causal mask twice over: during greedy
generation (where the newest position is the last one, so there is nothing later to look at and
the output normally stays the same) and in one teacher-forced pass over a whole target (where
every row could now read the token it is meant to predict). The teacher-forced pass needs a
target; this file picks the most honest one and says which it is:

- the task's right answer for the text (`runs.reference`), when the task has one;
- otherwise the model's own greedy output (a trained model with no task, or a text outside its
  grammar), which is what the decoder read in the page's run anyway;
- an untrained model is not generated at all (its tokens would be noise): it reads the text itself,
  as its page run does (`trace_text(generate=False)`);
- a decoder-only model reads its own input: <bos> + the text (+ its continuation when trained).
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.model_ref import is_untrained
from runs.reference import check_reference, model_task
from transformer.probes.causal import CausalExperiment, causal_experiment
from transformer.storage.checkpoint import ModelBundle
from viz.trace import TraceData

TARGET_SOURCES = ("reference", "own_output", "text")


@dataclass(frozen=True)
class CausalTarget:
    """The target of the teacher-forced pass and where it comes from.

    `source`: "reference" (the task's right answer), "own_output" (the model's greedy output) or
    "text" (an untrained or decoder-only model's own input). `why` says why there is no reference:
    "no_task", "unknown" (the text has symbols the model does not know), "out_of_grammar", or ""
    (there is one, or the model reads its own input).
    """

    text: str
    source: str
    why: str = ""


def causal_target(bundle: ModelBundle, trace: TraceData) -> CausalTarget | None:
    """The target for `trace`'s text (the page's run of it); None when there is nothing to read
    (the model wrote nothing)."""
    target = bundle.target_tokenizer
    read = target.decode(list(trace.tgt_ids[1:]))  # what the run's decoder read after <bos>
    if is_untrained(bundle):
        return CausalTarget(read, "text") if read.strip() else None
    if not bundle.config.is_encoder_decoder:
        return CausalTarget(read, "text") if read.strip() else None
    check = check_reference(bundle, trace)
    if check is not None and check.expected:
        return CausalTarget(check.expected, "reference")
    if not read.strip():
        return None
    if model_task(bundle) is None:
        why = "no_task"
    elif trace.unknown:  # symbols the model does not know: it read <unk>, so no answer is judged
        why = "unknown"
    else:
        why = "out_of_grammar"
    return CausalTarget(read, "own_output", why)


def run_causal(bundle: ModelBundle, text: str, target: str, layers: tuple[int, ...] | None) -> CausalExperiment:
    """`causal_experiment` with the mask lifted in `layers` (None: every decoder layer); an untrained
    model is only teacher-forced (`generate=False`)."""
    return causal_experiment(bundle, text, target, layers, generate=not is_untrained(bundle))


@dataclass(frozen=True)
class CausalSummary:
    """The numbers the page states about one teacher-forced pass, all counted from the run."""

    positions: int  # decoder rows (<bos> + target: one per token to predict, <eos> included)
    changed: int  # rows whose predicted token differs without the mask
    looking_ahead: int  # rows that put weight on later positions without the mask
    right_with_mask: int  # rows predicting the target's next token with the mask
    right_without_mask: int
    max_future_weight: float  # the largest weight any lifted head puts on later positions


def summarize(experiment: CausalExperiment) -> CausalSummary:
    rows = experiment.positions
    return CausalSummary(
        positions=len(rows),
        changed=experiment.n_changed,
        looking_ahead=len(experiment.looking_ahead),
        right_with_mask=sum(p.right_with_mask for p in rows),
        right_without_mask=sum(p.right_without_mask for p in rows),
        max_future_weight=max((p.future_weight for p in rows), default=0.0),
    )
