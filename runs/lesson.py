"""The lesson's numbers: the live answers to the questions a teacher asks before revealing a figure.

No Streamlit here: `step_numbers(step, bundle, trace)` is everything one step shows (its live answer
and the arrays or view-models its figure draws), the one call the lesson page and its handout make
per step (`ui.models.get_lesson_step`, cached per model, sentence and step) and the call
`benchmarks/lesson.py` times; a test can change the sentence and check that each revealed answer
follows the model (nothing is written down in advance). Every answer is plain values; the page puts
them in the UI language and builds the figure.
The steps follow the order of the project's teaching notes (the task, why attention, embeddings,
positions, one attention computation, √d_k, heads, LayerNorm, feed-forward, masks, cross-attention,
the whole model, a recap).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from hook_names import act_name, attn_module
from runs.head_importance import kind_importance, stored_importance
from runs.heads import axes_of, gold_alignment
from runs.output import SamplingSettings, encoder_output
from runs.reference import check_reference
from runs.teaching_arrays import layernorm_affine, parameter_sizes, sinusoid_table, stack_reading_text
from runs.text_run import run_text
from transformer.causal import causal_experiment
from transformer.checkpoint import ModelBundle
from transformer.head_detectors import alignment_matrix as aligned_cells
from transformer.interventions import InterventionSpec
from viz.architecture import Box, architecture_boxes
from viz.embedding_scale import EmbeddingScale
from viz.head_importance import HeadImportance as HeadImportanceView
from viz.layernorm import StackStats, norm_sites, remove_affine, token_stats
from viz.positional import similarity
from viz.scaling import D_K_OPTIONS, ScalingDemo, scaling_demo
from viz.step_by_step import build_step_view
from viz.trace import TraceData

STEPS: tuple[str, ...] = (
    "task",
    "why_attention",
    "embeddings",
    "positional",
    "attention",
    "scaling",
    "heads",
    "layernorm",
    "feed_forward",
    "masks",
    "cross",
    "architecture",
    "recap",
)
PE_POSITIONS = 50  # rows of the sinusoid table the positional step draws
PE_QUERY = 10  # the position whose nearest neighbour the class predicts


def step_number(raw: str | None) -> int:
    """`?step=N` as a 1-based step number; anything absent, malformed or out of range is step 1."""
    try:
        n = int(str(raw).strip()) if raw is not None and len(str(raw)) <= 4 else 1
    except ValueError:
        return 1
    return n if 1 <= n <= len(STEPS) else 1


def query_kind(trace: TraceData) -> str:
    """The attention kind the lesson's single-head steps use: the encoder's self-attention when there is one."""
    return "encoder" if trace.src_tokens else "decoder"


@dataclass(frozen=True)
class HeadChoice:
    kind: str
    layer: int
    head: int


def task_answer(bundle: ModelBundle, trace: TraceData) -> dict[str, object]:
    """Step 1: what the model wrote and whether the task's rules call it right (None: no right answer known)."""
    check = check_reference(bundle, trace)
    return {
        "output": trace.output_text,
        "correct": None if check is None or check.expected is None else check.correct,
        "expected": None if check is None else check.expected,
    }


def path_answer(trace: TraceData) -> dict[str, object]:
    """Step 2: steps between the first and last word in a recurrent model (n − 1) and in self-attention (1)."""
    tokens = trace.src_tokens or trace.tgt_tokens
    words = [tok for tok in tokens if not (tok.startswith("<") and tok.endswith(">"))] or list(tokens)
    n = len(tokens)
    return {"first": words[0], "last": words[-1], "rnn": max(words_distance(tokens, words), 1), "attention": 1, "n": n}


def words_distance(tokens: tuple[str, ...], words: list[str]) -> int:
    """Positions between the first and last word (a recurrent model passes one state per position)."""
    first = tokens.index(words[0])
    last = len(tokens) - 1 - tokens[::-1].index(words[-1])
    return last - first


def path_lengths(n: int) -> np.ndarray:
    """(n, n) steps a recurrent model needs to carry word j to word i: |i − j| (self-attention: 1)."""
    idx = np.arange(n)
    return np.abs(idx[:, None] - idx[None, :]).astype(np.float32)  # (T, T)


