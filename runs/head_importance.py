"""Which heads matter, for the heads page: the stored table of a shipped model, or one measured now.

A shipped model carries its head-importance table (`transformer.probes.importance`, `importance.json`,
fingerprint-checked). An untrained model has no task, hence no right output to lose; its table is
measured on demand over a fixed sample of the copy task (the right output = the input), which
shows which heads the untrained output depends on. A decoder-only model is measured on the same
sample, read as a prompt it completes (`transformer.probes.importance`: the output after the prompt).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from runs.model_ref import is_untrained
from transformer.probes.importance import HeadImportance, compute_importance, load_importance
from transformer.storage.checkpoint import ModelBundle
from transformer.tasks import get_task
from viz import head_importance

RANDOM_SAMPLE_TASK = "copy"  # the sample an untrained model's heads are ablated on (named on the page)
RANDOM_SAMPLE_SIZE = 16
RANDOM_SAMPLE_MAX_CHARS = 10  # short strings: the untrained model decodes each one greedily, once per head


def stored_importance(bundle: ModelBundle) -> HeadImportance | None:
    """A shipped model's stored table (None for random models, missing or stale tables)."""
    return None if is_untrained(bundle) else load_importance(bundle)


def measure_importance(bundle: ModelBundle, progress: Callable[[int, int], None] | None = None) -> HeadImportance:
    """Measure now: the model's own held-out sample, or for an untrained model the copy-task sample."""
    if not is_untrained(bundle):
        return compute_importance(bundle, progress=progress)
    examples = [
        e
        for e in get_task(RANDOM_SAMPLE_TASK).examples(16 * RANDOM_SAMPLE_SIZE, "heldout", 0)  # enough short ones
        if len(e.source) <= RANDOM_SAMPLE_MAX_CHARS
    ][:RANDOM_SAMPLE_SIZE]
    return compute_importance(bundle, examples=examples, progress=progress)


def kind_importance(table: HeadImportance, kind: str, n_layers: int, n_heads: int) -> head_importance.HeadImportance:
    """The (L, H) view of one attention kind's rows of `table`, for the grid marks and the figure."""
    changed = np.zeros((n_layers, n_heads), dtype=np.float32)
    drop = np.zeros((n_layers, n_heads), dtype=np.float32)
    for score in table.heads:
        if score.kind == kind and score.layer < n_layers and score.head < n_heads:
            changed[score.layer, score.head] = score.changed
            drop[score.layer, score.head] = score.logprob_drop
    return head_importance.HeadImportance(changed, drop)
