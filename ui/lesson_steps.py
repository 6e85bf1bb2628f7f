"""What each lesson step says and draws, in the UI language: one `StepContent` per step.

The page (views/lesson.py) shows one step at a time and the handout (ui/lesson_handout.py) all of
them, from the same content, so the two never disagree. Every number of a step comes from one call,
`ui.models.get_lesson_step` → `runs.lesson.step_numbers` (the live answer and the figure's arrays);
this file only puts them into words (the UI language) and figures (`viz/` builders).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import plotly.graph_objects as go

from runs import lesson
from runs.lesson import StepNumbers
from transformer.checkpoint import ModelBundle
from ui.i18n import t
from ui.models import get_bundle, get_lesson_step, get_trace
from ui.safe import md_literal
from viz.architecture_figure import architecture_figure
from viz.head_grid import grid_figure
from viz.head_importance import importance_figure
from viz.heatmap import HeatmapText, head_figure, matrix_figure
from viz.layernorm_figures import site_detail_figure
from viz.mask_figures import binary_heatmap
from viz.positional import pe_curves
from viz.scaling import variance_figure
from viz.step_figures import scores_figure
from viz.tokens import TokenAxis
from viz.trace import TraceData

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

    def numbers(self, step: str) -> StepNumbers:
        """Everything step `step` shows, before any words (cached per model, sentence and step)."""
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


def _task(ls: Lesson) -> StepContent:
    numbers = ls.numbers("task")
    answer, values = numbers.answer, numbers.figure["values"]  # (T_out, T_src) or None
    verdict = {True: "correct", False: "wrong", None: "unknown"}[answer["correct"]]
    text = t(f"lesson.task_answer_{verdict}", output=f"`{answer['output'] or '∅'}`", expected=f"`{answer['expected']}`")
    fig = None
    if values is not None:
        fig = matrix_figure(
            values,
            TokenAxis(ls.trace.output_tokens),
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
    numbers = ls.numbers("why_attention")
    answer, tokens = numbers.answer, numbers.figure["tokens"]
    fig = matrix_figure(
        numbers.figure["lengths"],
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

    numbers = ls.numbers("embeddings")
    scale, answer = numbers.figure["scale"], numbers.answer
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
    numbers = ls.numbers("positional")
    answer, d = numbers.answer, numbers.figure["d_model"]
    fig = pe_curves(
        numbers.figure["table"],
        numbers.figure["dims"],
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
    numbers = ls.numbers("attention")
    answer, view = numbers.answer, numbers.figure["view"]
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
        lab_params={"kind": kind, "layer": "0", "head": "0", "query": str(numbers.figure["query"])},
    )


def _scaling(ls: Lesson) -> StepContent:
    numbers = ls.numbers("scaling")
    answer, demo = numbers.answer, numbers.figure["demo"]
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
    numbers = ls.numbers("heads")
    answer, choice = numbers.answer, numbers.choice
    query_axis, key_axis = numbers.figure["axes"]
    fig = grid_figure(
        numbers.figure["patterns"],  # (L, H, Tq, Tk)
        marked=numbers.figure["marked"],  # (L, H)
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
    numbers = ls.numbers("layernorm")
    answer, stats, tokens = numbers.answer, numbers.figure["stats"], numbers.figure["tokens"]
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
    shapes = ls.numbers("feed_forward").answer
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
        lab_page="feed_forward",
    )


def _masks(ls: Lesson) -> StepContent:
    numbers = ls.numbers("masks")
    answer = numbers.answer
    if not answer:  # no decoder, no causal mask (an encoder-only model)
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
    state = {True: "changed", False: "same", None: "none"}[answer["changed"]]
    query_axis, key_axis = numbers.figure["axes"]
    fig = binary_heatmap(
        numbers.figure["mask"],  # (Tt, Tt)
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
    numbers = ls.numbers("cross")
    choice = numbers.choice
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
    answer = numbers.answer
    query_axis, key_axis = numbers.figure["axes"]
    fig = head_figure(
        numbers.figure["pattern"],  # (Tq, Tk)
        query_axis,
        key_axis,
        HeatmapText(
            x_title=t("heads.axis_key"),
            y_title=t("heads.axis_query"),
            value=t("step.fig_weight"),
            alignment=t("lesson.fig_translates"),
        ),
        alignment=numbers.figure["alignment"],
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
    numbers = ls.numbers("architecture")
    answer, stacks = numbers.answer, numbers.figure["stacks"]
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
    numbers = ls.numbers("recap")
    answer, choice, view = numbers.answer, numbers.choice, numbers.figure["importance"]
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
