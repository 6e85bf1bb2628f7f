"""Every cache a page reads, in one place: thin Streamlit-side caches over the run layer (`runs/`).

Models are loaded once, shared by every session, never mutated (interventions are per call). Runs
are cached too, as read-only `TraceData`, keyed by model key, text, the hook names a page needs and
the interventions — so changing which head is shown never reruns a model, and 30 students typing
the same sentence run it once. The caches are bounded by bytes (`runs.byte_cache`), not by count:
a run of the base config at 512 tokens holds ~150 MB, so 48 cached runs could fill a laptop
mid-lesson (benchmarks/README.md §9). Each function here only picks the cache; the work is in `runs/`.
The model key is `runs.model_ref.ModelRef.key`, the string the URL carries.

What each cache keys on (→) and what bounds it. "Shared": the process's one byte cache for runs and all
derived from them (`runs.byte_cache.shared_cache`: `ATLAS_CACHE_BYTES`, default 1 GiB, least recently used
first), so one budget bounds them all.

- `get_bundle` → model key; its own byte cache of weights ("models", the same `ATLAS_CACHE_BYTES` budget).
- `_trace` (what `get_trace` reads) → model key, text, hook names, interventions, and whether the reader asked
  for exact arithmetic (`ui.precision`); shared; at most `ATLAS_MODEL_RUNS` (default 2) model runs at once across
  sessions.
- `get_batch_row`, `get_padded_batch` → model key, sentences (, row), hook names; shared.
- `get_grid_figure`, `get_head_summary`, `get_rollout` → the run (model key, text), kind and the figure's
  choices and words (the trace itself is left out of the key); shared.
- `get_masks_causal` → model key, text, target, lifted layers; shared.
- `get_layernorm_network`, `get_layernorm_contrast` → model key, text or sentences, stack or hook; shared.
- `get_pe_sinusoids`, `get_pe_relative` → d_model, positions (, offset); shared.
- `get_lesson_step` → model key, text, step; shared.
- `get_output_steps` → model key, text, sampling settings, steps, k; shared.
- `get_feed_forward` → model key, text; shared.
- `get_detectors` → model key only (a fixed random sequence, not the text); shared.
- `get_stored_importance` → model key (reading a shipped table hashes the weights); shared.
- `get_shipped_film_scores` → a shipped model's name; `st.cache_resource`, 16 entries.

The `get_<page>` functions without a decorator (`get_heads_page`, `get_step_run`, `get_masks_batch`, …) are
cheap past the cached runs they read, so they are not cached themselves.

Some caches stay beside the code they serve, because they hold what that code draws in one language, a
connection or a process-wide counter, not numbers from `runs/`: the heads page's figures
(`ui.pages.heads.detectors._scores_figure`, `ui.pages.heads.importance._stored_figure`: model key, kind and the
figure's words; 64 entries each), a lesson step's words and figure (`ui.pages.lesson.shared_steps._shared_step`:
model key, text, step, language; every step in both languages for 16 model-and-sentence pairs), the class store's
connection (`ui.pages.lesson.class_mode._store`: its folder) and the process's limit on joins and code guesses
(`ui.pages.lesson.class_mode._join_limiter`: its two settings; it bounds the addresses it counts itself), and the
one tiny figure a class page draws off the screen (`ui.chart_warmup._tiny_figure`: no arguments, one entry). The
corpus pages keep theirs in `ui.atlas_data`: a shipped model's stored atlas (`ui.atlas_data.get_stored_atlas`: model key, 16
entries, a file read once) and the map of queries and keys (`ui.atlas_data.get_qk_map`: model key, sentences, head and the user's
sentence; 16 entries). `tests/ui/test_caches.py` holds this list to the code.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from runs import (
    architecture_page,
    feed_forward,
    head_detectors,
    head_importance,
    heads,
    heads_page,
    layernorm_page,
    lesson,
    masks_page,
    output,
    positional_page,
    run_worker,
    sentence_batch,
    step_page,
    teaching_arrays,
)
from runs.byte_cache import ByteCache, budget_from_env, byte_cached, shared_cache
from runs.feed_forward import FeedForwardRun
from runs.head_detectors import DetectorTable
from runs.memory import freeze_imported_objects, freezing_new_imports, keep_freed_memory, return_freed_memory
from runs.model_ref import ModelRef, load_bundle, shipped_models
from runs.output import OutputSteps, SamplingSettings
from runs.text_run import attention_names, capture_bytes, run_text
from runs.training.film_scores import FilmScores
from runs.training.films import shipped_film_scores
from transformer.interventions import InterventionSpec
from transformer.probes.head_scores import HeadScores
from transformer.probes.importance import HeadImportance
from transformer.storage.checkpoint import ModelBundle
from ui.precision import exact_requested
from viz.batchnorm_contrast import PaddedBatch
from viz.head_grid import GridText
from viz.relative_position import RelativeCheck
from viz.step_by_step import step_hook_names
from viz.trace import TraceData

keep_freed_memory()  # captured runs then reuse freed heap memory instead of page-faulting fresh pages
freeze_imported_objects()  # once per process (this module is imported once): collections skip torch's objects

_MODELS = ByteCache(
    budget=budget_from_env(),
    name="models",
    sizeof=lambda bundle: sum(t.nbytes for t in bundle.model.state_dict().values()),
    keep_last=True,  # a model over the budget stays loaded (alone) rather than loading again on every rerun
)

# Model runs at once across sessions (`ATLAS_MODEL_RUNS`, default 2: one per core). Thirty students pressing
# Enter together otherwise run thirty decoders at once, their Python halves fighting for the GIL: the model
# run was 64 % of the server's CPU and twice its cost when the same sentences came spread out (benchmarks §8).
_MODEL_RUNS = threading.BoundedSemaphore(max(1, int(os.environ.get("ATLAS_MODEL_RUNS", "2"))))
_WORKER = run_worker.RunWorker()  # the process's one worker for a class's model runs (`note_session` starts it)
LARGE_RUN_BYTES = 64 << 20  # a run recording this much first lets the last such run go (`release_for`)
LARGE_RESULT_BYTES = 8 << 20
"""Cached results a large run lets go with the other large runs (`release_for`): what was computed from them, such
as a 1,024-token rollout (50 MB), which otherwise stayed until the budget was full (six GPT-2-sized texts in one
session took the server from 1.9 to 2.1 GB). A shipped model's results are kilobytes; its runs stay."""

