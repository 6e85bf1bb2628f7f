"""What each lesson step says and draws, in the UI language: one `StepContent` per step.

The page (views/lesson.py) shows one step at a time and the handout (ui/pages/lesson/handout.py) all of
them, from the same content, so the two never disagree. Every number of a step comes from one call,
`ui.caches.get_lesson_step` → `runs.lesson.step_numbers` (the live answer and the figure's arrays);
this file only puts them into words (the UI language) and figures (`viz/` builders).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import plotly.graph_objects as go

from hook_names import ordinal
from runs import lesson
from runs.heads import axes_of
from runs.lesson_numbers import HeadChoice, LayerNormNumbers, StepNumbers, TaskNumbers
from runs.model_kind import ModelKind, model_kind
from transformer.storage.checkpoint import ModelBundle
from ui.caches import get_bundle, get_lesson_step, get_trace
from ui.figure_words import (
    grid_text,
    heatmap_text,
    layernorm_text,
    lesson_text,
    mask_text,
    positional_text,
    scaling_text,
    step_text,
)
from ui.i18n import current_language, t
from ui.model_words import alignment_verb
from ui.pages.lesson.modern_steps import modern_step
from ui.projector import TICK_PX
from ui.safe import md_literal
from viz.head_grid import grid_figure
from viz.heatmap import HeatmapText, head_figure, matrix_figure
from viz.layernorm_figures import rms_detail_figure, site_detail_figure
from viz.lesson_figures import head_count_figure, parameter_figure, probability_figure
from viz.mask_figures import binary_heatmap
from viz.positional import pe_curves
from viz.scaling import variance_figure
from viz.step_figures import scores_figure
from viz.tokens import TokenAxis, visible_token
from viz.trace import TraceData

FIRST = str(ordinal(0))  # "1": the first layer or head in a link, as the pages count them
FIGURE_HEIGHT = 420  # px: a step's figure, under the title and the sentence bar, fits a 1280 × 720 window
FIGURE_WIDTH = 640  # px: the figure column (3 of 5) of a 1280 px window
AXIS_STANDOFF = 12  # px between an axis title and its tick labels


@dataclass(frozen=True)
class Lesson:
    """The class's sentence run once through the chosen model (every hook point captured)."""

    model_key: str
    bundle: ModelBundle
    trace: TraceData

    @property
    def text(self) -> str:
        return self.trace.text

    @property
    def kind(self) -> ModelKind:
        """What the model is (trained or not, its task, its architecture): every step words itself from it."""
        return model_kind(self.bundle)

    def numbers(self, step: str) -> StepNumbers | None:
        """Everything step `step` shows, before any words (its `runs.lesson_numbers` record; None where it does not
        apply to the model), cached per model, sentence and step."""
        return get_lesson_step(self.model_key, self.text, step)


@dataclass(frozen=True)
class StepContent:
    """One step as the class sees it. `figure_hidden`: the figure proves the answer, so Reveal shows it."""

    step: str
    title: str
    text: str
    question: str | None = None
    answer: str | None = None
    notes: str = ""
    figure: go.Figure | None = None
    figure_hidden: bool = True
    extra: str = ""  # markdown shown always (e.g. the feed-forward shapes)
    lab_page: str = "architecture"
    lab_params: dict[str, str] = field(default_factory=dict)
    answer_label: str = ""  # what the answer is when it is not the model's ("Counted on the class's sentence")
    skipped: str = ""  # why this step does not apply to the model (then it asks nothing)


def lesson_for(model_key: str, text: str) -> Lesson:
    return Lesson(model_key, get_bundle(model_key), get_trace(model_key, text))


def lit(token: object) -> str:
    """A token or number as the class reads it (a word piece without its word-start mark, as the figures show it),
    safe inside markdown (user text never becomes markup)."""
    return md_literal(visible_token(str(token)))


def code(text: object) -> str:
    """A model's output (or the task's right one) as inline code: for a copy or reverse task it is the user's
    sentence, so it goes through `md_literal` too (a backtick in it must not close the span); empty is "∅"."""
    return md_literal(text or "∅", code=True)


OUTPUT_CHARS = 32  # an output the answer quotes is cut here: a 64-character induction loop filled the projector twice


def clip_output(text: str, limit: int = OUTPUT_CHARS) -> str:
    """`text`, or its first `limit` characters and "…" (the figure and the lab page show the whole)."""
    return text if len(text) <= limit else text[:limit] + "…"


