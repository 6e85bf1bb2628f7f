"""What the head-detectors section says under each grid: chosen by this model's scores and its card.

Issue 39 §3: on the trained `en-zh` the heads page opened on its alignment head (54 %, from its card) while the
detectors further down said "typical of untrained weights" and "this model has no task with a known word
alignment". Both were general sentences written for one case. Now:

- when no head reaches the marking threshold, the section names the highest score it did measure (its head and
  value), and says "untrained" only of a model that is (`is_untrained`);
- under cross-attention, source alignment is either measured here (a task whose examples carry an alignment),
  or read from the card that names the model's alignment head (a natural translator, measured against a
  dictionary when it was trained: the same head and number the heads page opens on, `runs.heads.opening`), or,
  only when neither exists, said to be unknown.
"""

from __future__ import annotations

import numpy as np

from runs.claim import Claim
from runs.head_detectors import DetectorTable
from runs.heads import card_alignment_head, card_alignment_score
from runs.model_ref import is_untrained
from transformer.probes.head_scores import HeadScores
from transformer.storage.checkpoint import ModelBundle


def highest(scores: HeadScores) -> tuple[str, int, int, float]:
    """(score name, layer, head, value) of the highest score any head reached (NaN never counts)."""
    if np.isnan(scores.scores).all():
        return scores.names[0], 0, 0, float("nan")
    s, layer, head = np.unravel_index(np.nanargmax(scores.scores), scores.scores.shape)
    return scores.names[int(s)], int(layer), int(head), float(scores.scores[s, layer, head])


def none_marked_claim(bundle: ModelBundle, scores: HeadScores) -> Claim:
    """When no head is marked: which head came closest, and that the weights are random only if they are."""
    name, layer, head, value = highest(scores)
    key = "detectors.none_marked_untrained" if is_untrained(bundle) else "detectors.none_marked"
    return Claim(key, {"name": name, "layer": layer, "head": head, "score": value})


def alignment_claim(bundle: ModelBundle, table: DetectorTable) -> Claim:
    """Where the cross-attention tab's source alignment comes from (layer and head stay 0-based here)."""
    if table.alignment_examples:
        return Claim("detectors.alignment_measured", {"n": table.alignment_examples})
    named, score = card_alignment_head(bundle), card_alignment_score(bundle)
    attention = bundle.card.get("attention") if isinstance(bundle.card, dict) else None
    examples = attention.get("n_examples") if isinstance(attention, dict) else None
    if named is not None and score is not None and isinstance(examples, int) and examples > 0:
        return Claim("detectors.alignment_card", {"layer": named[0], "head": named[1], "score": score, "n": examples})
    return Claim("detectors.no_alignment")