def embedding_scale(bundle: ModelBundle, trace: TraceData) -> EmbeddingScale:
    stack, _ = stack_reading_text(bundle)
    return EmbeddingScale.from_arrays(trace.arrays, stack, trace.src_tokens if stack == "encoder" else trace.tgt_tokens)


def embedding_answer(scale: EmbeddingScale) -> dict[str, object]:
    """Step 3: the mean norm of a token vector before and after × √d_model, and of a position vector."""
    norms = scale.norms()
    return {
        "raw": float(norms["raw"].mean()),
        "scaled": float(norms["scaled"].mean()),
        "pe": float(norms["pe"].mean()),
        "sqrt_d": float(np.sqrt(scale.d_model)),
        "d_model": scale.d_model,
    }


def positional_table(d_model: int, n_positions: int = PE_POSITIONS) -> np.ndarray:
    return sinusoid_table(n_positions, d_model)  # (P, d_model)


def positional_answer(d_model: int, position: int = PE_QUERY) -> dict[str, object]:
    """Step 4: which other position's code is most like `position`'s (dot product of sinusoid rows)."""
    sim = similarity(positional_table(d_model)).astype(np.float64)  # (P, P)
    row = sim[position].copy()
    row[position] = -np.inf
    nearest = int(np.argmax(row))
    far = int(np.argmin(sim[position]))
    return {"position": position, "nearest": nearest, "farthest": far}


def attention_query(trace: TraceData) -> int:
    """The query row the single-head step computes: the middle token of the sentence."""
    return len(trace.query_tokens(query_kind(trace))) // 2


def step_view(trace: TraceData, head: int = 0, layer: int = 0):
    """`viz.step_by_step.StepView` of one query of the first layer's head `head`, with the run's numbers."""
    kind = query_kind(trace)
    return build_step_view(
        trace.arrays, kind, layer, head, attention_query(trace), trace.query_tokens(kind), trace.key_tokens(kind)
    )


def attention_answer(trace: TraceData, head: int = 0) -> dict[str, object]:
    """Step 5: the key the middle token attends to most (after q·k, ÷√d_k and softmax), with its weight."""
    kind = query_kind(trace)
    pattern = trace.pattern(kind, 0)[head]  # (Tq, Tk)
    query = attention_query(trace)
    key = int(np.argmax(pattern[query]))
    return {
        "query": trace.query_tokens(kind)[query],
        "key": trace.key_tokens(kind)[key],
        "weight": float(pattern[query, key]),
        "key_index": key,
    }


def scaling_answer(d_k: int) -> dict[str, object]:
    """Step 6: the largest softmax weight with and without ÷√d_k at this model's d_k (seeded demo)."""
    demo = scaling_demo(d_k if d_k in D_K_OPTIONS else 64)
    return {
        "d_k": demo.d_k,
        "unscaled": float(demo.unscaled.max_weight),
        "scaled": float(demo.scaled.max_weight),
        "variance": float(demo.variance),
    }


def important_head(bundle: ModelBundle, trace: TraceData) -> HeadChoice:
    """The head whose removal changes most outputs (the model's stored importance table), else the
    head of the last layer whose pattern is sharpest on this sentence."""
    table = stored_importance(bundle)
    ranked = table.important() if table is not None else ()
    if ranked:
        return HeadChoice(ranked[0].kind, ranked[0].layer, ranked[0].head)
    kind = trace.kinds()[-1]
    patterns = trace.pattern(kind, trace.n_layers(kind) - 1)  # (H, Tq, Tk)
    return HeadChoice(kind, trace.n_layers(kind) - 1, int(np.argmax(patterns.max(-1).mean(-1))))


def ablation_specs(choice: HeadChoice) -> tuple[InterventionSpec, ...]:
    """Zero the chosen head's output (one cacheable spec): the run that answers "what if it were removed?"."""
    return (InterventionSpec("zero_output", attn_module(choice.kind, choice.layer), head=choice.head),)


