"""Is the model right? The task's own answer for the text, next to what the model said.

Every shipped model was trained on a task with rules (`transformer.tasks`): reversing a string has one
right output, and a translation grammar has one right translation for each sentence it can make. So
for any typed text the app can say whether the output is correct, and whether this exact input was
held out of training (the split is a hash of the text, so the model provably never saw it). A word
task's grammar is small: a sentence outside it has no right answer, and a translator asked for one
still answers, inventing words it never saw paired (e.g. an object for "i read"). That case gets a
warning rather than silence, so nobody mistakes the invention for a translation, with the diagnosis of
`transformer.tasks.diagnose`: which word or combination is the problem, and the nearest sentence the grammar
makes (the page offers it with one click).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from runs.chrf import best_chrf
from transformer.storage.checkpoint import ModelBundle
from transformer.tasks import CharTask, Diagnosis, Task, WordTask, diagnose, get_task
from transformer.text.prompt import prompt_format
from transformer.text.tokenizer import UNK
from transformer.training.evaluate import target_symbols
from viz.trace import TraceData


@dataclass(frozen=True)
class ReferenceCheck:
    """The task's verdict on one run."""

    expected: str | None  # the right output, or None when the task has none for this text
    correct: bool  # the model's output tokens are the right output's tokens
    heldout: bool  # the (normalised) input belongs to the held-out split: never trained on
    diagnosis: Diagnosis | None = None  # why a sentence has no right output, and the nearest one that has
    judged: int | None = None  # only the first `judged` output tokens were compared (a model that writes on with no <eos>)
    # the text has symbols the model does not know: a char task is judged on writing <unk> in their place, other
    # tasks are not judged (expected None)
    unknown: bool = False
    # A natural translator's verdict: a reference is one good translation among many, not the only right one.
    corpus: bool = False
    references: tuple[str, ...] = ()  # the corpus's translations of the input (empty: not in the corpus)
    chrf: float | None = None  # the output's best chrF against `references`


def corpus_check(task: Task, trace: TraceData) -> ReferenceCheck:
    """A corpus translator's verdict: matches one of the corpus's translations, or how close it comes (chrF).

    A sentence outside the corpus has no reference at all (`expected` None, no diagnosis): the page says
    "judge it yourself", never "wrong"; unknown characters do not change that (the output is still a translation).
    """
    references = task.references(trace.text)
    if not references:
        return ReferenceCheck(expected=None, correct=False, heldout=False, corpus=True)
    normal = [" ".join(r.split()) for r in references]
    correct = " ".join(trace.output_text.split()) in normal
    return ReferenceCheck(
        expected=references[0],
        correct=correct,
        heldout=task.is_heldout(trace.text),
        corpus=True,
        references=references,
        chrf=round(best_chrf(trace.output_text, references), 1),
    )


def model_task(bundle: ModelBundle) -> Task | None:
    """The task a model was trained on, from its card; None for untrained or unknown models."""
    try:
        return get_task(str(bundle.card.get("task", "")))
    except ValueError:
        return None


def check_reference(bundle: ModelBundle, trace: TraceData) -> ReferenceCheck | None:
    """Compare a run with the task's right answer; None when the model has no task (random weights).

    Compared token by token in the model's own target vocabulary, so spacing in the output text
    does not matter. A decoder-only model trained without <eos> (induction: an endless continuation) writes
    until the length limit, so only as many tokens as the right output has are compared, as
    `transformer.training.evaluate` does. A symbol the model does not know reads as <unk>: a character task (any text has a
    right output) is judged on writing <unk> in that symbol's place, as it was trained to ("张梓涵" → "涵<unk>张"
    for a model without 梓); other tasks do not judge it (a translator's grammar diagnoses the sentence: which words
    it lacks, and the nearest sentence it makes). A text with no right output gets a warning, never "wrong".
    """
    task = model_task(bundle)
    if task is None or not trace.text.strip():
        return None
    if hasattr(task, "references"):
        return corpus_check(task, trace)
    if trace.unknown and not isinstance(task, CharTask):  # not judged: it read <unk> where the text has a word
        # a grammar says which words it lacks and what it would accept
        return ReferenceCheck(expected=None, correct=False, heldout=False, diagnosis=diagnosis_of(task, trace.text), unknown=True)
    example = task.reference(trace.text)
    if example is None:  # no right output: a warning with the grammar's diagnosis, never "wrong"
        return ReferenceCheck(expected=None, correct=False, heldout=False, diagnosis=diagnosis_of(task, trace.text))
    target = bundle.target_tokenizer
    # what the model can write: a symbol it does not know is <unk>, in the right output's place
    expected_tokens = [s if s in target.index else UNK for s in target_symbols(target, example.target)]
    written = list(trace.output_tokens)
    fmt = prompt_format(bundle)
    judged = len(expected_tokens) if fmt is not None and not fmt.end_with_eos else None
    if judged is not None:  # it writes on with no <eos>: judged on the reference's length
        written = written[:judged]
    correct = written == expected_tokens
    return ReferenceCheck(
        expected=example.target,
        correct=correct,
        heldout=task.is_heldout(example.source),
        judged=judged,
        unknown=UNK in expected_tokens,
    )


@lru_cache(maxsize=256)
def diagnosis_of(task: Task, text: str) -> Diagnosis | None:
    """`diagnose(task, text)` for a translator's grammar (up to ~0.3 s, so remembered per text); None for tasks
    without one (character tasks give every text a right output)."""
    return diagnose(task, text) if isinstance(task, WordTask) else None
