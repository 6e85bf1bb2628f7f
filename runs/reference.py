"""Is the model right? The task's own answer for the text, next to what the model said.

Every shipped model was trained on a task with rules (`transformer.tasks`): reversing a string has one
right output, and a translation grammar has one right translation for each sentence it can make. So
for any typed text the app can say whether the output is correct, and whether this exact input was
held out of training (the split is a hash of the text, so the model provably never saw it). A word
task's grammar is small: a sentence outside it has no right answer, and a translator asked for one
still answers, inventing words it never saw paired (e.g. an object for "i read"). That case gets a
warning rather than silence, so nobody mistakes the invention for a translation.
"""

from __future__ import annotations

from dataclasses import dataclass

from transformer.checkpoint import ModelBundle
from transformer.tasks import Task, get_task, is_heldout
from viz.trace import TraceData


@dataclass(frozen=True)
class ReferenceCheck:
    """The task's verdict on one run."""

    expected: str | None  # the right output, or None when the task has none for this text
    correct: bool  # the model's output tokens are the right output's tokens
    heldout: bool  # the (normalised) input belongs to the held-out split: never trained on


def model_task(bundle: ModelBundle) -> Task | None:
    """The task a model was trained on, from its card; None for untrained or unknown models."""
    try:
        return get_task(str(bundle.card.get("task", "")))
    except ValueError:
        return None


def check_reference(bundle: ModelBundle, trace: TraceData) -> ReferenceCheck | None:
    """Compare a run with the task's right answer; None when the model has no task (random weights).

    Compared token by token in the model's own target vocabulary, so spacing in the output text
    does not matter. Inputs with symbols the model does not know are not judged: it read <unk>.
    """
    task = model_task(bundle)
    if task is None or trace.unknown or not trace.text.strip():
        return None
    example = task.reference(trace.text)
    if example is None:
        return ReferenceCheck(expected=None, correct=False, heldout=False)
    expected_tokens = bundle.target_tokenizer.tokenize(example.target)
    return ReferenceCheck(expected=example.target, correct=list(trace.output_tokens) == list(expected_tokens),
                          heldout=is_heldout(example.source))