def heads_answer(trace: TraceData, ablated: TraceData, choice: HeadChoice) -> dict[str, object]:
    """Step 7: the output with and without the head, and how many output tokens changed."""
    before, after = trace.output_tokens, ablated.output_tokens
    changed = sum(a != b for a, b in zip(before, after, strict=False)) + abs(len(before) - len(after))
    return {
        "kind": choice.kind,
        "layer": choice.layer,
        "head": choice.head,
        "before": trace.output_text,
        "after": ablated.output_text,
        "changed": changed,
    }


def layernorm_stats(bundle: ModelBundle, trace: TraceData) -> StackStats:
    stack, _ = stack_reading_text(bundle)
    return StackStats.compute(trace.arrays, bundle.model.hook_names, stack)


def layernorm_answer(bundle: ModelBundle, trace: TraceData) -> dict[str, object]:
    """Step 8: mean and standard deviation of each token's vector before and after the first LayerNorm (its
    gain and bias removed), extremes over the sentence's tokens."""
    stack, _ = stack_reading_text(bundle)
    site = norm_sites(bundle.model.hook_names, stack)[0]
    gain, bias = layernorm_affine(bundle, site.prefix)
    x_in = trace.arrays[site.hook_in][0]  # (T, d_model)
    y = remove_affine(trace.arrays[site.hook_out][0], gain, bias)  # (T, d_model)
    in_mean, in_std = token_stats(x_in)
    out_mean, out_std = token_stats(y)
    return {
        "in_mean": float(np.abs(in_mean).max()),
        "in_std_min": float(in_std.min()),
        "in_std_max": float(in_std.max()),
        "out_mean": float(np.abs(out_mean).max()),
        "out_std_min": float(out_std.min()),
        "out_std_max": float(out_std.max()),
    }


def feed_forward_shapes(bundle: ModelBundle, trace: TraceData) -> dict[str, object]:
    """Step 9: the shapes through one position-wise feed-forward layer, and its share of the parameters."""
    config = bundle.config
    stack, _ = stack_reading_text(bundle)
    n = len(trace.src_tokens if stack == "encoder" else trace.tgt_tokens)
    sizes = parameter_sizes(bundle)
    ffn = sum(v for k, v in sizes.items() if ".feed_forward." in k)
    attn = sum(v for k, v in sizes.items() if "_attn." in k)
    return {
        "n": n,
        "d_model": config.d_model,
        "d_ff": config.d_ff,
        "ffn_params": ffn,
        "attn_params": attn,
        "total": sum(sizes.values()),
        "share": ffn / max(sum(sizes.values()), 1),
    }


def mask_answer(bundle: ModelBundle, trace: TraceData) -> dict[str, object]:
    """Step 10: does lifting the decoder's causal mask change the generated sentence? (`causal_experiment`)."""
    if not trace.output_text.strip():
        return {"changed": None, "with": trace.output_text, "without": trace.output_text, "rows": 0, "looking": 0}
    trained = not trace.teacher_forced
    exp = causal_experiment(bundle, trace.text, trace.output_text, generate=trained)
    return {
        "changed": exp.generation_changed,
        "with": exp.generated_with_mask or "",
        "without": exp.generated_without_mask or "",
        "rows": exp.n_changed,
        "looking": len(exp.looking_ahead),
        "n_rows": len(exp.positions),
    }


def decoder_mask(trace: TraceData) -> np.ndarray:
    """(Tt, Tt) the decoder self-attention mask of layer 0 as the model applied it (True = may attend)."""
    mask = np.asarray(trace.arrays[act_name("decoder", 0, "mask")]).astype(bool)
    n = len(trace.tgt_tokens)
    return mask.reshape(mask.shape[-2:]) if mask.shape[-2] > 1 else np.broadcast_to(mask.reshape(-1), (n, n))


def cross_head(bundle: ModelBundle, trace: TraceData) -> HeadChoice | None:
    """The cross-attention head the lesson enlarges: the stored best aligner, else the sharpest of the last layer."""
    if "cross" not in trace.kinds():
        return None
    table = stored_importance(bundle)
    best = table.alignment_head() if table is not None else None
    if best is not None:
        return HeadChoice("cross", best.layer, best.head)
    layer = trace.n_layers("cross") - 1
    return HeadChoice("cross", layer, int(np.argmax(trace.pattern("cross", layer).max(-1).mean(-1))))


