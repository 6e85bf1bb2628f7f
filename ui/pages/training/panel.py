"""The training page's live parts: a job's progress, its curves, and the film of the probe's attention.

A job trains on a worker thread (`runs.training`); this file only reads copies of its state. The live panel is a
`st.fragment(run_every=...)`: it redraws itself every `REFRESH` seconds while the job trains (or a film plays)
without rerunning the page, and reruns the page once when the job ends so the start button comes back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import streamlit as st

from hook_names import from_ordinal, ordinal
from runs.training.export import checkpoint_zip
from runs.training.film_scores import FilmScores, film_scores
from runs.training.films import StageMark, film_opening
from runs.training.job import FAILED, STOPPING, JobView
from runs.training.registry import registry, trained_key
from ui.caches import get_bundle
from ui.charts import show_figure
from ui.figure_memo import memo_figure
from ui.figure_words import curve_text
from ui.head_picker import kind_picker, layer_head_picker
from ui.i18n import t
from ui.model_words import rows_write_caption
from ui.pages.training.scores import follow_best_head, score_chart
from ui.safe import md_literal
from ui.trained_models import trained_label
from viz.heatmap import HeatmapText, head_figure
from viz.tokens import attention_axes
from viz.training_curves import curves_figure, rate_figure

REFRESH = 1.0  # seconds between redraws while a job trains
PLAY_EVERY = 0.4  # seconds per frame while a film plays
FRAME_KEY, FOLLOW_KEY, PLAY_KEY = "tr_frame", "tr_follow", "tr_play"  # tr_frame: the frame number, from 1
FRAME_KEPT_KEY = "tr_frame_kept"  # the frame shown last, kept while the slider is not drawn
KIND_KEY, LAYER_KEY, HEAD_KEY = "tr_kind", "tr_layer", "tr_head"
OPENED_KEY = "tr_film_opened"  # the film whose opening head was last set
EOS = "<eos>"


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    seconds = round(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


def open_film_on_its_head(name: str, film: Any) -> None:
    """When shipped film `name` is first shown, pick its model's telling head (`film_opening`, on the model the
    other pages share); the user's later choice is kept."""
    if st.session_state.get(OPENED_KEY) != name:
        st.session_state[OPENED_KEY] = name
        st.session_state[KIND_KEY], st.session_state[LAYER_KEY], st.session_state[HEAD_KEY] = film_opening(get_bundle(name), film)


def _pickers(film: Any) -> tuple[str, int, int]:
    """Which head's attention to show: kind (cross-attention first), layer, head, with the other pages' picker
    (`ui.head_picker`) under this page's own keys, off the URL (kept when the film grows or the language changes)."""
    kinds = list(film.patterns)
    _, n_layers, n_heads = film.patterns[kinds[0]].shape[:3]
    cols = st.columns([3, 1, 1])
    short = {k: t(f"training.kind_{k}") for k in kinds}  # the shared long names do not fit this narrow column
    kind = kind_picker(cols[0], kinds, default="cross", section="training", key=KIND_KEY, url=False, names=short)
    layer, head = layer_head_picker(cols[1:], n_layers, n_heads, section="training", keys=(LAYER_KEY, HEAD_KEY), url=False)
    return kind, layer, head


def _frame_index(film: Any) -> int:
    """The frame slider, with play (advance one frame per redraw) and follow-the-latest while training.

    The slider counts frames from 1, as its caption does (`hook_names.ordinal`); the returned index is 0-based.
    Its value is written to the session on every run, not only when play or follow moves it: the slider's
    identity includes its maximum, so each new frame of a live film makes it a new widget, which without a
    value from the session falls back to its minimum, frame 1 (issue 39: the film jumped back to frame 1 with
    "Follow the latest frame" off and stayed there as training went on).
    """
    last = film.n_frames - 1
    current = st.session_state.get(FRAME_KEY, st.session_state.get(FRAME_KEPT_KEY, ordinal(last)))
    if st.session_state.get(PLAY_KEY):
        current = 1 if current >= ordinal(last) else current + 1
    elif st.session_state.get(FOLLOW_KEY, True) or not 1 <= current <= ordinal(last):
        current = ordinal(last)
    st.session_state[FRAME_KEPT_KEY] = current  # outlives the slider's state when a run does not draw it
    if last == 0:
        st.caption(t("training.one_frame"))
        return 0
    st.session_state[FRAME_KEY] = current
    steps = film.frame_steps
    shown = st.slider(
        t("training.frame_slider"),
        1,
        ordinal(last),
        key=FRAME_KEY,
        help=t("training.frame_help"),
        on_change=lambda: st.session_state.__setitem__(FOLLOW_KEY, False),
    )
    st.session_state[FRAME_KEPT_KEY] = shown
    index = from_ordinal(shown)
    st.caption(t("training.frame_caption", frame=shown, frames=ordinal(last), step=f"{int(steps[index]):,}"))
    return int(index)


