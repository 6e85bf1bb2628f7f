"""What the Masks page says about its causal experiment: each sentence chosen by this run's numbers.

Issue 39 §2: the page said that lifting the causal mask changes a generated output "rarely"; on a class's own
sentences it changed 8 of 10 (`en-zh`) and 5 of 8 (`zh-en`). A general claim about how often something happens
is only true of the sentences it was counted on, so the page no longer makes one: it says what happened on the
sentence on screen (`CausalExperiment.generation_changed`, the counts of `CausalSummary`), and what a model was
trained with only where its card records it (`card["training"]["causal_mask"]`); an untrained model is told as
untrained. Each claim is a catalog key with the numbers it rests on (`tests/runs/test_causal_claims.py` states
every one against its number on every kind of model, in both languages).
"""

from __future__ import annotations

from runs.causal_view import CausalSummary
from runs.claim import Claim
from runs.model_ref import is_untrained
from transformer.probes.causal import CausalExperiment
from transformer.storage.checkpoint import ModelBundle


def trained_with_mask(bundle: ModelBundle) -> bool | None:
    """Whether the model was trained with the decoder's causal mask, as its card records (`None`: not recorded,
    e.g. a model trained on this server or a converted checkpoint)."""
    training = bundle.card.get("training")
    recorded = training.get("causal_mask") if isinstance(training, dict) else None
    return recorded if isinstance(recorded, bool) else None


def generation_claim(experiment: CausalExperiment) -> Claim | None:
    """Whether greedy generation changed on this sentence once the mask was lifted (None: not generated)."""
    changed = experiment.generation_changed
    if changed is None:
        return None
    return Claim("masks.generation_changed" if changed else "masks.generation_unchanged")


def training_claim(bundle: ModelBundle, summary: CausalSummary) -> Claim:
    """Why the teacher-forced predictions shift (or not), with this sentence's count of changed predictions."""
    numbers = {"changed": summary.changed, "n": summary.positions}
    if is_untrained(bundle):
        return Claim("masks.causal_training_untrained", numbers)
    recorded = trained_with_mask(bundle)
    if recorded is None:
        return Claim("masks.causal_training_unrecorded", numbers)
    return Claim("masks.causal_training" if recorded else "masks.causal_training_without", numbers)