Run = tuple[str, str]  # (model key, text): identifies a cached `get_trace` result in the per-run caches below


@byte_cached(_MODELS)
def get_bundle(model_key: str) -> ModelBundle:
    """A shipped model by name, or a random one by `ModelRef.random(...).key`; loaded once per process. What a
    load imports (`transformers`, for a converted checkpoint) is frozen out of later collections' way
    (`runs.memory.freezing_new_imports`)."""
    with freezing_new_imports():
        return load_bundle(ModelRef.parse(model_key))


def note_session() -> None:
    """Every page's first call (`ui.page.start_page`): tell the model-run worker which session opened a page (a
    second session starts it: `runs.run_worker`)."""
    context = get_script_run_ctx()
    if context is not None:
        _WORKER.note_session(context.session_id)


def working(message: str, fn: Callable[..., object], *args: object) -> contextlib.AbstractContextManager[object]:
    """`st.spinner(message)` around `fn(*args)` about to compute, nothing around a call its cache answers
    (`byte_cached`'s `is_cached`; a function without one gets the spinner): a spinner starts a thread, and in a
    class's burst of reruns each start waited its turn for the interpreter (the model picker's spinner around a
    loaded model was 1.5 % of the burst)."""
    is_cached = getattr(fn, "is_cached", None)
    return contextlib.nullcontext() if is_cached is not None and is_cached(*args) else st.spinner(message)


def release_for(nbytes: int) -> None:
    """Make room for a run about to record `nbytes`: in the shared cache (`ByteCache.make_room`) and, for a large
    run, in the process.

    A large run first lets every other large run go, and every large result computed from one (`ByteCache.drop_large`
    from `LARGE_RESULT_BYTES`: one at a time, whatever the budget would allow; the issue's "bound what is cached").
    A page's previous run can still be reachable only from
    garbage cycles (the last rerun's script globals, kept by its widgets' callbacks), which no collection may
    visit for minutes, since NumPy's buffers do not count towards the collector's thresholds: collected now, the
    old run's arrays are gone before the new one's are allocated (a GPT-2-sized run at 1,024 tokens records 604 MB,
    302 MB in float16). The heap's free pages then go back to the kernel (`return_freed_memory`)."""
    if nbytes < LARGE_RUN_BYTES:
        shared_cache().make_room(nbytes)
        return
    shared_cache().drop_large(LARGE_RESULT_BYTES)
    shared_cache().make_room(nbytes)
    gc.collect()
    return_freed_memory()


def get_trace(
    model_key: str,
    text: str,
    names: tuple[str, ...] | None = None,
    interventions: tuple[InterventionSpec, ...] = (),
) -> TraceData:
    """`runs.text_run.run_text`, cached per arguments and per the reader's choice of exact arithmetic
    (`ui.precision`: a large model's long input otherwise multiplies in bfloat16)."""
    return _trace(model_key, text, names, interventions, exact_requested())


