"""What each lesson step says and draws, in the UI language: one `StepContent` per step.

The page (views/lesson.py) shows one step at a time and the handout (ui/lesson_handout.py) all of
them, from the same content, so the two never disagree. Numbers come from `runs.lesson` (the
live answers), figures from the existing `viz/` builders; nothing here computes a tensor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from runs import lesson
from runs.heads import gold_alignment
from runs.teaching_arrays import stack_reading_text
from transformer.checkpoint import ModelBundle
from ui.i18n import t
from ui.models import get_bundle, get_trace
from ui.safe import md_literal
from viz.architecture import architecture_boxes
from viz.architecture_figure import architecture_figure
from viz.head_grid import grid_figure
from viz.head_importance import importance_figure
from viz.heatmap import HeatmapText, head_figure, matrix_figure
from viz.layernorm_figures import site_detail_figure
from viz.mask_figures import binary_heatmap
from viz.positional import pe_curves
from viz.scaling import scaling_demo, variance_figure
from viz.step_figures import scores_figure
from viz.tokens import TokenAxis, attention_axes
from viz.trace import TraceData

VIEWS = Path(__file__).resolve().parent.parent / "views"
FIGURE_HEIGHT = 440  # px: a step's figure fits beside its text in a 1280 × 720 window
TALL_FIGURES = {"architecture": 580}  # Figure 1's boxes need the room; it still ends above 720 px


@dataclass(frozen=True)
class Lesson:
    """The class's sentence run once through the chosen model (every hook point captured)."""

    model_key: str
    bundle: ModelBundle
    trace: TraceData

    @property
    def text(self) -> str:
        return self.trace.text


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


def lesson_for(model_key: str, text: str) -> Lesson:
    return Lesson(model_key, get_bundle(model_key), get_trace(model_key, text))


def lit(token: object) -> str:
    """A token or number safe inside markdown (user text never becomes markup)."""
    return md_literal(str(token))


def num(value: float, digits: int = 2) -> str:
    return f"{value:.{digits}f}"


def fit(fig: go.Figure, height: int = FIGURE_HEIGHT) -> go.Figure:
    """The figure at the lesson's height, filling the column's width (viz builders size for the lab pages)."""
    fig.update_layout(height=height, width=None)
    return fig


@st.cache_data(max_entries=64, show_spinner=False)
def mask_answer(model_key: str, text: str) -> dict[str, object]:
    """`runs.lesson.mask_answer` (two generations and two teacher-forced passes), once per sentence."""
    return lesson.mask_answer(get_bundle(model_key), get_trace(model_key, text))


@st.cache_data(max_entries=64, show_spinner=False)
def architecture_answer(model_key: str, text: str) -> dict[str, object]:
    return lesson.architecture_answer(get_bundle(model_key), get_trace(model_key, text))


@st.cache_data(max_entries=64, show_spinner=False)
def head_choice(model_key: str, text: str) -> tuple[lesson.HeadChoice, lesson.HeadChoice | None]:
    """(the most important head, the best aligned cross head): the stored tables fingerprint the weights."""
    bundle, trace = get_bundle(model_key), get_trace(model_key, text)
    return lesson.important_head(bundle, trace), lesson.cross_head(bundle, trace)


def _task(ls: Lesson) -> StepContent:
    answer = lesson.task_answer(ls.bundle, ls.trace)
    verdict = {True: "correct", False: "wrong", None: "unknown"}[answer["correct"]]
    text = t(f"lesson.task_answer_{verdict}", output=f"`{answer['output'] or '∅'}`", expected=f"`{answer['expected']}`")
    alignment = gold_alignment(ls.bundle, ls.trace)
    fig = None
    if alignment is not None and ls.trace.src_tokens:
        rows = ls.trace.output_tokens
        values = np.zeros((len(rows), len(ls.trace.src_tokens)), dtype=np.float32)  # (T_out, T_src)
        for row, key in enumerate(alignment[: len(rows)]):
            if key is not None:
                values[row, key] = 1.0
        fig = matrix_figure(
            values,
            TokenAxis(rows),
            TokenAxis(ls.trace.src_tokens),
            HeatmapText(x_title=t("lesson.fig_source"), y_title=t("lesson.fig_target"), value=t("lesson.fig_translates")),
            fmt=".0f",
        )
    return StepContent(
        "task",
        t("lesson.task_title"),
        t("lesson.task_text"),
        t("lesson.task_question"),
        text,
        t("lesson.task_notes"),
        fig,
        lab_page="architecture",
    )


