"""The Masks page's ablation default, over the same byte-bounded run cache as every run (`ui.caches`).

A model's head-importance table is read once per model (reading it hashes the weights). The ablation
default reuses `get_trace`, so checking a head the user later picks costs nothing twice. (The causal
experiment is `ui.caches.get_masks_causal`.)
"""

from __future__ import annotations

from runs.experiments import AblationDefault, ablation_candidates, telling_head
from runs.text_run import attention_kinds
from ui.caches import get_bundle, get_stored_importance, get_trace
from viz.trace import TraceData


def ablation_default(model_key: str, text: str, baseline: TraceData) -> AblationDefault:
    """A head whose removal changes this text's output, tried in the importance table's order until one does
    (`runs.experiments.telling_head`: at most one cached run per head, about a second for 24 heads)."""
    bundle = get_bundle(model_key)
    candidates = ablation_candidates(get_stored_importance(model_key), attention_kinds(bundle))
    return telling_head(candidates, baseline, lambda spec: get_trace(model_key, text, names=(), interventions=(spec,)))