def num(value: float, digits: int = 2) -> str:
    return f"{value:.{digits}f}"


def arch_key(kind: ModelKind) -> str:
    """The catalog suffix of an architecture: "encoder-decoder" → "encoder_decoder"."""
    return kind.architecture.replace("-", "_")


def card_summary(bundle: ModelBundle) -> str:
    """The model card's one-line summary of its task, in the UI language ("" when the card has none)."""
    summary = bundle.card.get(f"summary_{current_language()}") or bundle.card.get("summary") or ""
    return md_literal(str(summary))


def fit(fig: go.Figure, height: int = FIGURE_HEIGHT) -> go.Figure:
    """The figure at the lesson's height, filling the column's width (viz builders size for the lab pages); each axis
    title set off from its tick labels, margins grown to hold both (rotated token labels ran under "key")."""
    fig.update_layout(height=height, width=None)
    fig.update_xaxes(automargin=True, title_standoff=AXIS_STANDOFF)
    fig.update_yaxes(automargin=True, title_standoff=AXIS_STANDOFF)
    return fig


def task_words(ls: Lesson) -> StepContent:
    kind, numbers = ls.kind, ls.numbers("task")
    text = t(f"lesson.task_text_{arch_key(kind)}")
    if not kind.trained:
        text += " " + t("lesson.task_untrained")
    else:
        judged = "lesson.task_corpus" if kind.corpus else "lesson.task_judged" if kind.judged else "lesson.task_unjudged"
        text += " " + t(judged, summary=card_summary(ls.bundle))
    if kind.architecture == "encoder-only":
        return StepContent("task", t("lesson.task_title"), text, notes=t("lesson.task_notes"), lab_page="architecture")
    output = code(numbers.output or "∅")
    if not kind.trained:
        reply = t("lesson.task_answer_untrained", output=output)
    elif not kind.judged:
        reply = t("lesson.task_answer_unjudged", output=output)
    elif kind.corpus:
        reply = _corpus_reply(numbers, output)
    else:
        verdict = {True: "correct", False: "wrong", None: "unknown"}[numbers.correct]
        reply = t(f"lesson.task_answer_{verdict}", output=output, expected=code(numbers.expected))
        if numbers.more:
            reply += " " + t("lesson.task_answer_more", more=numbers.more)
    notes, fig = t("lesson.task_notes"), None
    if numbers.alignment is not None:
        verb = alignment_verb(ls.bundle)
        fig = matrix_figure(
            numbers.alignment,  # (T_out, T_src)
            TokenAxis(ls.trace.output_tokens),
            TokenAxis(numbers.source),
            HeatmapText(x_title=t("lesson.fig_source"), y_title=t("lesson.fig_target"), value=verb),
            fmt=".0f",
        )
        notes += " " + t("lesson.task_figure_note", verb=verb)
    elif numbers.head is not None and numbers.attention is not None:  # no alignment: the alignment head's reading
        head = numbers.head
        fig = head_figure(
            numbers.attention,  # (T_out, T_src)
            TokenAxis(ls.trace.output_tokens),
            TokenAxis(numbers.source),
            HeatmapText(x_title=t("lesson.fig_source"), y_title=t("lesson.fig_target"), value=t("step.fig_weight")),
        )
        reply += " " + t("lesson.task_figure_head", layer=ordinal(head.layer), head=ordinal(head.head))
    else:  # said with the answer: before Reveal it would give the verdict away
        reply += " " + t(no_figure_key(kind, numbers.correct), step=lesson.lesson_step("cross").number)
    return StepContent(
        "task",
        t("lesson.task_title"),
        text,
        t(f"lesson.task_question_{kind.wording}"),
        reply,
        notes,
        fig,
        lab_page="architecture",
    )


def no_figure_key(kind: ModelKind, correct: bool | None) -> str:
    """Why step 1 draws no alignment: untrained, a real sentence pair (no word alignment comes with it), a right
    output whose task defines no token-by-token alignment (an induction sequence), or an output the task's rules
    give no alignment for (wrong, or an input outside them)."""
    if not kind.trained:
        return "lesson.task_no_figure_untrained"
    if kind.corpus:
        return "lesson.task_no_figure_corpus"
    return "lesson.task_no_figure_unaligned" if correct else "lesson.task_no_figure"