@byte_cached(shared_cache())
def _trace(
    model_key: str, text: str, names: tuple[str, ...] | None, interventions: tuple[InterventionSpec, ...], exact: bool
) -> TraceData:
    """`get_trace`'s run: at most `ATLAS_MODEL_RUNS` at once in this process, and once a class is here the small
    ones of models loadable by name go to the worker process (`runs.run_worker`, started by `note_session`). Room
    for what it records is made in the cache first (`ByteCache.make_room`): the run and the cache share one budget."""
    bundle = get_bundle(model_key)
    nbytes = capture_bytes(bundle, text, names)
    release_for(nbytes)
    if run_worker.takes(ModelRef.parse(model_key), shipped_models(), nbytes):
        trace = _WORKER.run(model_key, text, names, interventions, exact)
        if trace is not None:
            return trace
    with _MODEL_RUNS:
        return run_text(bundle, text, names=names, interventions=interventions, exact=exact)


@byte_cached(shared_cache())
def get_batch_row(model_key: str, sentences: tuple[str, ...], row: int, names: tuple[str, ...]) -> TraceData:
    """`runs.sentence_batch.batch_row` over the sentences' cached runs."""
    traces = [get_trace(model_key, sentence, names=()) for sentence in sentences]
    return sentence_batch.batch_row(get_bundle(model_key), traces, row, names)


@byte_cached(shared_cache())
def get_padded_batch(model_key: str, texts: tuple[str, ...], names: tuple[str, ...]) -> dict[str, PaddedBatch]:
    """`runs.teaching_arrays.padded_batch`, cached per arguments."""
    return teaching_arrays.padded_batch(get_bundle(model_key), texts, names)


@byte_cached(shared_cache())
def get_grid_figure(
    run: Run,
    kind: str,
    layers: range,
    min_stride: int,
    text: GridText,
    _trace: TraceData,
    *,
    stretch: bool = False,
    marks: heads.GridMarks = heads.NO_MARKS,
) -> go.Figure:
    """`runs.heads.kind_grid`, cached per run (the trace is the one `get_trace` returned for `run`)."""
    return heads.kind_grid(_trace, kind, layers, min_stride, text, stretch=stretch, marks=marks)


@byte_cached(shared_cache())
def get_head_summary(run: Run, kind: str, _trace: TraceData, alignment: tuple[int | None, ...] | None = None) -> HeadScores:
    return heads.head_summary(_trace, kind, alignment)


@byte_cached(shared_cache())
def get_rollout(run: Run, kind: str, _trace: TraceData) -> np.ndarray:
    return heads.rollout_of(_trace, kind)  # (L, T, T)


def get_heads_page(model_key: str, text: str, table: HeadImportance | None) -> heads_page.HeadsPage:
    """`runs.heads_page.heads_page` over the cached run. Not cached itself: past the run it is the grid plan,
    the gold alignment and the opening head (well under a millisecond); the parts that cost are cached above."""
    bundle = get_bundle(model_key)
    return heads_page.heads_page(bundle, get_trace(model_key, text, attention_names(bundle)), table)


def get_step_run(model_key: str, text: str, kind: str, layer: int) -> step_page.StepRun:
    """`runs.step_page.step_run` over the cached run of one attention module (the query picker's options)."""
    return step_page.step_run(get_bundle(model_key), get_trace(model_key, text, step_hook_names(kind, layer)), kind, layer)


def get_masks_batch(model_key: str, sentences: tuple[str, ...]) -> masks_page.MasksBatch:
    """`runs.masks_page.masks_batch` over the sentences' cached runs (the masks themselves take microseconds)."""
    return masks_page.masks_batch(get_bundle(model_key), [get_trace(model_key, s, names=()) for s in sentences])


def get_masks_sentence(
    model_key: str, batch: masks_page.MasksBatch, sentences: tuple[str, ...], row: int, names: tuple[str, ...]
) -> masks_page.MasksSentence:
    """`runs.masks_page.masks_sentence` over the cached batch row and the sentence's cached run."""
    scores = get_batch_row(model_key, sentences, row, names)
    before = get_trace(model_key, sentences[row], names=names)
    return masks_page.masks_sentence(get_bundle(model_key), batch, row, scores, before)


@byte_cached(shared_cache())
def get_masks_causal(model_key: str, text: str, target: str, layers: tuple[int, ...] | None) -> masks_page.MasksCausal:
    """`runs.masks_page.masks_causal`, cached per arguments."""
    return masks_page.masks_causal(get_bundle(model_key), text, target, layers)


