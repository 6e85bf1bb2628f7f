"""What kind of model is in front of the class: trained or not, on which task, with which architecture.

The lesson words every step from this description, never from a model's name, so a model added later
(a converted GPT-2, a BERT encoder, a Marian translator, one trained on the training page) gets true
wording as long as its config and card say what it is. A step that does not apply to a kind (the
causal mask of an encoder-only model, cross-attention without an encoder) is skipped with a reason.

    kind = model_kind(bundle)
    kind.trained, kind.task, kind.architecture   # True, "translation", "encoder-decoder"
    kind.label_smoothing                         # 0.1: read from the card's training settings
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.model_ref import is_untrained
from runs.reference import model_task
from transformer.storage.checkpoint import ModelBundle
from transformer.tasks import WordTask
from transformer.tasks.chars import CharTask
from transformer.tasks.corpus import NaturalTranslation
from transformer.tasks.induction import InductionTask

# The families of task a lesson tells apart. "completion": a trained model with no task whose rules
# judge its output (a language model continues any text); "encoding": a trained encoder-only model.
TASK_FAMILIES = ("translation", "reverse", "copy", "sort", "induction", "completion", "encoding")


@dataclass(frozen=True)
class ModelKind:
    """A model described by what it is. `task` is None for untrained weights (no task was learned)."""

    trained: bool
    task: str | None
    architecture: str  # "encoder-decoder", "decoder-only" or "encoder-only"
    label_smoothing: float | None = None  # the training run's ε, when the card records it
    judged: bool = False  # the task's rules know the right output for a text
    # a natural translator: right answers are human translations of the sentences its corpus holds, so a sentence
    # outside the corpus has none (the class judges), and one that differs from its reference is not simply wrong
    corpus: bool = False

    @property
    def has_encoder(self) -> bool:
        return self.architecture in ("encoder-decoder", "encoder-only")

    @property
    def has_decoder(self) -> bool:
        """A decoder stack with its causal mask (the decoder-only stack is one)."""
        return self.architecture != "encoder-only"

    @property
    def has_cross(self) -> bool:
        return self.architecture == "encoder-decoder"

    @property
    def generates(self) -> bool:
        """The model writes its output token by token (untrained models are teacher-forced instead)."""
        return self.trained and self.has_decoder

    @property
    def wording(self) -> str:
        """The catalog suffix for a step that words itself by task: the task, or "untrained"."""
        return self.task if self.trained and self.task else "untrained"


def task_family(bundle: ModelBundle) -> str | None:
    """The family of the task `bundle` was trained on (one of `TASK_FAMILIES`), None when untrained."""
    if is_untrained(bundle):
        return None
    task = model_task(bundle)
    if isinstance(task, InductionTask):
        return "induction"
    if isinstance(task, WordTask | NaturalTranslation):
        return "translation"
    if isinstance(task, CharTask) and task.name in TASK_FAMILIES:
        return task.name
    return "completion" if bundle.config.architecture != "encoder-only" else "encoding"


def label_smoothing(bundle: ModelBundle) -> float | None:
    """ε of the training run's label smoothing, from the card's training settings (None when unrecorded)."""
    training = bundle.card.get("training")
    value = training.get("label_smoothing") if isinstance(training, dict) else None
    return float(value) if isinstance(value, int | float) else None


def model_kind(bundle: ModelBundle) -> ModelKind:
    """What `bundle` is, read from its config and card."""
    family = task_family(bundle)
    task = model_task(bundle)
    judged = family is not None and task is not None
    corpus = judged and isinstance(task, NaturalTranslation)
    return ModelKind(family is not None, family, bundle.config.architecture, label_smoothing(bundle), judged, corpus)