def _corpus_reply(numbers: TaskNumbers, output: str) -> str:
    """A natural translator's verdict: a human translation is one right answer among many, so an output that
    differs is compared (chrF) and left to the class, and a sentence outside the corpus has no reference at all."""
    if numbers.expected is None:
        return t("lesson.task_answer_corpus_none", output=output)
    split = t("lesson.task_corpus_heldout" if numbers.heldout else "lesson.task_corpus_trained")
    if numbers.correct:
        return t("lesson.task_answer_corpus_match", output=output, split=split)
    return t(
        "lesson.task_answer_corpus_differs",
        output=output,
        expected=code(numbers.expected),
        chrf=num(numbers.chrf, 1),  # type: ignore[arg-type]  # a corpus reference comes with its chrF
        split=split,
    )


def why_attention_words(ls: Lesson) -> StepContent:
    numbers = ls.numbers("why_attention")
    tokens = numbers.tokens
    fig = matrix_figure(
        numbers.lengths,  # (T, T)
        TokenAxis(tokens, hex=numbers.raw),
        TokenAxis(tokens, hex=numbers.raw),
        HeatmapText(
            x_title=t("lesson.fig_from"), y_title=t("lesson.fig_to"), value=t("lesson.fig_steps"), bytes=t("bytes.hover")
        ),
        zmax=max(len(tokens) - 1, 1),
        fmt=".0f",
    )
    return StepContent(
        "why_attention",
        t("lesson.why_attention_title"),
        t("lesson.why_attention_text"),
        t("lesson.why_attention_question", first=lit(numbers.first), last=lit(numbers.last)),
        t("lesson.why_attention_answer", rnn=numbers.rnn, attention=numbers.attention, n=numbers.n),
        t("lesson.why_attention_notes"),
        fig,
        lab_page="heads",
        lab_params={"kind": lesson.query_kind(ls.trace)},
        answer_label=t("lesson.answer_counted"),
    )


def embeddings_words(ls: Lesson) -> StepContent:
    if (modern := modern_step(ls, "embeddings", StepContent)) is not None:  # this model's own part (Llama / Qwen)
        return modern
    from viz.embedding_scale import norms_figure  # one figure module per step keeps the page's imports short

    numbers = ls.numbers("embeddings")
    scale, d = numbers.scale, numbers.d_model
    fig = norms_figure(scale, positional_text())
    return StepContent(
        "embeddings",
        t("lesson.embeddings_title"),
        t("lesson.embeddings_text"),
        t("lesson.embeddings_question", d_model=d),
        t(
            "lesson.embeddings_answer",
            raw=num(numbers.raw),
            scaled=num(numbers.scaled),
            pe=num(numbers.pe),
            sqrt_d=num(numbers.sqrt_d),
            d_model=d,
        )
        + " "
        + t(f"lesson.embeddings_balance_{numbers.balance}", ratio=num(numbers.ratio, 1)),
        t("lesson.embeddings_notes"),
        fig,
        lab_page="positional",
    )


def positions_named(positions: tuple[int, ...]) -> str:
    """ "position 9", or "positions 9, 11 (a tie)" when several share the extreme value."""
    if len(positions) == 1:
        return t("lesson.position_one", p=positions[0])
    return t("lesson.position_tie", ps=", ".join(str(p) for p in positions))


def positional_words(ls: Lesson) -> StepContent:
    if (modern := modern_step(ls, "positional", StepContent)) is not None:  # this model's own part (Llama / Qwen)
        return modern
    numbers = ls.numbers("positional")
    d, learned = numbers.d_model, numbers.learned
    fig = pe_curves(numbers.table, numbers.dims, positional_text())  # table (P, d_model)
    reply = t(
        "lesson.positional_answer_learned" if learned else "lesson.positional_answer",
        nearest=positions_named(numbers.nearest),
        farthest=positions_named(numbers.farthest),
        cos_nearest=num(numbers.cos_nearest, 3),
        cos_farthest=num(numbers.cos_farthest, 3),
    )
    return StepContent(
        "positional",
        t("lesson.positional_title"),
        t("lesson.positional_text_learned" if learned else "lesson.positional_text"),
        t("lesson.positional_question", position=numbers.position, last=numbers.positions - 1),
        reply,
        t("lesson.positional_notes"),
        fig,
        figure_hidden=False,
        lab_page="positional",
        lab_params={"pe_d": str(d)},
        answer_label="" if learned else t("lesson.answer_formula"),
    )