@byte_cached(shared_cache())
def get_layernorm_network(model_key: str, text: str, stack: str) -> layernorm_page.NetworkView:
    """`runs.layernorm_page.network` of one stack: the stack that reads the text needs one padded
    forward pass (`get_padded_batch`); an encoder-decoder's decoder reads the model's own output,
    so only it needs the decoding run (`get_trace`)."""
    bundle = get_bundle(model_key)
    names = layernorm_page.capture(bundle, stack)
    if layernorm_page.reads_text(bundle, stack):
        batch = get_padded_batch(model_key, (text,), names)
        arrays, tokens = {name: b.values for name, b in batch.items()}, batch[names[0]].tokens[0]
        raw = batch[names[0]].raw[0] if batch[names[0]].raw else ()
    else:
        trace = get_trace(model_key, text, names)
        arrays, tokens, raw = trace.arrays, trace.tgt_tokens, trace.tgt_hex
    return layernorm_page.network(bundle, stack, arrays, tokens, raw)


def get_layernorm_pair(model_key: str, text: str, n_layers: int, seed: int) -> layernorm_page.NormPair:
    """`runs.layernorm_page.norm_pair` over the two random models' cached bundles and padded runs of the text."""
    bundle = get_bundle(model_key)
    stack, pair = layernorm_page.text_stack(bundle), {}
    for position, key in layernorm_page.pair_refs(bundle, n_layers, seed).items():
        model = get_bundle(key)
        pair[position] = (model, get_padded_batch(key, (text,), layernorm_page.capture(model, stack)))
    return layernorm_page.norm_pair(bundle, n_layers, seed, pair)


@byte_cached(shared_cache())
def get_layernorm_contrast(model_key: str, sentences: tuple[str, ...], where: str) -> layernorm_page.BatchContrast:
    """`runs.layernorm_page.contrast` over the cached padded batch of the sentences, recorded at `where`."""
    return layernorm_page.contrast(get_padded_batch(model_key, sentences, (where,))[where])


@byte_cached(shared_cache())
def get_pe_sinusoids(d_model: int, max_pos: int) -> positional_page.SinusoidView:
    """`runs.positional_page.sinusoids`, cached per size (its similarity matrix is up to 8 MB)."""
    return positional_page.sinusoids(d_model, max_pos)


@byte_cached(shared_cache())
def get_pe_relative(d_model: int, max_pos: int, k: int) -> RelativeCheck:
    """`runs.positional_page.relative`, cached per size and offset (a least-squares fit)."""
    return positional_page.relative(d_model, max_pos, k)


def get_pe_learned(model_key: str) -> positional_page.LearnedView | None:
    """`runs.positional_page.learned` of a cached model (a slice and a small sinusoid table: not cached)."""
    return positional_page.learned(get_bundle(model_key))


def get_pe_tokens(model_key: str, text: str) -> positional_page.TokensView:
    """`runs.positional_page.tokens` over the cached padded run of the text."""
    bundle = get_bundle(model_key)
    return positional_page.tokens(bundle, get_padded_batch(model_key, (text,), positional_page.token_names(bundle)))


def get_architecture_page(model_key: str, text: str) -> architecture_page.ArchitecturePage:
    """`runs.architecture_page.architecture_page` over the cached run (boxes and a parameter count: not cached)."""
    bundle = get_bundle(model_key)
    return architecture_page.architecture_page(bundle, get_trace(model_key, text, architecture_page.hook_names(bundle)))


@byte_cached(shared_cache())
def get_lesson_step(model_key: str, text: str, step: str) -> lesson.StepNumbers | None:
    """`runs.lesson.step_numbers` on the sentence's cached run (every hook), once per model, sentence and step
    (the masks and architecture steps run the causal experiment, ~0.4 s; the heads step an ablated run); None
    where the step does not apply to the model."""
    return lesson.step_numbers(step, get_bundle(model_key), get_trace(model_key, text))


@byte_cached(shared_cache())
def get_output_steps(model_key: str, text: str, settings: SamplingSettings, steps: int, k: int) -> OutputSteps:
    """`runs.output.output_steps`, cached per arguments (a rerun that only changes the chart costs nothing)."""
    return output.output_steps(get_bundle(model_key), text, settings, steps, k)


@byte_cached(shared_cache())
def get_feed_forward(model_key: str, text: str) -> FeedForwardRun:
    """`runs.feed_forward.feed_forward_run`, cached per model and text."""
    return feed_forward.feed_forward_run(get_bundle(model_key), text)


@byte_cached(shared_cache())
def get_detectors(model_key: str) -> DetectorTable:
    """`runs.head_detectors.detector_table`: per model (it reads a fixed repeated random sequence, not the text)."""
    return head_detectors.detector_table(get_bundle(model_key))


@byte_cached(shared_cache())
def get_stored_importance(model_key: str) -> HeadImportance | None:
    """`runs.head_importance.stored_importance`, read once per process (it hashes the weights)."""
    return head_importance.stored_importance(get_bundle(model_key))


@st.cache_resource(show_spinner=False, max_entries=16)
def get_shipped_film_scores(name: str) -> FilmScores | None:
    """The task scores of shipped model `name`'s film, computed from its frames once per server."""
    return shipped_film_scores(name)
