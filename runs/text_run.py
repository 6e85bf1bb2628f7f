"""Running a model on one text, once: tokenize, truncate, decode (or teacher-force), capture → TraceData."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hook_names import attention_hooks
from runs.model_ref import is_untrained
from transformer.checkpoint import ModelBundle
from transformer.checkpoint import attention_kinds as attention_kinds  # the one rule, for views/ (no transformer import there)
from transformer.decoding import trace_text
from transformer.interventions import InterventionSpec, build_interventions
from viz.trace import TraceData


def run_text(
    bundle: ModelBundle,
    text: str,
    names: Iterable[str] | None = None,
    interventions: Sequence[InterventionSpec] = (),
) -> TraceData:
    """Run `bundle` on `text` and record `names` (None: every hook point), under `interventions`.

    A trained model decodes greedily, then one teacher-forced pass over its output is captured. An
    untrained model is teacher-forced on the text instead (`trace_text(generate=False)`): what it
    would generate is noise, and generating it cost a minute at 512 tokens on the base config
    (before the key/value cache, every step reran the decoder over the whole prefix), where one teacher-forced pass takes 0.4 s
    and shows the decoder's attention over the user's own words. The result keeps token ids.
    """
    trace = trace_text(
        bundle, text, names=names, interventions=build_interventions(interventions), generate=not is_untrained(bundle)
    )
    return TraceData.from_trace(trace)


def attention_names(bundle: ModelBundle, hooks: Sequence[str] = ("hook_pattern",)) -> tuple[str, ...]:
    """Hook names of every attention module's `hooks` (e.g. all patterns), for `run_text(names=...)`."""
    return attention_hooks(bundle.model.hook_names, tuple(hooks))