def attention_words(ls: Lesson) -> StepContent:
    numbers = ls.numbers("attention")
    fig = scores_figure(
        numbers.view,
        step_text(),
        width_px=FIGURE_WIDTH,
        font_px=TICK_PX,  # the projector's cell size: the decimals that fit there fit everywhere
    )
    kind, query = numbers.kind, lit(numbers.query)
    reply = t("lesson.attention_answer", query=query, word=lit(numbers.key), weight=num(numbers.weight))
    if numbers.first_shown > 0 or numbers.last_shown < numbers.n_keys - 1:
        reply += " " + t(
            "lesson.attention_hidden",
            first=numbers.first_shown,
            last=numbers.last_shown,
            n=numbers.n_keys,
            weight=num(numbers.hidden_weight, 3),
        )
    return StepContent(
        "attention",
        t("lesson.attention_title"),
        t("lesson.attention_text"),
        t(
            "lesson.attention_question",
            kind=t(f"lesson.kind_{kind}"),
            layer=ordinal(0),
            head=ordinal(0),
            query=query,
        ),
        reply,
        t("lesson.attention_notes"),
        fig,
        lab_page="step_by_step",
        # the page's query picker holds its option's label in the URL ("3: 我 → 今天"), as `option_label` writes it
        lab_params={
            "kind": kind,
            "layer": FIRST,
            "head": FIRST,
            "query": axes_of(ls.trace, kind)[0].option_label(numbers.query_index, t("bytes.option")),
        },
    )


def scaling_words(ls: Lesson) -> StepContent:
    numbers = ls.numbers("scaling")
    demo = numbers.demo
    fig = variance_figure(demo, scaling_text())
    return StepContent(
        "scaling",
        t("lesson.scaling_title"),
        t("lesson.scaling_text"),
        t("lesson.scaling_question", d_k=numbers.d_k),
        t(
            "lesson.scaling_answer",
            unscaled=num(numbers.unscaled, 3),
            scaled=num(numbers.scaled, 3),
            variance=num(numbers.variance, 3),
            d_k=numbers.d_k,
        ),
        t("lesson.scaling_notes"),
        fig,
        figure_hidden=False,
        lab_page="step_by_step",
        lab_params={"dk": str(numbers.d_k)},  # the page's slider holds the model's own d_k
        answer_label=t("lesson.answer_simulated"),
    )


def heads_words(ls: Lesson) -> StepContent:
    numbers = ls.numbers("heads")
    choice = numbers.choice
    query_axis, key_axis = numbers.axes
    fig = grid_figure(
        numbers.patterns,  # (L, H, Tq, Tk)
        marked=numbers.marked,  # (L, H)
        text=grid_text(),
        query_axis=query_axis,
        key_axis=key_axis,
    )
    changed = "changed" if numbers.before != numbers.after else "same"
    kind_name = t(f"lesson.kind_{choice.kind}")
    question = "lesson.heads_question_sharpest"
    if numbers.from_table:
        question = "lesson.heads_question_tie" if numbers.tied else "lesson.heads_question"
    return StepContent(
        "heads",
        t("lesson.heads_title"),
        t("lesson.heads_text"),
        t(
            question,
            kind=kind_name,
            layer=ordinal(choice.layer),
            head=ordinal(choice.head),
            share=f"{numbers.share or 0:.0%}",
            others=heads_named(numbers.tied),
        ),
        t(
            f"lesson.heads_answer_{changed}",
            changed=numbers.changed,
            before=code(clip_output(numbers.before)),
            after=code(clip_output(numbers.after)),
        ),
        t("lesson.heads_notes"),
        fig,
        figure_hidden=False,
        lab_page="heads",
        lab_params={"kind": choice.kind, "layer": str(ordinal(choice.layer)), "head": str(ordinal(choice.head))},
    )


def heads_named(heads: tuple[HeadChoice, ...]) -> str:
    """Heads as the class counts them, in the UI language: "cross-attention, layer 3, head 3; …"."""
    return t("lesson.list_sep").join(
        t("lesson.head_named", kind=t(f"lesson.kind_{h.kind}"), layer=ordinal(h.layer), head=ordinal(h.head)) for h in heads
    )


def small(value: float) -> str:
    """A number to 3 decimals, or as 1e-05 where that would print 0.000 (the mean LayerNorm leaves)."""
    return num(value, 3) if abs(value) >= 1e-3 else f"{value:.0e}"