def next_tokens(film: Any, ends_with_eos: bool = True) -> list[str]:
    """What each decoder position writes: the next input token, and after the last one <eos>, or for a decoder-only
    task trained without an end (induction: an endless continuation) the probe's last symbol."""
    if ends_with_eos or not film.target:
        return [*film.tgt_tokens[1:], EOS]
    return [*film.tgt_tokens[1:], film.target[-1]]  # a character-level continuation (induction)


def _stage_reason(mark: StageMark) -> str:
    """What happened where two training stages meet, in the user's language."""
    changes = t("training.stage_sep").join(
        t(f"training.stage_change_{name}", before=before, after=after) for name, before, after in mark.changes
    )
    return t(
        "training.stage_reason",
        step=f"{mark.step:,}",
        n=mark.number,
        changes=t("training.stage_changes", changes=changes) if changes else "",
    )


def film_view(
    film: Any,
    *,
    total_steps: int,
    schedule: tuple[list[int], list[float]] | None,
    name: str,
    ends_with_eos: bool = True,
    scores: FilmScores | None = None,
    best_head: bool = False,
    stages: Sequence[StageMark] = (),
) -> None:
    """The probe's attention for one head at one frame, beside the frame slider, the curves, the heads' task scores
    and the schedule.

    A decoder-only model's film has decoder self-attention only (`ends_with_eos`: see `next_tokens`). `best_head`:
    open the attention view on the frame's best-scoring head (`ui.pages.training.scores.follow_best_head`). `stages`: where a
    continued training's stages meet, marked on the curves with what changed there. Each figure is
    rebuilt only when what it shows changed (`ui.figure_memo`): a poll that brings no new frame re-sends them."""
    cols = st.columns([5, 6])
    n = film.n_frames
    with cols[1]:
        index = _frame_index(film)
        curves = film.curves
        marker = float(film.frame_steps[index])
        marks = [(mark.step, t("training.stage_label", n=mark.number), _stage_reason(mark)) for mark in stages]
        curves_fig = memo_figure(
            "tr_curves",
            (name, n, len(film.checks), total_steps, marker, tuple(marks)),
            lambda: curves_figure(
                curves["step"],
                curves["loss"],
                curves["token_accuracy"],
                film.checks,
                curve_text(),
                total_steps=total_steps,
                marker_step=marker,
                height=270,
                stages=marks,
            ),
        )
        show_figure(curves_fig, f"{name}_curves", key="tr_curves", html=False)
        for _, _, reason in marks:
            st.caption(reason)
        if scores is not None:
            score_chart(scores, index, name)
        if schedule is not None:
            now = float(curves["step"][-1]) if len(curves["step"]) else None
            rate_fig = memo_figure(
                "tr_rate",
                (name, n, schedule[0][-1]),
                lambda: rate_figure(np.asarray(schedule[0]), np.asarray(schedule[1]), curve_text(), now=now, height=150),
            )
            show_figure(rate_fig, f"{name}_rate", key="tr_rate", html=False)
    with cols[0]:
        following = best_head and follow_best_head(scores, index, (KIND_KEY, LAYER_KEY, HEAD_KEY))
        kind, layer, head = _pickers(film)
        query_axis, key_axis = attention_axes(kind, film.src_tokens, film.tgt_tokens, next_tokens(film, ends_with_eos))

        def attention() -> Any:
            pattern = film.patterns[kind][index, layer, head].astype(np.float32) / 255.0  # (Tq, Tk)
            fig = head_figure(
                pattern,
                query_axis,
                key_axis,
                HeatmapText(
                    title=t(
                        "training.head_title",
                        kind=t(f"training.kind_{kind}"),
                        layer=ordinal(layer),
                        head=ordinal(head),
                        step=f"{int(film.frame_steps[index]):,}",
                    ),
                    x_title=t("training.keys"),
                    y_title=t("training.queries"),
                    value=t("training.weight"),
                ),
            )
            fig.update_layout(width=None, height=360)
            return fig

        show_figure(
            memo_figure("tr_attention", (name, n, index, kind, layer, head), attention),
            f"{name}_attention",
            key="tr_attention",
            html=False,
        )
        if following:
            st.caption(t("training.best_head_note"))
        if query_axis.reads is not None:  # decoder and cross rows are named by what they write, as on the heads page
            st.caption(rows_write_caption(query_axis))
        st.text(t("training.probe", source=film.source, target=film.target))  # plain text: the probe may be the user's


def ends_with_eos(task_name: str) -> bool:
    """Whether task `task_name`'s decoder writes <eos> after its last symbol (every task but a decoder-only endless
    one, induction); True for a name that is no task (a film of a model named otherwise)."""
    from transformer.tasks import get_task

    try:
        task = get_task(task_name)
    except (KeyError, ValueError):
        return True
    return getattr(getattr(task, "prompt_format", None), "end_with_eos", True)


