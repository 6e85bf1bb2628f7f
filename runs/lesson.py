"""The lesson's numbers: the live answers to the questions a teacher asks before revealing a figure.

No Streamlit here: `step_numbers(step, bundle, trace)` is everything one step shows (its live answer
and the arrays or view-models its figure draws, one typed record of `runs.lesson_numbers` per step),
the one call the lesson page and its handout make per step (`ui.caches.get_lesson_step`, cached per
model, sentence and step) and the call `benchmarks/lesson.py` times; a test can change the sentence
and check that each revealed answer follows the model (nothing is written down in advance). Every
answer is plain values; the page puts them in the UI language and builds the figure. `LESSON` is the
lesson's registry: one `LessonStep` record per step (its numbers, its class question, its words and figure), in
the order of the project's teaching notes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hook_names import GENERATOR, act_name, attn_module, hook_name
from runs import class_questions as questions
from runs.class_questions import ClassQuestion
from runs.head_importance import stored_importance
from runs.heads import aligned_within, axes_of, card_alignment_head, gold_alignment, right_output_alignment
from runs.lesson_numbers import (
    ArchitectureNumbers,
    AttentionNumbers,
    CrossNumbers,
    EmbeddingNumbers,
    FeedForwardNumbers,
    HeadChoice,
    HeadsNumbers,
    LayerNormNumbers,
    MaskNumbers,
    PositionalNumbers,
    RecapNumbers,
    ScalingNumbers,
    StepNumbers,
    TaskNumbers,
    WhyAttentionNumbers,
)
from runs.model_kind import label_smoothing
from runs.output import SamplingSettings, encoder_output
from runs.reference import check_reference, model_task
from runs.teaching_arrays import layernorm_affine, parameter_sizes, position_table, sinusoid_table, stack_reading_text
from runs.text_run import run_text
from transformer.interventions import InterventionSpec
from transformer.probes.causal import causal_experiment
from transformer.probes.head_scores import alignment_matrix as aligned_cells
from transformer.storage.checkpoint import ModelBundle
from transformer.text.tokenizer import EOS
from viz.embedding_scale import EmbeddingScale
from viz.layernorm import StackStats, norm_sites, remove_affine, token_stats
from viz.scaling import scaling_demo
from viz.step_by_step import build_step_view
from viz.tokens import TokenAxis
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


def task_numbers(bundle: ModelBundle, trace: TraceData) -> TaskNumbers:
    """The task step: what the model wrote and whether the task's rules call it right (a model that writes on past
    the right output is judged on the first `judged` tokens only). Its figure: the task's alignment
    (`alignment_matrix`), else, where none exists, the card's alignment head (`alignment_head`), else nothing."""
    check = check_reference(bundle, trace)
    judged = None if check is None else check.judged
    tokens = trace.output_tokens
    shown = tokens if judged is None else tokens[:judged]
    joiner = "" if all(len(tok) == 1 for tok in tokens) else " "
    found = alignment_matrix(bundle, trace)
    head = None if found is not None else alignment_head(bundle, trace)
    return TaskNumbers(
        output=joiner.join(shown) if judged is not None else trace.output_text,
        more=len(tokens) - len(shown),
        correct=None if check is None or check.expected is None else check.correct,
        expected=None if check is None else check.expected,
        heldout=check is not None and check.heldout,
        chrf=None if check is None else check.chrf,
        source=found[1] if found is not None else trace.src_tokens if head is not None else (),
        alignment=None if found is None else found[0],
        attention=None if head is None else output_rows(trace, head),
        head=head,
    )


def why_attention_numbers(bundle: ModelBundle, trace: TraceData) -> WhyAttentionNumbers:
    """The why-attention step: steps between the first and last word in a recurrent model (n − 1) and in
    self-attention (1)."""
    tokens = trace.src_tokens or trace.tgt_tokens
    words = [tok for tok in tokens if not (tok.startswith("<") and tok.endswith(">"))] or list(tokens)
    return WhyAttentionNumbers(
        first=words[0],
        last=words[-1],
        rnn=max(words_distance(tokens, words), 1),
        attention=1,
        n=len(tokens),
        tokens=tokens,
        lengths=path_lengths(len(tokens)),
        raw=tuple(trace.src_hex if trace.src_tokens else trace.tgt_hex),
    )


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
    tokens, raw = (trace.src_tokens, trace.src_hex) if stack == "encoder" else (trace.tgt_tokens, trace.tgt_hex)
    return EmbeddingScale.from_arrays(trace.arrays, stack, tokens, raw)