def layernorm_words(ls: Lesson) -> StepContent:
    """The norm step on the model's own norm: LayerNorm's mean 0 and standard deviation 1, or RMSNorm's root mean
    square 1 (`rmsnorm_words`), written as this model wraps its sublayers (post- or pre-norm)."""
    numbers = ls.numbers("layernorm")
    if numbers.norm == "rmsnorm":
        return rmsnorm_words(ls, numbers)
    pre = ls.bundle.config.norm_position == "pre"
    fig = site_detail_figure(
        numbers.stats,
        0,
        TokenAxis(numbers.tokens, hex=numbers.raw),  # a byte-level piece's raw bytes in the hover
        layernorm_text(),
    )
    return StepContent(
        "layernorm",
        t("lesson.layernorm_title"),
        t("lesson_parts.text_pre_layernorm") if pre else t("lesson.layernorm_text"),
        t("lesson.layernorm_question"),
        t(
            "lesson.layernorm_answer",
            in_mean=small(numbers.in_mean),
            in_std_min=small(numbers.in_std_min),
            in_std_max=small(numbers.in_std_max),
            out_mean=small(numbers.out_mean),
            out_std_min=small(numbers.out_std_min),
            out_std_max=small(numbers.out_std_max),
            affine_std_min=small(numbers.affine_std_min),
            affine_std_max=small(numbers.affine_std_max),
        ),
        t("lesson.layernorm_notes"),
        fig,
        lab_page="layernorm",
    )


def rmsnorm_words(ls: Lesson, numbers: LayerNormNumbers) -> StepContent:
    """The norm step on an RMSNorm model (Llama, Qwen): it divides by the root mean square and subtracts no mean,
    so the question, the class's choices (`runs.class_questions.rmsnorm_question`) and the answer name the mean
    and the root mean square, with this run's numbers; no LayerNorm claimed. The figure: each token's mean and root
    mean square before and after the first RMSNorm (its gain removed): the root mean squares all at 1, the means not
    at 0."""
    pre = ls.bundle.config.norm_position == "pre"
    in_mean, in_rms, out_mean, out_rms = numbers.rms_series
    words = replace(layernorm_text(), input=t("lesson_parts.rms_figure_input"), output=t("lesson_parts.rms_figure_output"))
    fig = rms_detail_figure(TokenAxis(numbers.tokens, hex=numbers.raw), (in_mean, in_rms), (out_mean, out_rms), words)
    return StepContent(
        "layernorm",
        t("modern.lesson_layernorm_title"),
        t("modern.lesson_layernorm_text") if pre else t("lesson_parts.text_post_rmsnorm"),
        t("lesson_parts.rms_question"),
        t(
            "lesson_parts.rms_answer",
            in_mean=small(numbers.in_mean),
            in_rms_min=small(numbers.in_rms_min),
            in_rms_max=small(numbers.in_rms_max),
            out_mean=small(numbers.out_mean),
            out_rms_min=small(numbers.out_rms_min),
            out_rms_max=small(numbers.out_rms_max),
        ),
        t("lesson_parts.rms_notes"),
        fig,
        lab_page="layernorm",
    )


def feed_forward_words(ls: Lesson) -> StepContent:
    """The feed-forward step on the model's own layer: the paper's ReLU network, or a SwiGLU (Llama, Qwen), with the
    same question (which holds more parameters?), true on both, and the norm bars named as the model's norm."""
    config = ls.bundle.config
    shapes = ls.numbers("feed_forward")
    groups = shapes.groups
    words = lesson_text()
    if config.norm == "rmsnorm":  # the parameter bars name the model's own norm
        words = replace(words, norm=t("lesson_parts.part_rmsnorm"))
    fig = parameter_figure(groups, words)
    swiglu = config.feed_forward == "swiglu"
    sizes = {"n": shapes.n, "d_model": shapes.d_model, "d_ff": shapes.d_ff}
    return StepContent(
        "feed_forward",
        t("modern.lesson_feed_forward_title") if swiglu else t("lesson.feed_forward_title"),
        t("modern.lesson_feed_forward_text", **sizes) if swiglu else t("lesson.feed_forward_text"),
        t("lesson.feed_forward_question"),
        t(
            "lesson.feed_forward_answer",
            ffn=f"{shapes.ffn_params:,}",
            attn=f"{shapes.attn_params:,}",
            share=f"{shapes.share:.0%}",
        ),
        t("lesson_parts.feed_forward_notes_swiglu") if swiglu else t("lesson.feed_forward_notes"),
        fig,
        extra=t("lesson_parts.feed_forward_shapes_swiglu" if swiglu else "lesson.feed_forward_shapes", **sizes),
        lab_page="feed_forward",
    )


