"""Cached runs of the Masks page's experiments, in the same byte-bounded cache as every run (`ui.models`).

The causal experiment is cached per (model, text, target, lifted layers); a model's head-importance
table per model (reading it hashes the weights, so it is done once). The ablation default reuses
`get_trace`, so checking a head the user later picks costs nothing twice.
"""

from __future__ import annotations

from runs.byte_cache import byte_cached, shared_cache
from runs.causal_view import run_causal
from runs.experiments import AblationDefault, ablation_candidates, telling_head
from runs.text_run import attention_kinds
from transformer.causal import CausalExperiment
from ui.head_importance import stored_table
from ui.models import get_bundle, get_trace
from viz.trace import TraceData


@byte_cached(shared_cache())
def get_causal(model_key: str, text: str, target: str, layers: tuple[int, ...] | None) -> CausalExperiment:
    """`runs.causal_view.run_causal`, cached per arguments."""
    return run_causal(get_bundle(model_key), text, target, layers)


def ablation_default(model_key: str, text: str, baseline: TraceData) -> AblationDefault:
    """A head whose removal changes this text's output, tried in the importance table's order until one does
    (`runs.experiments.telling_head`: at most one cached run per head, about a second for 24 heads)."""
    bundle = get_bundle(model_key)
    candidates = ablation_candidates(stored_table(model_key), attention_kinds(bundle))
    return telling_head(candidates, baseline, lambda spec: get_trace(model_key, text, names=(), interventions=(spec,)))