def _why_attention(ls: Lesson) -> StepContent:
    answer = lesson.path_answer(ls.trace)
    tokens = ls.trace.src_tokens or ls.trace.tgt_tokens
    fig = matrix_figure(
        lesson.path_lengths(len(tokens)),
        TokenAxis(tokens),
        TokenAxis(tokens),
        HeatmapText(x_title=t("lesson.fig_from"), y_title=t("lesson.fig_to"), value=t("lesson.fig_steps")),
        zmax=max(len(tokens) - 1, 1),
        fmt=".0f",
    )
    return StepContent(
        "why_attention",
        t("lesson.why_attention_title"),
        t("lesson.why_attention_text"),
        t("lesson.why_attention_question", first=lit(answer["first"]), last=lit(answer["last"])),
        t("lesson.why_attention_answer", **answer),
        t("lesson.why_attention_notes"),
        fig,
        lab_page="heads",
        lab_params={"kind": lesson.query_kind(ls.trace)},
    )


def _embeddings(ls: Lesson) -> StepContent:
    from viz.embedding_scale import norms_figure  # one figure module per step keeps the page's imports short

    scale = lesson.embedding_scale(ls.bundle, ls.trace)
    answer = lesson.embedding_answer(scale)
    d = scale.d_model
    fig = norms_figure(
        scale,
        {k: t(f"positional.norm_{k}") for k in ("raw", "scaled", "pe", "total")},
        x_title=t("positional.token"),
        y_title=t("positional.norm"),
        reference_label=t("positional.pe_reference", value=num((d / 2) ** 0.5)),
    )
    values = {k: num(v) if isinstance(v, float) else v for k, v in answer.items()}
    return StepContent(
        "embeddings",
        t("lesson.embeddings_title"),
        t("lesson.embeddings_text"),
        t("lesson.embeddings_question", d_model=d),
        t("lesson.embeddings_answer", **values),
        t("lesson.embeddings_notes"),
        fig,
        lab_page="positional",
    )