def cross_answer(trace: TraceData, choice: HeadChoice) -> dict[str, object]:
    """Step 11: the decoder row whose most-read source word sits farthest from its own position (word
    order changes most there), the word it writes and the source word it reads."""
    pattern = trace.pattern("cross", choice.layer)[choice.head]  # (Tq, Tk)
    writes = trace.next_tokens or trace.tgt_tokens
    peaks = pattern.argmax(-1)  # (Tq,)
    rows = [i for i in range(len(peaks)) if not (writes[i].startswith("<") and writes[i].endswith(">"))] or [0]
    row = max(rows, key=lambda i: (abs(int(peaks[i]) - i), -i))
    key = int(peaks[row])
    return {"row": row, "writes": writes[row], "reads": trace.src_tokens[key], "key": key, "weight": float(pattern[row, key])}


def output_probabilities(bundle: ModelBundle, trace: TraceData) -> list[tuple[str, float]]:
    """Step 12: each written token with the probability the model gave it (teacher-forced on its own output)."""
    if not trace.output_text.strip():
        return []
    if bundle.config.is_encoder_only:  # nothing written: the token predicted at each position, and its probability
        run = encoder_output(bundle, trace.text, SamplingSettings(greedy=True), k=1)
        return [(d.top_tokens[0], d.top_probs[0]) for d in run.distributions]
    exp = causal_experiment(bundle, trace.text, trace.output_text, layers=(0,), generate=False)
    return [(p.with_mask, p.p_with_mask) for p in exp.positions]


def architecture_answer(bundle: ModelBundle, trace: TraceData) -> dict[str, object]:
    """Step 12: the least sure word of the output and its probability."""
    probs = output_probabilities(bundle, trace)
    if not probs:
        return {"word": "", "p": 0.0, "mean": 0.0}
    word, p = min(probs, key=lambda wp: wp[1])
    return {"word": word, "p": p, "mean": float(np.mean([q for _, q in probs]))}


def recap_answer(bundle: ModelBundle, trace: TraceData) -> dict[str, object]:
    """Step 13: the model's own numbers for the recap questions."""
    config = bundle.config
    kinds = len(trace.kinds())
    return {
        "heads": kinds * config.n_layers * config.n_heads,
        "kinds": kinds,
        "layers": config.n_layers,
        "n_heads": config.n_heads,
        "d_k": config.d_k,
        "d_model": config.d_model,
        "params": sum(parameter_sizes(bundle).values()),
    }


def importance_view(bundle: ModelBundle, kind: str) -> HeadImportanceView | None:
    """The stored head-importance table of one attention kind as (L, H) arrays, or None without a table."""
    table = stored_importance(bundle)
    return None if table is None else kind_importance(table, kind, bundle.config.n_layers, bundle.config.n_heads)


def alignment_matrix(bundle: ModelBundle, trace: TraceData) -> np.ndarray | None:
    """Step 1's figure: (T_out, T_src) 1 where output token i translates source token j (the task's gold
    alignment), or None when there is none to show."""
    alignment = gold_alignment(bundle, trace)
    if alignment is None or not trace.src_tokens:
        return None
    return aligned_cells(alignment, len(trace.output_tokens), len(trace.src_tokens)).astype(np.float32)  # (T_out, T_src)


def marked_head(trace: TraceData, choice: HeadChoice) -> np.ndarray:
    """Step 7's figure: (L, H) True at the chosen head of its kind's grid."""
    marked = np.zeros(trace.patterns(choice.kind).shape[:2], dtype=bool)
    marked[choice.layer, choice.head] = True
    return marked


@dataclass(frozen=True)
class StepNumbers:
    """Everything one step shows, before any words: its answer and what its figure draws.

    `figure` holds arrays and view-models by name (e.g. "values", "scale", "patterns"); `choice` is the
    head a step is about (heads, cross-attention, recap), None elsewhere or when there is none.
    """

    step: str
    answer: Mapping[str, object] = field(default_factory=dict)
    figure: Mapping[str, object] = field(default_factory=dict)
    choice: HeadChoice | None = None