def skipped_step(step: str, text: str, why: str, lab_page: str) -> StepContent:
    """A step that does not apply to this model: its title and text, and why it is skipped (no question)."""
    return StepContent(step, t(f"lesson.{step}_title"), text, lab_page=lab_page, skipped=why)


def masks_words(ls: Lesson) -> StepContent:
    if not ls.kind.has_decoder:
        return skipped_step("masks", t("lesson.masks_text"), t("lesson.skip_masks_encoder_only"), "masks")
    numbers = ls.numbers("masks")
    if numbers is None:  # no decoder, no causal mask (an encoder-only model)
        return StepContent(
            "masks",
            t("lesson.masks_title"),
            t("lesson.masks_text"),
            None,
            None,
            t("lesson.masks_notes"),
            None,
            extra=t("lesson.no_figure", what=t("lesson.kind_decoder")),
            lab_page="masks",
        )
    state = {True: "changed", False: "same", None: "none"}[numbers.changed]
    query_axis, key_axis = numbers.axes
    fig = binary_heatmap(
        numbers.mask,  # (Tt, Tt)
        row_tokens=query_axis,
        col_tokens=key_axis,
        text=mask_text(),
    )
    return StepContent(
        "masks",
        t("lesson.masks_title"),
        t("lesson.masks_text"),
        t("lesson.masks_question"),
        t(
            f"lesson.masks_answer_{state}",
            with_=code(clip_output(numbers.with_mask)),
            without=code(clip_output(numbers.without_mask)),
            rows=numbers.rows,
            n_rows=numbers.n_rows,
            looking=numbers.looking,
        ),
        t("lesson.masks_notes"),
        fig,
        figure_hidden=False,
        extra=t("lesson.masks_clipped", shown=numbers.shown, n=numbers.positions) if numbers.shown < numbers.positions else "",
        lab_page="masks",
        lab_params={"kind": "decoder", "layer": FIRST, "head": FIRST, "row": masks_row(ls.text)},
    )


def masks_row(text: str) -> str:
    """The Masks page's row picker on the class's sentence (the batch's first line), as its URL holds it: the option's
    label, "1: <sentence>" (a plain number is not one of its options, and the page would open on its shortest line)."""
    return f"1: {text}"


def cross_words(ls: Lesson) -> StepContent:
    kind = ls.kind
    numbers = ls.numbers("cross")
    if numbers is None:
        why = "decoder_only" if kind.has_decoder else "encoder_only"
        # a model without an encoder has no middle sublayer: the step says what the paper's does, then why it skips
        text = t("lesson.cross_text", verb=alignment_verb(ls.bundle)) if kind.has_cross else t("lesson_parts.cross_text_paper")
        return skipped_step("cross", text, t(f"lesson.skip_cross_{why}"), "heads")
    choice, alignment = numbers.choice, numbers.alignment
    query_axis, key_axis = numbers.axes
    verb = alignment_verb(ls.bundle)
    fig = head_figure(
        numbers.pattern,  # (Tq, Tk)
        query_axis,
        key_axis,
        replace(heatmap_text(), value=t("step.fig_weight"), alignment=verb),
        alignment=alignment,
    )
    reply = t(
        "lesson.cross_answer",
        reads=lit(numbers.reads),
        weight=num(numbers.weight),
        layer=ordinal(choice.layer),
        head=ordinal(choice.head),
    )
    if alignment is not None:
        reply += " " + t("lesson.cross_outlined")
    summary = card_summary(ls.bundle) if kind.trained else ""
    return StepContent(
        "cross",
        t("lesson.cross_title"),
        t("lesson.cross_text", verb=verb) if kind.trained else t("lesson.cross_text_untrained"),
        t("lesson.cross_question", writes=lit(numbers.writes)),
        reply,
        t("lesson.cross_notes_task", summary=summary) if summary else t("lesson.cross_notes"),
        fig,
        lab_page="heads",
        lab_params={"kind": "cross", "layer": str(ordinal(choice.layer)), "head": str(ordinal(choice.head))},
    )


