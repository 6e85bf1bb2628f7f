"""Running a model on one text, once: tokenize, truncate, decode (or teacher-force), capture → TraceData."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hook_names import GENERATOR, attention_hooks, parse
from runs.model_ref import is_untrained
from transformer.engine.decoding import new_token_budget, trace_text
from transformer.engine.precision import EXACT, FAST, Precision, large_work, native_bfloat16
from transformer.interventions import InterventionSpec, build_interventions
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.checkpoint import attention_kinds as attention_kinds  # the one rule, for views/
from transformer.text.reading import read_text
from viz.trace import TraceData


def run_text(
    bundle: ModelBundle,
    text: str,
    names: Iterable[str] | None = None,
    interventions: Sequence[InterventionSpec] = (),
    exact: bool = False,
) -> TraceData:
    """Run `bundle` on `text` and record `names` (None: every hook point), under `interventions`, in float32, or in
    bfloat16 where `run_precision` allows it and the reader did not ask for `exact` arithmetic.

    A trained model decodes greedily, then one teacher-forced pass over its output is captured. An
    untrained model is teacher-forced on the text instead (`trace_text(generate=False)`): what it
    would generate is noise, and generating it cost a minute at 512 tokens on the base config
    (before the key/value cache, every step reran the decoder over the whole prefix), where one teacher-forced pass takes 0.4 s
    and shows the decoder's attention over the user's own words. The result keeps token ids.
    """
    names = None if names is None else tuple(names)
    trace = trace_text(
        bundle,
        text,
        names=names,
        interventions=build_interventions(interventions),
        generate=not is_untrained(bundle),
        precision=EXACT if exact else run_precision(bundle, text, names),
    )
    return TraceData.from_trace(trace)


FAST_HOOKS = frozenset({"pattern", "mask"})
"""What a bfloat16 run may record: attention weights and masks, numbers a page shows. Queries, keys, scores and the
residual stream are what the lesson and the step-by-step page check against one another (q·kᵀ/√d_k against the
scores, the weighted sum against z), and those identities hold in float32 only."""


def run_precision(bundle: ModelBundle, text: str, names: tuple[str, ...] | None) -> Precision:
    """bfloat16 for a run that records at most attention weights (`FAST_HOOKS`) of a model whose float32 run on
    this text is long (`transformer.engine.precision.large_work`: parameters × positions), on a CPU that multiplies
    bfloat16 natively; float32 otherwise (every shipped model, every short text, every page that checks numbers)."""
    if names is None or not may_run_fast(bundle):
        return EXACT  # checked before tokenizing: most runs stop here
    if any(parse(name).hook not in FAST_HOOKS for name in names):
        return EXACT
    return FAST if large_work(bundle.config.estimated_parameters(), _positions(bundle, text)) else EXACT


def may_run_fast(bundle: ModelBundle) -> bool:
    """Whether some input of `bundle` could run in bfloat16 here: a model large enough at its longest input, on a
    CPU that multiplies bfloat16 natively (the sidebar offers the exact-arithmetic switch for such a model)."""
    return native_bfloat16() and large_work(bundle.config.estimated_parameters(), bundle.config.max_len)


def _positions(bundle: ModelBundle, text: str) -> int:
    """About the positions a run of `text` computes: its tokens and a special (at most `max_len`), twice for an
    encoder-decoder model (a translation is about as long as its source; a prompt's continuation is short)."""
    config = bundle.config
    n = min(config.max_len, len(read_text(bundle, text.strip()).symbols) + 1)
    return n * (2 if config.is_encoder_decoder else 1)


SQUARE_HOOKS = frozenset({"scores", "mask", "pattern"})  # attention hooks of one (H, Tq, Tk) array per layer
FLOAT_BYTES = 4


def capture_bytes(bundle: ModelBundle, text: str, names: Iterable[str] | None = None) -> int:
    """About the most bytes `run_text(bundle, text, names)` records: an upper bound to make room for before it runs.

    Positions: the text's tokens and one special (at most `max_len`); a trained model's decoder also what it may
    write (`new_token_budget`; a decoder-only prompt comes first). An attention map is (H, Tq, Tk) per layer, the
    logits (T, vocabulary), any other hook (T, d) with d at most the feed-forward width.
    """
    config = bundle.config
    n = len(read_text(bundle, text.strip()).kept)
    source = n + 1
    target = source
    if not config.is_encoder_only and not is_untrained(bundle):
        prefix = 1 if config.is_encoder_decoder else n + 2  # <bos>, or <bos> + the prompt + its card's suffix
        target = min(config.max_len, prefix + new_token_budget(config, n))
    width = max(config.d_model, config.d_ff)
    total = 0
    for name in bundle.model.hook_names if names is None else names:
        hook = parse(name)
        rows = source if hook.stack == "encoder" else target
        if hook.kind is not None and hook.hook in SQUARE_HOOKS:
            total += config.n_heads * rows * (source if hook.kind == "cross" else rows)
        else:
            total += rows * (config.tgt_vocab_size if name.startswith(GENERATOR) else width)
    return total * FLOAT_BYTES


def attention_names(bundle: ModelBundle, hooks: Sequence[str] = ("hook_pattern",)) -> tuple[str, ...]:
    """Hook names of every attention module's `hooks` (e.g. all patterns), for `run_text(names=...)`."""
    return attention_hooks(bundle.model.hook_names, tuple(hooks))