def _reading_tokens(bundle: ModelBundle, trace: TraceData) -> tuple[str, ...]:
    return trace.src_tokens if stack_reading_text(bundle)[0] == "encoder" else trace.tgt_tokens


def _task(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    return StepNumbers("task", task_answer(bundle, trace), {"values": alignment_matrix(bundle, trace)})


def _why_attention(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    tokens = trace.src_tokens or trace.tgt_tokens
    return StepNumbers("why_attention", path_answer(trace), {"tokens": tokens, "lengths": path_lengths(len(tokens))})


def _embeddings(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    scale = embedding_scale(bundle, trace)
    return StepNumbers("embeddings", embedding_answer(scale), {"scale": scale})


def _positional(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    d = bundle.config.d_model
    dims = [dim for dim in dict.fromkeys((0, 1, 6, d // 2)) if dim < d]
    return StepNumbers("positional", positional_answer(d), {"table": positional_table(d), "dims": dims, "d_model": d})


def _attention(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    return StepNumbers("attention", attention_answer(trace), {"view": step_view(trace), "query": attention_query(trace)})


def _scaling(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    answer = scaling_answer(bundle.config.d_k)
    demo: ScalingDemo = scaling_demo(int(answer["d_k"]))
    return StepNumbers("scaling", answer, {"demo": demo})


def _heads(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    choice = important_head(bundle, trace)
    ablated = run_text(bundle, trace.text, names=(), interventions=ablation_specs(choice))  # its output only
    figure = {"patterns": trace.patterns(choice.kind), "marked": marked_head(trace, choice), "axes": axes_of(trace, choice.kind)}
    return StepNumbers("heads", heads_answer(trace, ablated, choice), figure, choice)


def _layernorm(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    figure = {"stats": layernorm_stats(bundle, trace), "tokens": _reading_tokens(bundle, trace)}
    return StepNumbers("layernorm", layernorm_answer(bundle, trace), figure)


def _feed_forward(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    return StepNumbers("feed_forward", feed_forward_shapes(bundle, trace))


def _masks(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    if not bundle.config.has_decoder:  # an encoder-only model has no causal mask to lift (the step says so)
        return StepNumbers("masks")
    return StepNumbers("masks", mask_answer(bundle, trace), {"mask": decoder_mask(trace), "axes": axes_of(trace, "decoder")})


def _cross(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    choice = cross_head(bundle, trace)
    if choice is None:
        return StepNumbers("cross")
    figure = {
        "pattern": trace.pattern("cross", choice.layer)[choice.head],  # (Tq, Tk)
        "axes": axes_of(trace, "cross"),
        "alignment": gold_alignment(bundle, trace),
    }
    return StepNumbers("cross", cross_answer(trace, choice), figure, choice)


def architecture_stacks(bundle: ModelBundle, trace: TraceData) -> dict[str, list[Box]]:
    """Figure 1's boxes for `bundle`, with the shapes of `trace`'s arrays."""
    config, shapes = bundle.config, {name: a.shape for name, a in trace.arrays.items()}
    return architecture_boxes(config.is_encoder_decoder, config.norm_position, shapes, config.is_encoder_only)


def _architecture(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    return StepNumbers("architecture", architecture_answer(bundle, trace), {"stacks": architecture_stacks(bundle, trace)})


def _recap(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    choice = important_head(bundle, trace)
    return StepNumbers("recap", recap_answer(bundle, trace), {"importance": importance_view(bundle, choice.kind)}, choice)


STEP_NUMBERS: dict[str, Callable[[ModelBundle, TraceData], StepNumbers]] = {
    "task": _task,
    "why_attention": _why_attention,
    "embeddings": _embeddings,
    "positional": _positional,
    "attention": _attention,
    "scaling": _scaling,
    "heads": _heads,
    "layernorm": _layernorm,
    "feed_forward": _feed_forward,
    "masks": _masks,
    "cross": _cross,
    "architecture": _architecture,
    "recap": _recap,
}


def step_numbers(step: str, bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    """Everything step `step` (a name in `STEPS`) shows for `trace`, a run of `bundle` capturing every hook."""
    return STEP_NUMBERS[step](bundle, trace)
