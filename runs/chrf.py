"""chrF (Popović, 2015): the character n-gram F-score the app shows beside a natural translation's reference.

The same definition as `sacrebleu`'s sentence-level chrF (character n-grams of orders 1-6, whitespace removed,
β = 2: recall weighs twice as much as precision), written out here so the app needs no evaluation package at run
time; `tests/runs/test_chrf.py` checks it against `sacrebleu` itself. With several references the best score counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

ORDER = 6
BETA = 2.0


def _ngrams(text: str, n: int) -> Counter[str]:
    return Counter(text[i : i + n] for i in range(len(text) - n + 1))


def chrf(hypothesis: str, reference: str) -> float:
    """Sentence chrF of `hypothesis` against one `reference`, 0-100."""
    hyp, ref = "".join(hypothesis.split()), "".join(reference.split())
    precisions, recalls = [], []
    for n in range(1, ORDER + 1):
        h, r = _ngrams(hyp, n), _ngrams(ref, n)
        if not h or not r:
            continue  # an order longer than either text says nothing (sacrebleu's effective order)
        matched = sum((h & r).values())
        precisions.append(matched / sum(h.values()))
        recalls.append(matched / sum(r.values()))
    if not precisions:
        return 0.0
    p, r = sum(precisions) / len(precisions), sum(recalls) / len(recalls)
    if p + r == 0:
        return 0.0
    return 100 * (1 + BETA**2) * p * r / (BETA**2 * p + r)


def best_chrf(hypothesis: str, references: Sequence[str]) -> float:
    """The highest chrF against any of `references` (a sentence with several translations)."""
    return max((chrf(hypothesis, reference) for reference in references), default=0.0)