def probability(p: float) -> str:
    """A probability with the decimals it needs: 0.88, but 0.00053 for an untrained model's near-uniform guess."""
    return num(p) if p >= 0.01 else f"{p:.5f}"


def architecture_words(ls: Lesson) -> StepContent:
    kind, config = ls.kind, ls.bundle.config
    if not kind.has_decoder:
        text, why = t("lesson.architecture_text_encoder_only"), t("lesson.skip_architecture_encoder_only")
        return skipped_step("architecture", text, why, "architecture")
    numbers = ls.numbers("architecture")
    probs, eps = numbers.probabilities, numbers.label_smoothing
    cap = 1 - eps if kind.trained and eps else None
    words = TokenAxis(tuple(w for w, _ in probs), hex=numbers.raw)  # a byte-level piece's raw bytes in the hover
    fig = probability_figure(words, [p for _, p in probs], lesson_text(), cap=cap, written=kind.trained)
    reply = t("lesson.architecture_answer", word=lit(numbers.word), p=probability(numbers.p), mean=probability(numbers.mean))
    if not kind.trained:
        vocab = config.tgt_vocab_size
        reply += " " + t("lesson.architecture_untrained", vocab=f"{vocab:,}", uniform=probability(1 / vocab))
    elif eps is None:
        reply += " " + t("lesson.architecture_unknown_smoothing")
    elif eps == 0:
        reply += " " + t("lesson.architecture_no_smoothing")
    elif numbers.versus_cap is not None:  # worded from the average shown beside it: near the target, below or above it
        where = numbers.versus_cap
        mean = probability(numbers.mean)
        reply += " " + t(f"lesson.architecture_smoothing_{where}", eps=f"{eps:g}", cap=num(1 - eps), mean=mean)
    return StepContent(
        "architecture",
        t("lesson.architecture_title"),
        t(f"lesson.architecture_text_{arch_key(kind)}"),
        t("lesson.architecture_question" if kind.trained else "lesson.architecture_question_untrained"),
        reply,
        t("lesson.architecture_notes"),
        fig,
        lab_page="architecture",
    )


def recap_words(ls: Lesson) -> StepContent:
    numbers = ls.numbers("recap")
    rows = [
        t("lesson.head_row", kind=t(f"lesson.kind_{kind}"), layer=ordinal(layer))
        for kind in numbers.kinds
        for layer in range(numbers.n_layers)
    ]
    fig = head_count_figure(rows, numbers.n_heads, lesson_text())
    rms = ls.bundle.config.norm == "rmsnorm"  # question 5 names the model's own norm
    paper = numbers.d_model // numbers.n_heads  # Qwen3 sets its head width itself: answer 2 says so
    answer = t(
        "lesson.recap_answer" if numbers.d_k == paper else "lesson_parts.recap_answer_own_d_k",
        paper=paper,
        heads=numbers.heads,
        kinds=len(numbers.kinds),
        layers=numbers.n_layers,
        n_heads=numbers.n_heads,
        d_k=numbers.d_k,
        d_model=numbers.d_model,
        params=f"{numbers.params:,}",
    )
    return StepContent(
        "recap",
        t("lesson.recap_title"),
        t("lesson.recap_text"),
        t("lesson_parts.recap_question_rms") if rms else t("lesson.recap_question"),
        answer,
        t("lesson.recap_notes"),
        fig,
        lab_page="heads",
        lab_params={"kind": numbers.choice.kind},
    )


def build_step(step: str, ls: Lesson) -> StepContent:
    """The content of step `step` (a name in `runs.lesson.STEPS`) on the lesson's sentence: the words function its
    registry record names (`runs.lesson.LessonStep.words`, a function of this module)."""
    words: Callable[[Lesson], StepContent] = globals()[lesson.lesson_step(step).words]
    content = words(ls)
    content = replace(content, answer=tidy(content.answer), question=tidy(content.question))
    if content.figure is not None:
        fit(content.figure)
    return content


# A code span (the model's output) that ends its own sentence, then the catalog's full stop after the placeholder:
# "`她。`." reads as double punctuation, so the catalog's mark goes.
_DOUBLE_STOP = re.compile(r"([.!?。！？…] ?`+)[.。]")


def tidy(text: str | None) -> str | None:
    """`text` without a full stop doubled after an output that already ends a sentence ("`她。`." → "`她。`")."""
    return None if text is None else _DOUBLE_STOP.sub(r"\1", text)