def _positional(ls: Lesson) -> StepContent:
    d = ls.bundle.config.d_model
    answer = lesson.positional_answer(d)
    dims = [dim for dim in dict.fromkeys((0, 1, 6, d // 2)) if dim < d]
    fig = pe_curves(
        lesson.positional_table(d),
        dims,
        x_title=t("positional.position"),
        y_title=t("positional.value"),
        dim_label=t("positional.dimension"),
    )
    return StepContent(
        "positional",
        t("lesson.positional_title"),
        t("lesson.positional_text"),
        t("lesson.positional_question", position=answer["position"]),
        t("lesson.positional_answer", **answer),
        t("lesson.positional_notes"),
        fig,
        figure_hidden=False,
        lab_page="positional",
        lab_params={"pe_d": str(d)},
    )


def _attention(ls: Lesson) -> StepContent:
    answer = lesson.attention_answer(ls.trace)
    view = lesson.step_view(ls.trace)
    fig = scores_figure(
        view,
        {
            "dot": t("step.row_dot"),
            "scale": t("step.row_scale"),
            "mask": t("step.row_mask"),
            "softmax": t("step.row_softmax"),
            "key": t("step.axis_key"),
        },
    )
    kind = lesson.query_kind(ls.trace)
    return StepContent(
        "attention",
        t("lesson.attention_title"),
        t("lesson.attention_text"),
        t("lesson.attention_question", layer=0, head=0, query=lit(answer["query"])),
        t("lesson.attention_answer", query=lit(answer["query"]), word=lit(answer["key"]), weight=num(answer["weight"])),
        t("lesson.attention_notes"),
        fig,
        lab_page="step_by_step",
        lab_params={"kind": kind, "layer": "0", "head": "0", "query": str(lesson.attention_query(ls.trace))},
    )


def _scaling(ls: Lesson) -> StepContent:
    d_k = ls.bundle.config.d_k
    answer = lesson.scaling_answer(d_k)
    demo = scaling_demo(int(answer["d_k"]))
    fig = variance_figure(
        demo,
        {
            "unscaled": t("step.fig_unscaled"),
            "scaled": t("step.fig_scaled"),
            "expected": t("step.fig_expected"),
            "d_k": "d_k",
            "variance": t("step.fig_variance", n=demo.n_samples),
        },
    )
    values = {k: num(v, 3) if isinstance(v, float) else v for k, v in answer.items()}
    return StepContent(
        "scaling",
        t("lesson.scaling_title"),
        t("lesson.scaling_text"),
        t("lesson.scaling_question", d_k=answer["d_k"]),
        t("lesson.scaling_answer", **values),
        t("lesson.scaling_notes"),
        fig,
        figure_hidden=False,
        lab_page="step_by_step",
        lab_params={"dk": str(answer["d_k"])},
    )


def _heads(ls: Lesson) -> StepContent:
    choice, _ = head_choice(ls.model_key, ls.text)
    ablated = get_trace(ls.model_key, ls.text, None, lesson.ablation_specs(choice))
    answer = lesson.heads_answer(ls.trace, ablated, choice)
    patterns = ls.trace.patterns(choice.kind)  # (L, H, Tq, Tk)
    marked = np.zeros(patterns.shape[:2], dtype=bool)
    marked[choice.layer, choice.head] = True
    query_axis, key_axis = attention_axes(choice.kind, ls.trace.src_tokens, ls.trace.tgt_tokens, ls.trace.next_tokens)
    fig = grid_figure(
        patterns,
        marked=marked,
        tile_label=t("heads.tile_label"),
        hover=t("heads.tile_hover"),
        query_axis=query_axis,
        key_axis=key_axis,
    )
    changed = "changed" if answer["before"] != answer["after"] else "same"
    kind_name = t(f"lesson.kind_{choice.kind}")
    return StepContent(
        "heads",
        t("lesson.heads_title"),
        t("lesson.heads_text"),
        t("lesson.heads_question", kind=kind_name, layer=choice.layer, head=choice.head),
        t(
            f"lesson.heads_answer_{changed}",
            changed=answer["changed"],
            before=f"`{answer['before'] or '∅'}`",
            after=f"`{answer['after'] or '∅'}`",
        ),
        t("lesson.heads_notes"),
        fig,
        figure_hidden=False,
        lab_page="heads",
        lab_params={"kind": choice.kind, "layer": str(choice.layer), "head": str(choice.head)},
    )


def _layernorm(ls: Lesson) -> StepContent:
    answer = lesson.layernorm_answer(ls.bundle, ls.trace)
    stats = lesson.layernorm_stats(ls.bundle, ls.trace)
    stack, _ = stack_reading_text(ls.bundle)
    tokens = ls.trace.src_tokens if stack == "encoder" else ls.trace.tgt_tokens
    fig = site_detail_figure(
        stats,
        0,
        tokens,
        names={"in": t("layernorm.input"), "out": t("layernorm.output")},
        token_title=t("layernorm.token"),
        mean_title=t("layernorm.mean"),
        std_title=t("layernorm.std"),
    )
    values = {k: num(v, 3) if abs(v) >= 1e-3 else f"{v:.0e}" for k, v in answer.items()}
    return StepContent(
        "layernorm",
        t("lesson.layernorm_title"),
        t("lesson.layernorm_text"),
        t("lesson.layernorm_question"),
        t("lesson.layernorm_answer", **values),
        t("lesson.layernorm_notes"),
        fig,
        lab_page="layernorm",
    )


def _feed_forward(ls: Lesson) -> StepContent:
    shapes = lesson.feed_forward_shapes(ls.bundle, ls.trace)
    page = "feed_forward" if (VIEWS / "feed_forward.py").exists() else "architecture"
    return StepContent(
        "feed_forward",
        t("lesson.feed_forward_title"),
        t("lesson.feed_forward_text"),
        t("lesson.feed_forward_question"),
        t(
            "lesson.feed_forward_answer",
            ffn=f"{shapes['ffn_params']:,}",
            attn=f"{shapes['attn_params']:,}",
            share=f"{shapes['share']:.0%}",
        ),
        t("lesson.feed_forward_notes"),
        None,
        extra=t("lesson.feed_forward_shapes", n=shapes["n"], d_model=shapes["d_model"], d_ff=shapes["d_ff"]),
        lab_page=page,
    )


def _masks(ls: Lesson) -> StepContent:
    answer = mask_answer(ls.model_key, ls.text)
    state = {True: "changed", False: "same", None: "none"}[answer["changed"]]
    query_axis, key_axis = attention_axes("decoder", ls.trace.src_tokens, ls.trace.tgt_tokens, ls.trace.next_tokens)
    fig = binary_heatmap(
        lesson.decoder_mask(ls.trace),
        row_tokens=query_axis,
        col_tokens=key_axis,
        title="",
        x_title=t("masks.key"),
        y_title=t("masks.query"),
        legend=(t("masks.allowed"), t("masks.blocked")),
    )
    return StepContent(
        "masks",
        t("lesson.masks_title"),
        t("lesson.masks_text"),
        t("lesson.masks_question"),
        t(
            f"lesson.masks_answer_{state}",
            with_=f"`{answer['with'] or '∅'}`",
            without=f"`{answer['without'] or '∅'}`",
            rows=answer["rows"],
            n_rows=answer.get("n_rows", 0),
            looking=answer["looking"],
        ),
        t("lesson.masks_notes"),
        fig,
        figure_hidden=False,
        lab_page="masks",
        lab_params={"kind": "decoder", "layer": "0", "head": "0"},
    )


def _cross(ls: Lesson) -> StepContent:
    _, choice = head_choice(ls.model_key, ls.text)
    if choice is None:
        return StepContent(
            "cross",
            t("lesson.cross_title"),
            t("lesson.cross_text"),
            None,
            None,
            t("lesson.cross_notes"),
            None,
            extra=t("lesson.no_figure", what=t("lesson.kind_cross")),
            lab_page="heads",
        )
    answer = lesson.cross_answer(ls.trace, choice)
    query_axis, key_axis = attention_axes("cross", ls.trace.src_tokens, ls.trace.tgt_tokens, ls.trace.next_tokens)
    fig = head_figure(
        ls.trace.pattern("cross", choice.layer)[choice.head],
        query_axis,
        key_axis,
        HeatmapText(
            x_title=t("heads.axis_key"),
            y_title=t("heads.axis_query"),
            value=t("step.fig_weight"),
            alignment=t("lesson.fig_translates"),
        ),
        alignment=gold_alignment(ls.bundle, ls.trace),
    )
    return StepContent(
        "cross",
        t("lesson.cross_title"),
        t("lesson.cross_text"),
        t("lesson.cross_question", writes=lit(answer["writes"])),
        t("lesson.cross_answer", reads=lit(answer["reads"]), weight=num(answer["weight"]), layer=choice.layer, head=choice.head),
        t("lesson.cross_notes"),
        fig,
        lab_page="heads",
        lab_params={"kind": "cross", "layer": str(choice.layer), "head": str(choice.head)},
    )


def _architecture_labels(ls: Lesson, stacks) -> tuple[dict[str, str], dict[str, str]]:
    """Box labels and figure text for `viz.architecture_figure`, from the architecture page's catalog."""
    config = ls.bundle.config
    components = {b.component for boxes in stacks.values() for b in boxes}
    labels = {c: t(f"architecture.comp_{c}") for c in components if c != "positional"}
    labels["positional"] = t(f"architecture.comp_positional_{config.positional}")
    labels["encoder.tokens"] = t("architecture.comp_tokens_encoder")
    labels["decoder.tokens"] = t(
        "architecture.comp_tokens_decoder" if config.is_encoder_decoder else "architecture.comp_tokens_decoder_only"
    )
    text = {k: t(f"architecture.{k}") for k in ("encoder", "decoder", "n_layers", "probabilities", "memory", "see")}
    for box in (b for boxes in stacks.values() for b in boxes if b.detail_hook):
        text[f"detail.{box.component}"] = t(f"architecture.detail_{box.component}")
    return labels, text


def _architecture(ls: Lesson) -> StepContent:
    config = ls.bundle.config
    answer = architecture_answer(ls.model_key, ls.text)
    stacks = architecture_boxes(
        config.is_encoder_decoder, config.norm_position, {name: a.shape for name, a in ls.trace.arrays.items()}
    )
    labels, text = _architecture_labels(ls, stacks)
    pages = {p for boxes in stacks.values() for b in boxes for p in b.pages}
    fig = architecture_figure(stacks, labels, text, config.n_layers, {p: t(f"nav.{p}") for p in pages})
    return StepContent(
        "architecture",
        t("lesson.architecture_title"),
        t("lesson.architecture_text"),
        t("lesson.architecture_question"),
        t("lesson.architecture_answer", word=lit(answer["word"]), p=num(answer["p"]), mean=num(answer["mean"])),
        t("lesson.architecture_notes"),
        fig,
        figure_hidden=False,
        lab_page="architecture",
    )


def _recap(ls: Lesson) -> StepContent:
    answer = lesson.recap_answer(ls.bundle, ls.trace)
    choice, _ = head_choice(ls.model_key, ls.text)
    view = lesson.importance_view(ls.bundle, choice.kind)
    fig = (
        None
        if view is None
        else importance_figure(
            view,
            titles=(t("lesson.fig_changed"), t("lesson.fig_drop")),
            layer_label=t("lesson.layer"),
            head_label=t("lesson.head"),
        )
    )
    return StepContent(
        "recap",
        t("lesson.recap_title"),
        t("lesson.recap_text"),
        t("lesson.recap_question"),
        t("lesson.recap_answer", **{**answer, "params": f"{answer['params']:,}"}),
        t("lesson.recap_notes"),
        fig,
        lab_page="heads",
        lab_params={"kind": choice.kind},
    )


BUILDERS: dict[str, Callable[[Lesson], StepContent]] = {
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


def build_step(step: str, ls: Lesson) -> StepContent:
    """The content of step `step` (a name in `runs.lesson.STEPS`) on the lesson's sentence."""
    content = BUILDERS[step](ls)
    if content.figure is not None:
        fit(content.figure, TALL_FIGURES.get(step, FIGURE_HEIGHT))
    return content