ROTARY_SKIPS = "the model adds no position vector (rotary positions turn q and k inside attention instead)"


def embedding_numbers(bundle: ModelBundle, trace: TraceData) -> EmbeddingNumbers | None:
    """The embeddings step: the mean norm of a token vector before and after × √d_model, and of a position vector;
    None on a rotary model (`ROTARY_SKIPS`: the step then asks the class nothing, as its lesson text asks nothing)."""
    if bundle.config.positional == "rotary":
        return None
    scale = embedding_scale(bundle, trace)
    norms = scale.norms()
    return EmbeddingNumbers(
        raw=float(norms["raw"].mean()), scaled=float(norms["scaled"].mean()), pe=float(norms["pe"].mean()), scale=scale
    )


def positional_table(d_model: int, n_positions: int = PE_POSITIONS) -> np.ndarray:
    return sinusoid_table(n_positions, d_model)  # (P, d_model)


def model_positions(bundle: ModelBundle, n_positions: int = PE_POSITIONS) -> tuple[np.ndarray, bool]:
    """(P, d_model) the position codes the model adds, and whether they were learned (else the paper's sinusoids)."""
    learned = position_table(bundle, stack_reading_text(bundle)[0])
    if learned is not None:
        return np.asarray(learned[:n_positions], dtype=np.float32), True
    return positional_table(bundle.config.d_model, n_positions), False


def positional_numbers(bundle: ModelBundle, trace: TraceData) -> PositionalNumbers | None:
    """The positional step on the codes the model adds (`model_positions`); None on a rotary model (`ROTARY_SKIPS`:
    a sinusoid table it never adds would be a false answer)."""
    if bundle.config.positional == "rotary":
        return None
    table, learned = model_positions(bundle)
    return table_positions(table, learned)