def _progress(view: JobView) -> None:
    """Step, the wall clock since the start, and the time left at the recent pace: an upper bound when the job
    stops early at its target ("until 99 % or step N"), since the target may come first."""
    target = view.options.target_exact
    text = t(
        "training.progress" if target <= 1.0 else "training.progress_no_target",
        step=f"{view.step:,}",
        total=f"{view.total_steps:,}",
        elapsed=_clock(view.elapsed),
        eta=_clock(view.eta),
        target=f"{target:.0%}",
        rate="–" if view.rate is None else f"{view.rate:.1f}",
    )
    st.progress(view.fraction, text=text)


def _numbers(view: JobView) -> str:
    """The latest numbers in one line (metrics tiles would push the pictures below a projector's first screen)."""

    def show(value: float | None, fmt: str) -> str:
        return "–" if value is None else format(value, fmt)

    return t(
        "training.numbers",
        loss=show(view.loss, ".3f"),
        accuracy=show(view.token_accuracy, ".1%"),
        heldout=show(view.heldout_exact, ".1%"),
        rate=show(view.learning_rate, ".2e"),
    )


def _ended(view: JobView, owner: str) -> None:
    """What a job's end means for this session: the error, or where the model can be used and saved."""
    if view.state == FAILED:
        st.error(t("training.failed"), icon=":material/error:")
        st.code(view.error or "", language=None, wrap_lines=True)
        return
    job = registry().get(view.job_id)
    if job is None or job.result is None:
        return
    st.success(
        t(f"training.ended_{job.result.stop_reason.replace(' ', '_')}", steps=f"{job.result.steps:,}"),
        icon=":material/check_circle:",
    )
    if view.owner != owner:
        return
    st.info(t("training.use_elsewhere", name=md_literal(trained_label(trained_key(job)))), icon=":material/open_in_new:")
    if st.button(t("training.prepare_zip"), key="tr_zip_prepare", icon=":material/folder_zip:"):
        st.session_state["tr_zip"] = (job.id, *checkpoint_zip(job))
    prepared = st.session_state.get("tr_zip")
    if prepared and prepared[0] == job.id:
        st.download_button(
            t("training.download"),
            prepared[2],
            file_name=prepared[1],
            mime="application/zip",
            key="tr_zip_download",
            icon=":material/download:",
            help=t("training.download_help"),
        )


def job_panel(job_id: str, owner: str) -> None:
    """The live panel of job `job_id`; polls while it trains or while its film plays."""
    job = registry().get(job_id)
    if job is None:
        st.warning(t("training.job_gone"))
        return
    polling = job.live or bool(st.session_state.get(PLAY_KEY))
    every = (PLAY_EVERY if st.session_state.get(PLAY_KEY) else REFRESH) if polling else None

    @st.fragment(run_every=every)
    def panel() -> None:
        view = job.view()
        if polling and not view.live and not st.session_state.get(PLAY_KEY):
            st.rerun()  # the job ended: rerun the page once (start button back, model in the picker, polling off)
        mine = view.owner == owner
        if not mine:
            st.info(t("training.watching", task=md_literal(view.options.task)), icon=":material/visibility:")
        _progress(view)
        # One row that wraps, each control as wide as its label: fixed columns cut "Follow the latest frame" short.
        row = st.container(horizontal=True, vertical_alignment="center", gap="medium")
        if view.live and mine:
            row.button(
                t("training.stop"),
                key="tr_stop",
                icon=":material/stop_circle:",
                type="primary",
                on_click=job.stop,
                disabled=view.state == STOPPING,
            )
        if view.film is not None:
            row.toggle(t("training.play"), key=PLAY_KEY, help=t("training.play_help"))
            st.session_state.setdefault(FOLLOW_KEY, True)
            row.toggle(t("training.follow"), key=FOLLOW_KEY, help=t("training.follow_help"))
        row.caption(t("training.stopping") if view.state == STOPPING else _numbers(view))
        if not view.live:
            _ended(view, owner)
        if view.film is None:
            st.caption(t("training.waiting_first_frame"))
            return
        if bool(st.session_state.get(PLAY_KEY)) != (every == PLAY_EVERY):
            st.rerun()  # play switched: redraw the page so the fragment polls at the new pace
        # While training the x axis spans the whole budget (the curves grow into it); after, the steps taken.
        span = view.total_steps if view.live else max(view.step, 1)
        eos = ends_with_eos(view.options.task)
        film_view(
            view.film,
            total_steps=span,
            schedule=view.options.schedule(),
            name=f"training_{view.job_id}",
            ends_with_eos=eos,
            scores=film_scores(view.film, job.task),
            best_head=True,
        )

    panel()
