"""The lesson's numbers: the live answers to the questions a teacher asks before revealing a figure.

No Streamlit here: `step_numbers(step, bundle, trace)` is everything one step shows (its live answer
and the arrays or view-models its figure draws), the one call the lesson page and its handout make
per step (`ui.caches.get_lesson_step`, cached per model, sentence and step) and the call
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

from hook_names import GENERATOR, act_name, attn_module, hook_name
from runs.head_importance import stored_importance
from runs.heads import aligned_within, axes_of, card_alignment_head, gold_alignment, right_output_alignment
from runs.model_kind import label_smoothing
from runs.output import SamplingSettings, encoder_output
from runs.reference import check_reference, model_task
from runs.teaching_arrays import layernorm_affine, parameter_sizes, position_table, sinusoid_table, stack_reading_text
from runs.text_run import run_text
from transformer.causal import causal_experiment
from transformer.checkpoint import ModelBundle
from transformer.head_detectors import alignment_matrix as aligned_cells
from transformer.interventions import InterventionSpec
from transformer.tokenizer import EOS
from viz.embedding_scale import EmbeddingScale
from viz.layernorm import StackStats, norm_sites, remove_affine, token_stats
from viz.scaling import D_K_OPTIONS, ScalingDemo, scaling_demo
from viz.step_by_step import build_step_view
from viz.trace import TraceData

GENERATOR_LOGITS = hook_name(GENERATOR, "logits")  # (1, T, V): the output layer's scores per decoder row
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
    """Step 1: what the model wrote and whether the task's rules call it right (None: no right answer known).

    A model that writes on past the right output (no <eos>: the induction model continues its loop) is
    judged on the first `judged` tokens only; `output` is that part and `more` counts the tokens after it.
    """
    check = check_reference(bundle, trace)
    judged = None if check is None else check.judged
    tokens = trace.output_tokens
    shown = tokens if judged is None else tokens[:judged]
    joiner = "" if all(len(tok) == 1 for tok in tokens) else " "
    return {
        "output": joiner.join(shown) if judged is not None else trace.output_text,
        "more": len(tokens) - len(shown),
        "correct": None if check is None or check.expected is None else check.correct,
        "expected": None if check is None else check.expected,
        "teacher_forced": trace.teacher_forced,
        "heldout": check is not None and check.heldout,  # the sentence and its reference were never trained on
        "chrf": None if check is None else check.chrf,  # a natural translator's closeness to its references
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


def positional_answer(table: np.ndarray, position: int = PE_QUERY) -> dict[str, object]:
    """Step 4: which other positions' codes are most and least like `position`'s (cosine of the rows of
    `table`, (P, d_model)). Equal cosines (to 3 decimals, as shown) are a tie: every tied position is named."""
    unit = table.astype(np.float64) / np.maximum(np.linalg.norm(table, axis=-1, keepdims=True), 1e-12)
    row = np.round(unit @ unit[position], 3)  # (P,)
    others = np.delete(np.arange(len(row)), position)
    best, worst = row[others].max(), row[others].min()
    return {
        "position": position,
        "nearest": [int(p) for p in others if row[p] == best],
        "farthest": [int(p) for p in others if row[p] == worst],
        "cos_nearest": float(best),
        "cos_farthest": float(worst),
        "positions": len(row),
    }


def attention_query(trace: TraceData) -> int:
    """The query row the single-head step computes: the middle token of the sentence."""
    return len(trace.query_tokens(query_kind(trace))) // 2


LESSON_KEYS = 16  # keys the attention step shows at most; past that it names the keys and weight it hides


def step_view(trace: TraceData, head: int = 0, layer: int = 0):
    """`viz.step_by_step.StepView` of one query of the first layer's head `head`, with the run's numbers."""
    kind = query_kind(trace)
    return build_step_view(
        trace.arrays,
        kind,
        layer,
        head,
        attention_query(trace),
        trace.query_tokens(kind),
        trace.key_tokens(kind),
        max_keys=LESSON_KEYS,
    )


def attention_answer(trace: TraceData, head: int = 0) -> dict[str, object]:
    """Step 5: the key the middle token attends to most (after q·k, ÷√d_k and softmax), with its weight."""
    kind = query_kind(trace)
    pattern = trace.pattern(kind, 0)[head]  # (Tq, Tk)
    query = attention_query(trace)
    key = int(np.argmax(pattern[query]))
    view = step_view(trace, head)
    return {
        "kind": kind,
        "query": trace.query_tokens(kind)[query],
        "key": trace.key_tokens(kind)[key],
        "weight": float(pattern[query, key]),
        "key_index": key,
        "n_keys": int(pattern.shape[-1]),
        "first_shown": int(view.keys[0]),
        "last_shown": int(view.keys[-1]),
        "hidden_weight": float(view.hidden_weight),
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


def has_importance(bundle: ModelBundle) -> bool:
    """Whether `important_head` chose from the model's stored importance table (else: the sharpest head)."""
    table = stored_importance(bundle)
    return table is not None and bool(table.important())


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
    gain and bias removed), extremes over the sentence's tokens; and the standard deviations with gain and
    bias (`affine_*`), the output line the figure draws."""
    stack, _ = stack_reading_text(bundle)
    site = norm_sites(bundle.model.hook_names, stack)[0]
    gain, bias = layernorm_affine(bundle, site.prefix)
    x_in = trace.arrays[site.hook_in][0]  # (T, d_model)
    y_affine = trace.arrays[site.hook_out][0]  # (T, d_model): what the figure draws
    y = remove_affine(y_affine, gain, bias)  # (T, d_model)
    in_mean, in_std = token_stats(x_in)
    out_mean, out_std = token_stats(y)
    _, affine_std = token_stats(y_affine)
    return {
        "affine_std_min": float(affine_std.min()),
        "affine_std_max": float(affine_std.max()),
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
    """Step 11: the decoder row whose most-read source word sits farthest from its own place in the sentence (word
    order changes most there; places as fractions of each side's length, which differ between languages), the word
    it writes and the source word it reads. Rows that write or read a special token or punctuation are asked about
    only when no other row is left (a full stop reading the source's end teaches nothing)."""
    pattern = trace.pattern("cross", choice.layer)[choice.head]  # (Tq, Tk)
    writes = trace.next_tokens or trace.tgt_tokens
    peaks = pattern.argmax(-1)  # (Tq,)
    tq, tk = max(len(peaks) - 1, 1), max(len(trace.src_tokens) - 1, 1)
    rows = [i for i in range(len(peaks)) if is_word(writes[i]) and is_word(trace.src_tokens[int(peaks[i])])]
    rows = rows or [i for i in range(len(peaks)) if not (writes[i].startswith("<") and writes[i].endswith(">"))] or [0]
    row = max(rows, key=lambda i: (abs(int(peaks[i]) / tk - i / tq), -i))
    key = int(peaks[row])
    return {"row": row, "writes": writes[row], "reads": trace.src_tokens[key], "key": key, "weight": float(pattern[row, key])}


def is_word(token: str) -> bool:
    """A token that is (part of) a word: not a special token (<eos>), not punctuation alone."""
    if token.startswith("<") and token.endswith(">"):
        return False
    return any(ch.isalnum() for ch in token)


def output_probabilities(trace: TraceData) -> list[tuple[str, float]]:
    """Step 12: each token the model wrote (its <eos> included) with the probability its softmax gave it,
    read from the run's own logits (a decoder-only model's prompt rows are not its output)."""
    writes = trace.next_tokens or trace.tgt_tokens
    # the row that writes the first output token: after <bos> and the prompt (a decoder-only model's input)
    start = 0 if trace.teacher_forced else max(len(writes) - len(trace.output_tokens) - 1, 0)
    stop = min(start + len(trace.output_tokens), len(writes))
    stop += stop < len(writes) and writes[stop] == EOS  # the <eos> it wrote; not a token past the length limit
    if stop <= start:
        return []
    logits = np.asarray(trace.arrays[GENERATOR_LOGITS][0][start:stop], dtype=np.float64)  # (n_out, V)
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    return [(tok, float(p)) for tok, p in zip(writes[start:stop], probs.max(-1), strict=True)]


def predicted_probabilities(bundle: ModelBundle, trace: TraceData) -> list[tuple[str, float]]:
    """Step 12's tokens and probabilities: what the model wrote, or for an encoder-only model (nothing written)
    the token it predicts at each position."""
    if bundle.config.is_encoder_only:
        run = encoder_output(bundle, trace.text, SamplingSettings(greedy=True), k=1)
        return [(d.top_tokens[0], d.top_probs[0]) for d in run.distributions]
    return output_probabilities(trace)


def architecture_answer(bundle: ModelBundle, trace: TraceData) -> dict[str, object]:
    """Step 12: the least sure word of the output and its probability."""
    probs = predicted_probabilities(bundle, trace)
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


def prompt_alignment(bundle: ModelBundle, trace: TraceData) -> tuple[tuple[int | None, ...], tuple[str, ...]] | None:
    """A decoder-only model's task alignment: each output token → the prompt word it renders, and the
    prompt's words; None under the same conditions as `runs.heads.gold_alignment`."""
    found = right_output_alignment(bundle, trace)
    if found is None:
        return None
    example, alignment = found
    source = tuple(model_task(bundle).split_source(example.source))  # type: ignore[union-attr]  # found: it has a task
    return (alignment, source) if aligned_within(alignment, len(source)) else None


def task_alignment(bundle: ModelBundle, trace: TraceData) -> tuple[tuple[int | None, ...], tuple[str, ...]] | None:
    """The task's alignment of the output to the input's tokens (the encoder's, or the prompt's words), and those tokens."""
    if not trace.src_tokens:
        return prompt_alignment(bundle, trace)
    alignment = gold_alignment(bundle, trace)
    return None if alignment is None else (alignment, trace.src_tokens)


def alignment_matrix(bundle: ModelBundle, trace: TraceData) -> tuple[np.ndarray, tuple[str, ...]] | None:
    """Step 1's figure: (T_out, T_src) 1 where output token i renders source token j (the task's gold
    alignment), with the source tokens; None when there is none to show."""
    found = task_alignment(bundle, trace)
    if found is None:
        return None
    alignment, source = found
    return aligned_cells(alignment, len(trace.output_tokens), len(source)).astype(np.float32), source  # (T_out, T_src)


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
    found = alignment_matrix(bundle, trace)
    figure = {} if found is None else {"values": found[0], "source": found[1]}
    if found is None:
        figure = alignment_head_figure(bundle, trace)
    return StepNumbers("task", task_answer(bundle, trace), figure)


def alignment_head_figure(bundle: ModelBundle, trace: TraceData) -> dict[str, object]:
    """Step 1's figure where no task alignment exists (a real sentence pair comes without one): the weights of the
    card's alignment head (the cross-attention head whose arg-max best matches a dictionary), row i writing output
    token i, so the class sees which source word the model read for each word it wrote. Empty without such a head."""
    head = card_alignment_head(bundle)
    if head is None or "cross" not in trace.kinds() or not trace.output_tokens:
        return {}
    layer, h = head
    pattern = trace.pattern("cross", layer)[h]  # (T_tgt, T_src): row i reads for next token i
    return {
        "attention": np.asarray(pattern[: len(trace.output_tokens)], dtype=np.float32),  # (T_out, T_src)
        "source": trace.src_tokens,
        "head": HeadChoice("cross", layer, h),
    }


def _why_attention(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    tokens = trace.src_tokens or trace.tgt_tokens
    return StepNumbers("why_attention", path_answer(trace), {"tokens": tokens, "lengths": path_lengths(len(tokens))})


def _embeddings(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    scale = embedding_scale(bundle, trace)
    return StepNumbers("embeddings", embedding_answer(scale), {"scale": scale})


def model_positions(bundle: ModelBundle, n_positions: int = PE_POSITIONS) -> tuple[np.ndarray, bool]:
    """(P, d_model) the position codes the model adds, and whether they were learned (else the paper's sinusoids)."""
    learned = position_table(bundle, stack_reading_text(bundle)[0])
    if learned is not None:
        return np.asarray(learned[:n_positions], dtype=np.float32), True
    return positional_table(bundle.config.d_model, n_positions), False


def _positional(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    d = bundle.config.d_model
    dims = [dim for dim in dict.fromkeys((0, 1, 6, d // 2)) if dim < d]
    table, learned = model_positions(bundle)
    answer = {**positional_answer(table, min(PE_QUERY, len(table) - 1)), "learned": learned}
    return StepNumbers("positional", answer, {"table": table, "dims": dims, "d_model": d, "learned": learned})


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
    answer = {**heads_answer(trace, ablated, choice), "from_table": has_importance(bundle)}
    return StepNumbers("heads", answer, figure, choice)


def _layernorm(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    figure = {"stats": layernorm_stats(bundle, trace), "tokens": _reading_tokens(bundle, trace)}
    return StepNumbers("layernorm", layernorm_answer(bundle, trace), figure)


def parameter_groups(bundle: ModelBundle) -> dict[str, int]:
    """The model's parameters by part: feed-forward, attention, embeddings (with the output layer), LayerNorm."""
    groups = dict.fromkeys(("feed_forward", "attention", "embeddings", "norm"), 0)
    for name, size in parameter_sizes(bundle).items():
        part = (
            "feed_forward"
            if ".feed_forward." in name
            else "attention"
            if "_attn." in name
            else "norm"
            if "norm." in name
            else "embeddings"
        )
        groups[part] += size
    return groups


def _feed_forward(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    return StepNumbers("feed_forward", feed_forward_shapes(bundle, trace), {"groups": parameter_groups(bundle)})


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


def _architecture(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    answer = {**architecture_answer(bundle, trace), "label_smoothing": label_smoothing(bundle)}
    return StepNumbers("architecture", answer, {"probabilities": predicted_probabilities(bundle, trace)})


def head_counts(bundle: ModelBundle, trace: TraceData) -> dict[str, int]:
    """Recap question 1's figure: heads per attention kind (each kind has n_layers × n_heads of them)."""
    return {kind: trace.n_layers(kind) * bundle.config.n_heads for kind in trace.kinds()}


def _recap(bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    choice = important_head(bundle, trace)
    figure = {"kinds": trace.kinds(), "n_layers": bundle.config.n_layers, "n_heads": bundle.config.n_heads}
    return StepNumbers("recap", recap_answer(bundle, trace), figure, choice)


# The lesson's steps, in teaching order, each with the one call that computes its numbers. `STEPS` (the names) is
# read from here; `ui.lesson_steps.BUILDERS` (words and figure) and `runs.class_questions.QUESTIONS` (the class's
# choices) are keyed by the same names (tests/runs/test_lesson.py checks the three agree).
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
STEPS: tuple[str, ...] = tuple(STEP_NUMBERS)


def step_numbers(step: str, bundle: ModelBundle, trace: TraceData) -> StepNumbers:
    """Everything step `step` (a name in `STEPS`) shows for `trace`, a run of `bundle` capturing every hook."""
    return STEP_NUMBERS[step](bundle, trace)