def table_positions(table: np.ndarray, learned: bool = False, position: int = PE_QUERY) -> PositionalNumbers:
    """Which other rows of `table` ((P, d_model) position codes) are most and least like `position`'s (cosine; the
    last row when the table is shorter). Equal cosines (to 3 decimals, as shown) are a tie: every tied position is
    named."""
    position = min(position, len(table) - 1)
    d = table.shape[1]
    unit = table.astype(np.float64) / np.maximum(np.linalg.norm(table, axis=-1, keepdims=True), 1e-12)
    row = np.round(unit @ unit[position], 3)  # (P,)
    others = np.delete(np.arange(len(row)), position)
    best, worst = row[others].max(), row[others].min()
    return PositionalNumbers(
        position=position,
        nearest=tuple(int(p) for p in others if row[p] == best),
        farthest=tuple(int(p) for p in others if row[p] == worst),
        cos_nearest=float(best),
        cos_farthest=float(worst),
        learned=learned,
        table=table,
        dims=tuple(dim for dim in dict.fromkeys((0, 1, 6, d // 2)) if dim < d),
    )


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


def attention_numbers(bundle: ModelBundle, trace: TraceData) -> AttentionNumbers:
    """The attention step: the key the middle token attends to most in the first head (after q·k, ÷√d_k and
    softmax), with its weight."""
    kind = query_kind(trace)
    pattern = trace.pattern(kind, 0)[0]  # (Tq, Tk)
    query = attention_query(trace)
    key = int(np.argmax(pattern[query]))
    return AttentionNumbers(
        kind=kind,
        query=trace.query_tokens(kind)[query],
        query_index=query,
        key=trace.key_tokens(kind)[key],
        key_index=key,
        weight=float(pattern[query, key]),
        n_keys=int(pattern.shape[-1]),
        view=step_view(trace),
    )


def scaling_numbers(bundle: ModelBundle, trace: TraceData) -> ScalingNumbers:
    """The scaling step: the seeded demo at this model's own d_k (d_model / n_heads; the demo's curve gains that point
    where it is not one of its powers of two)."""
    return ScalingNumbers(scaling_demo(bundle.config.d_k))


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


def tied_heads(bundle: ModelBundle, choice: HeadChoice) -> tuple[float | None, tuple[HeadChoice, ...]]:
    """The share of the model's test sample whose output `choice`'s removal changed, and the other heads that changed
    exactly as many (a tie: the table orders them by how much they lower the right output's probability); (None, ())
    where the choice did not come from the stored table."""
    table = stored_importance(bundle)
    ranked = table.important() if table is not None else ()
    mine = [s for s in ranked if (s.kind, s.layer, s.head) == (choice.kind, choice.layer, choice.head)]
    if not mine:
        return None, ()
    share = mine[0].changed
    return share, tuple(HeadChoice(s.kind, s.layer, s.head) for s in ranked if s.changed == share and s is not mine[0])


def has_importance(bundle: ModelBundle) -> bool:
    """Whether `important_head` chose from the model's stored importance table (else the sharpest head)."""
    table = stored_importance(bundle)
    return table is not None and bool(table.important())


def ablation_specs(choice: HeadChoice) -> tuple[InterventionSpec, ...]:
    """Zero the chosen head's output (one cacheable spec): the run that answers "what if it were removed?"."""
    return (InterventionSpec("zero_output", attn_module(choice.kind, choice.layer), head=choice.head),)


def heads_numbers(bundle: ModelBundle, trace: TraceData) -> HeadsNumbers:
    """The heads step: the output with and without the important head (a run with its output zeroed), and how many
    output tokens changed."""
    choice = important_head(bundle, trace)
    ablated = run_text(bundle, trace.text, names=(), interventions=ablation_specs(choice))  # its output only
    before, after = trace.output_tokens, ablated.output_tokens
    share, tied = tied_heads(bundle, choice)
    return HeadsNumbers(
        choice=choice,
        from_table=has_importance(bundle),
        share=share,
        tied=tied,
        before=trace.output_text,
        after=ablated.output_text,
        changed=sum(a != b for a, b in zip(before, after, strict=False)) + abs(len(before) - len(after)),
        patterns=trace.patterns(choice.kind),
        marked=marked_head(trace, choice),
        axes=axes_of(trace, choice.kind),
    )


def layernorm_stats(bundle: ModelBundle, trace: TraceData) -> StackStats:
    stack, _ = stack_reading_text(bundle)
    return StackStats.compute(trace.arrays, bundle.model.hook_names, stack)


def layernorm_numbers(bundle: ModelBundle, trace: TraceData) -> LayerNormNumbers:
    """The LayerNorm step: mean and standard deviation of each token's vector before and after the first LayerNorm
    (its gain and bias removed), extremes over the sentence's tokens; and the standard deviations with gain and
    bias, the output line the figure draws. On an RMSNorm model (`config.norm`) the same norm site, and each
    token's root mean square too: what RMSNorm sets to 1 (it leaves the mean where it was)."""
    stack, _ = stack_reading_text(bundle)
    site = norm_sites(bundle.model.hook_names, stack)[0]
    gain, bias = layernorm_affine(bundle, site.prefix)
    x_in = trace.arrays[site.hook_in][0]  # (T, d_model)
    y_affine = trace.arrays[site.hook_out][0]  # (T, d_model): what the figure draws
    y = remove_affine(y_affine, gain, bias)  # (T, d_model)
    in_mean, in_std = token_stats(x_in)
    out_mean, out_std = token_stats(y)
    _, affine_std = token_stats(y_affine)
    in_rms, out_rms = root_mean_square(x_in), root_mean_square(y)  # (T,) each
    return LayerNormNumbers(
        in_mean=float(np.abs(in_mean).max()),
        in_std_min=float(in_std.min()),
        in_std_max=float(in_std.max()),
        out_mean=float(np.abs(out_mean).max()),
        out_std_min=float(out_std.min()),
        out_std_max=float(out_std.max()),
        affine_std_min=float(affine_std.min()),
        affine_std_max=float(affine_std.max()),
        stats=layernorm_stats(bundle, trace),
        tokens=_reading_tokens(bundle, trace),
        norm=bundle.config.norm,
        in_rms_min=float(in_rms.min()),
        in_rms_max=float(in_rms.max()),
        out_rms_min=float(out_rms.min()),
        out_rms_max=float(out_rms.max()),
        rms_series=(in_mean, in_rms, out_mean, out_rms),
        raw=tuple(trace.src_hex if stack_reading_text(bundle)[0] == "encoder" else trace.tgt_hex),
    )


def root_mean_square(x: np.ndarray) -> np.ndarray:
    """√(mean of x²) over the last axis, (..., d) → (...): what RMSNorm divides by (in float64)."""
    return np.sqrt(np.mean(np.square(x.astype(np.float64)), axis=-1))


def _reading_tokens(bundle: ModelBundle, trace: TraceData) -> tuple[str, ...]:
    return trace.src_tokens if stack_reading_text(bundle)[0] == "encoder" else trace.tgt_tokens


def feed_forward_numbers(bundle: ModelBundle, trace: TraceData) -> FeedForwardNumbers:
    """The feed-forward step: the shapes through one position-wise feed-forward layer, and its share of the
    parameters."""
    config = bundle.config
    sizes = parameter_sizes(bundle)
    return FeedForwardNumbers(
        n=len(_reading_tokens(bundle, trace)),
        d_model=config.d_model,
        d_ff=config.d_ff,
        ffn_params=sum(v for k, v in sizes.items() if ".feed_forward." in k),
        attn_params=sum(v for k, v in sizes.items() if "_attn." in k),
        total=sum(sizes.values()),
        groups=parameter_groups(bundle),
    )


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


def mask_numbers(bundle: ModelBundle, trace: TraceData) -> MaskNumbers | None:
    """The masks step: does lifting the decoder's causal mask change the generated sentence? (`causal_experiment`).
    None for an encoder-only model: it has no causal mask to lift (the step says so)."""
    if not bundle.config.has_decoder:
        return None
    figure = clipped_mask(decoder_mask(trace), axes_of(trace, "decoder"))
    if not trace.output_text.strip():
        return MaskNumbers(None, trace.output_text, trace.output_text, rows=0, n_rows=0, looking=0, **figure)
    exp = causal_experiment(bundle, trace.text, trace.output_text, generate=not trace.teacher_forced)
    return MaskNumbers(
        changed=exp.generation_changed,
        with_mask=exp.generated_with_mask or "",
        without_mask=exp.generated_without_mask or "",
        rows=exp.n_changed,
        n_rows=len(exp.positions),
        looking=len(exp.looking_ahead),
        **figure,
    )


MASK_POSITIONS = 16  # decoder positions the masks step draws at most: a class reads the 0s and 1s of a 16 × 16 corner


def clipped_mask(mask: np.ndarray, axes: tuple[TokenAxis, TokenAxis], limit: int = MASK_POSITIONS) -> dict:
    """The masks step's figure fields: the first `limit` decoder positions of `mask` ((Tt, Tt) → (k, k)) and of its
    axes, and how many positions there are (a 75-token induction run drew unreadable labels in 790 px)."""
    k = min(limit, len(mask))
    query, key = axes

    def clip(axis: TokenAxis) -> TokenAxis:  # the first k positions, with their raw bytes for the hover
        reads = None if axis.reads is None else axis.reads[:k]
        return TokenAxis(axis.tokens[:k], reads, (axis.hex or ())[:k], (axis.reads_hex or ())[:k])

    return {"mask": mask[:k, :k], "axes": (clip(query), clip(key)), "positions": len(mask)}


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


def cross_numbers(bundle: ModelBundle, trace: TraceData) -> CrossNumbers | None:
    """The cross-attention step on `cross_head` (None without cross-attention): the decoder row whose most-read
    source word sits farthest from its own place in the sentence (word order changes most there; places as
    fractions of each side's length, which differ between languages), the word it writes and the source word it
    reads. Rows that write or read a special token or punctuation are asked about only when no other row is left
    (a full stop reading the source's end teaches nothing)."""
    choice = cross_head(bundle, trace)
    if choice is None:
        return None
    pattern = trace.pattern("cross", choice.layer)[choice.head]  # (Tq, Tk)
    writes = trace.next_tokens or trace.tgt_tokens
    peaks = pattern.argmax(-1)  # (Tq,)
    tq, tk = max(len(peaks) - 1, 1), max(len(trace.src_tokens) - 1, 1)
    rows = [i for i in range(len(peaks)) if is_word(writes[i]) and is_word(trace.src_tokens[int(peaks[i])])]
    rows = rows or [i for i in range(len(peaks)) if not (writes[i].startswith("<") and writes[i].endswith(">"))] or [0]
    row = max(rows, key=lambda i: (abs(int(peaks[i]) / tk - i / tq), -i))
    key = int(peaks[row])
    return CrossNumbers(
        choice=choice,
        row=row,
        writes=writes[row],
        reads=trace.src_tokens[key],
        key=key,
        weight=float(pattern[row, key]),
        pattern=pattern,
        axes=axes_of(trace, "cross"),
        alignment=gold_alignment(bundle, trace),
    )


def is_word(token: str) -> bool:
    """A token that is (part of) a word: not a special token (<eos>), not punctuation alone."""
    if token.startswith("<") and token.endswith(">"):
        return False
    return any(ch.isalnum() for ch in token)


def written_rows(trace: TraceData) -> range:
    """The decoder rows that write the model's output (its <eos> included); empty when it wrote nothing."""
    writes = trace.next_tokens or trace.tgt_tokens
    # the row that writes the first output token: after <bos> and the prompt (a decoder-only model's input)
    start = 0 if trace.teacher_forced else max(len(writes) - len(trace.output_tokens) - 1, 0)
    stop = min(start + len(trace.output_tokens), len(writes))
    stop += stop < len(writes) and writes[stop] == EOS  # the <eos> it wrote; not a token past the length limit
    return range(start, max(start, stop))


def output_hex(trace: TraceData) -> tuple[str, ...]:
    """The raw bytes (hex) of `output_probabilities`' tokens, for a hover beside a byte-level piece's label; () for a
    run without them."""
    raw = trace.next_hex if trace.next_tokens else trace.tgt_hex
    rows = written_rows(trace)
    return tuple(raw[rows.start : rows.stop]) if len(raw) >= rows.stop else ()


def output_probabilities(trace: TraceData) -> list[tuple[str, float]]:
    """The architecture step's tokens: each token the model wrote (its <eos> included) with the probability its
    softmax gave it, read from the run's own logits (a decoder-only model's prompt rows are not its output)."""
    writes = trace.next_tokens or trace.tgt_tokens
    rows = written_rows(trace)
    start, stop = rows.start, rows.stop
    if stop <= start:
        return []
    logits = np.asarray(trace.arrays[GENERATOR_LOGITS][0][start:stop], dtype=np.float64)  # (n_out, V)
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    return [(tok, float(p)) for tok, p in zip(writes[start:stop], probs.max(-1), strict=True)]


def predicted_probabilities(bundle: ModelBundle, trace: TraceData) -> list[tuple[str, float]]:
    """The architecture step's tokens and probabilities: what the model wrote, or for an encoder-only model
    (nothing written) the token it predicts at each position."""
    if bundle.config.is_encoder_only:
        run = encoder_output(bundle, trace.text, SamplingSettings(greedy=True), k=1)
        return [(d.top_tokens[0], d.top_probs[0]) for d in run.distributions]
    return output_probabilities(trace)


def architecture_numbers(bundle: ModelBundle, trace: TraceData) -> ArchitectureNumbers:
    """The architecture step: the least sure word of the output and its probability, and the card's label
    smoothing (a trained model's probabilities stop near 1 − ε)."""
    probs = predicted_probabilities(bundle, trace)
    word, p = min(probs, key=lambda wp: wp[1]) if probs else ("", 0.0)
    return ArchitectureNumbers(
        word=word,
        p=p,
        mean=float(np.mean([q for _, q in probs])) if probs else 0.0,
        label_smoothing=label_smoothing(bundle),
        probabilities=tuple(probs),
        raw=() if bundle.config.is_encoder_only else output_hex(trace),  # an encoder-only model's pieces are words
    )


def recap_numbers(bundle: ModelBundle, trace: TraceData) -> RecapNumbers:
    """The recap step: the model's own numbers for the recap questions."""
    config = bundle.config
    return RecapNumbers(
        choice=important_head(bundle, trace),
        kinds=tuple(trace.kinds()),
        n_layers=config.n_layers,
        n_heads=config.n_heads,
        d_k=config.d_k,
        d_model=config.d_model,
        params=sum(parameter_sizes(bundle).values()),
    )


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
    """The task step's figure: (T_out, T_src) 1 where output token i renders source token j (the task's gold
    alignment), with the source tokens; None when there is none to show."""
    found = task_alignment(bundle, trace)
    if found is None:
        return None
    alignment, source = found
    return aligned_cells(alignment, len(trace.output_tokens), len(source)).astype(np.float32), source  # (T_out, T_src)


def alignment_head(bundle: ModelBundle, trace: TraceData) -> HeadChoice | None:
    """The task step's head where no task alignment exists (a real sentence pair comes without one): the card's
    alignment head (the cross-attention head whose arg-max best matches a dictionary), so the class sees which
    source word the model read for each word it wrote. None without such a head, cross-attention or output."""
    head = card_alignment_head(bundle)
    if head is None or "cross" not in trace.kinds() or not trace.output_tokens:
        return None
    return HeadChoice("cross", *head)


def output_rows(trace: TraceData, head: HeadChoice) -> np.ndarray:
    """(T_out, T_src) a cross-attention head's weights, row i writing output token i."""
    pattern = trace.pattern("cross", head.layer)[head.head]  # (T_tgt, T_src): row i reads for next token i
    return np.asarray(pattern[: len(trace.output_tokens)], dtype=np.float32)  # (T_out, T_src)


def marked_head(trace: TraceData, choice: HeadChoice) -> np.ndarray:
    """The heads step's figure: (L, H) True at the chosen head of its kind's grid."""
    marked = np.zeros(trace.patterns(choice.kind).shape[:2], dtype=bool)
    marked[choice.layer, choice.head] = True
    return marked


@dataclass(frozen=True)
class LessonStep:
    """One step of the lesson, the one record of everything it is: its name (also the prefix of its catalog entries
    `lesson.<name>_*`), the call that computes its numbers (None where the step does not apply to the model), the
    class's question asked from those numbers (`runs.class_questions`), and its words and figure: the function of
    that name in `WORDS_MODULE` (the UI layer, which this layer may not import; `ui.pages.lesson.steps.build_step`
    finds it from here, so a step cannot exist without its words)."""

    name: str
    numbers: Callable[[ModelBundle, TraceData], StepNumbers | None]
    question: Callable[[Any, TraceData], ClassQuestion | None]
    words: str

    @property
    def number(self) -> int:
        """The step as the class counts it: 1 for the first."""
        return STEPS.index(self.name) + 1


WORDS_MODULE = "ui.pages.lesson.steps"  # where each step's `words` function is

# The lesson, in teaching order: the one list of its steps.
LESSON: tuple[LessonStep, ...] = (
    # what the model is asked to do, and did
    LessonStep("task", task_numbers, questions.task_question, "task_words"),
    # one step between any two words
    LessonStep("why_attention", why_attention_numbers, questions.why_attention_question, "why_attention_words"),
    # token vectors × √d_model
    LessonStep("embeddings", embedding_numbers, questions.embeddings_question, "embeddings_words"),
    # the position codes added to them
    LessonStep("positional", positional_numbers, questions.positional_question, "positional_words"),
    # one attention computation, q·k ÷ √d_k, softmax
    LessonStep("attention", attention_numbers, questions.attention_question, "attention_words"),
    # why ÷ √d_k
    LessonStep("scaling", scaling_numbers, questions.scaling_question, "scaling_words"),
    # many heads; one removed
    LessonStep("heads", heads_numbers, questions.heads_question, "heads_words"),
    # LayerNorm
    LessonStep("layernorm", layernorm_numbers, questions.layernorm_question, "layernorm_words"),
    # the position-wise feed-forward layer
    LessonStep("feed_forward", feed_forward_numbers, questions.feed_forward_question, "feed_forward_words"),
    # the decoder's causal mask
    LessonStep("masks", mask_numbers, questions.masks_question, "masks_words"),
    # cross-attention
    LessonStep("cross", cross_numbers, questions.cross_question, "cross_words"),
    # the whole model, to its output probabilities
    LessonStep("architecture", architecture_numbers, questions.architecture_question, "architecture_words"),
    # the model's own numbers
    LessonStep("recap", recap_numbers, questions.recap_question, "recap_words"),
)
STEPS: tuple[str, ...] = tuple(step.name for step in LESSON)
_BY_NAME: dict[str, LessonStep] = {step.name: step for step in LESSON}


def lesson_step(name: str) -> LessonStep:
    """The registry's record of step `name` (a name in `STEPS`)."""
    return _BY_NAME[name]


def step_numbers(step: str, bundle: ModelBundle, trace: TraceData) -> StepNumbers | None:
    """Everything step `step` (a name in `STEPS`) shows for `trace`, a run of `bundle` capturing every hook; None
    where the step does not apply to the model."""
    return _BY_NAME[step].numbers(bundle, trace)


def class_question(step: str, numbers: StepNumbers | None, trace: TraceData) -> ClassQuestion | None:
    """The class's question on step `step` (its `numbers`) for the run `trace`: the question its record names, or
    None where the step asks nothing the model can settle (a step the model skips, a sentence outside the grammar,
    an untrained model that generates nothing)."""
    if numbers is None:  # a step the model skips (an encoder-only model has no causal mask to lift): nothing to ask
        return None
    return _BY_NAME[step].question(numbers, trace)
