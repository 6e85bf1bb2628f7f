"""Training you can watch: train a small model on the server and see the probe sentence's attention being learned,
or play the recorded film of a shipped model's training.

The job runs on a worker thread (`runs.training`); at most one per server by default (ATLAS_TRAINING_JOBS raises
it). Other sessions watch a running job read-only and may start their own once it ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from runs.training.films import load_film, shipped_films, shipped_stage_marks
from runs.training.options import (
    D_MODEL_CHOICES,
    DECODER_ONLY_TASKS,
    EXPERIMENTS,
    HEAD_CHOICES,
    LAYER_CHOICES,
    MAX_STEPS,
    TASKS,
    JobOptions,
    experiment_options,
)
from runs.training.registry import SlotsTaken, registry
from runs.training.watch import slot_view
from ui.caches import get_shipped_film_scores
from ui.i18n import labels_of, t
from ui.labels import keep_valid
from ui.page import start_page
from ui.pages.training.panel import ends_with_eos, film_view, job_panel, open_film_on_its_head
from ui.pages.training.scores import BEST_KEY
from ui.projector import projector_on
from ui.safe import md_literal
from ui.trained_models import session_owner
from ui.url_choice import seed_choice, write_choice

JOB_KEY = "tr_job"  # session state: the id of the job this session started last
WATCHED_KEY = "tr_watched"  # session state: the id of another session's job this session watched while it trained
NORMS, POSITIONALS = ("pre", "post"), ("sinusoidal", "learned", "none")
# session-state key → JobOptions field, for the settings widgets an experiment fills in
FIELDS = {
    "tr_layers": "n_layers",
    "tr_heads": "n_heads",
    "tr_dmodel": "d_model",
    "tr_steps": "steps",
    "tr_warmup": "warmup",
    "tr_lr": "lr_factor",
    "tr_smoothing": "label_smoothing",
    "tr_norm": "norm_position",
    "tr_pos": "positional",
    "tr_causal": "causal_mask",
}


def _fill(options: JobOptions, *, keep: bool = False) -> None:
    """Put `options` into the settings widgets (`keep`: only where a widget has no value yet, e.g. from a test)."""
    for key, name in FIELDS.items():
        if not keep or key not in st.session_state:
            st.session_state[key] = getattr(options, name)


def _apply_experiment() -> None:
    """An experiment (or a new task) resets the settings to that experiment's options on the chosen task."""
    _fill(experiment_options(st.session_state.get("tr_experiment") or "default", st.session_state["tr_task"]))


def _settings() -> JobOptions:
    """Task, experiment and the settings that matter; returns the options they describe."""
    st.session_state.setdefault("tr_task", TASKS[0])
    st.session_state.setdefault("tr_experiment", "default")
    _fill(experiment_options(st.session_state["tr_experiment"] or "default", st.session_state["tr_task"]), keep=True)
    for key, options in (("tr_task", TASKS), ("tr_experiment", list(EXPERIMENTS)), ("tr_norm", NORMS), ("tr_pos", POSITIONALS)):
        keep_valid(key, options)  # redrawn in the current language
    cols = st.columns([3, 2])  # room for the longest task name
    cols[0].selectbox(
        t("training.task"),
        TASKS,
        key="tr_task",
        on_change=_apply_experiment,
        format_func=labels_of({name: t(f"training.task_{name.replace('-', '_')}") for name in TASKS}),
    )
    experiment = st.pills(
        t("training.experiment"),
        list(EXPERIMENTS),
        key="tr_experiment",
        on_change=_apply_experiment,
        format_func=labels_of({name: t(f"training.experiment_{name}") for name in EXPERIMENTS}),
    )
    st.caption(t(f"training.experiment_{experiment or 'default'}_text"))
    if st.session_state["tr_task"] in DECODER_ONLY_TASKS:
        st.caption(t("training.decoder_only_note"))
    with st.expander(t("training.settings"), expanded=False):
        cols = st.columns(4)
        cols[0].select_slider(t("training.n_layers"), LAYER_CHOICES, key="tr_layers")
        cols[1].select_slider(t("training.n_heads"), HEAD_CHOICES, key="tr_heads")
        cols[2].select_slider(t("training.d_model"), D_MODEL_CHOICES, key="tr_dmodel")
        cols[3].number_input(t("training.steps"), 50, MAX_STEPS, step=250, key="tr_steps", help=t("training.steps_help"))
        cols = st.columns(4)
        cols[0].number_input(t("training.warmup"), 1, 5000, step=50, key="tr_warmup", help=t("training.warmup_help"))
        cols[1].number_input(t("training.lr_factor"), 0.05, 10.0, step=0.25, key="tr_lr", help=t("training.lr_help"))
        cols[2].slider(t("training.label_smoothing"), 0.0, 0.3, step=0.05, key="tr_smoothing", help=t("training.smoothing_help"))
        cols[3].toggle(t("training.causal_mask"), key="tr_causal", help=t("training.causal_help"))
        cols = st.columns(4)
        cols[0].segmented_control(
            t("training.norm"),
            NORMS,
            key="tr_norm",
            required=True,
            format_func=labels_of({n: t(f"training.norm_{n}") for n in NORMS}),
        )
        cols[1].selectbox(
            t("training.positional"),
            POSITIONALS,
            key="tr_pos",
            format_func=labels_of({p: t(f"training.pos_{p}") for p in POSITIONALS}),
        )
        probe = cols[2].text_input(t("training.probe_text"), key="text", max_chars=64, help=t("training.probe_help"))
    values = {name: st.session_state[key] for key, name in FIELDS.items()}
    # The experiment's options with the widgets' values: what no widget sets (the lesson's string length and alphabet,
    # the held-out check interval, the early-stop target) stays the preset's, not JobOptions' bare defaults.
    return experiment_options(experiment or "default", st.session_state["tr_task"]).replace(
        probe=probe or "", **{**values, "steps": int(values["steps"]), "warmup": int(values["warmup"])}
    )


def _start(options: JobOptions, owner: str) -> None:
    try:
        job = registry().start(options, owner)
    except SlotsTaken:
        st.warning(t("training.slot_taken"), icon=":material/hourglass:")
        return
    except ValueError as err:
        st.error(t("training.bad_settings"))
        st.code(str(err), language=None, wrap_lines=True)
        return
    st.session_state[JOB_KEY] = job.id
    st.session_state.pop(WATCHED_KEY, None)
    st.session_state.pop("tr_frame", None)
    st.session_state.pop("tr_frame_kept", None)
    st.session_state.pop(BEST_KEY, None)  # a new job opens on its own best head, whatever was picked before
    st.session_state["tr_follow"] = True
    st.rerun()


def live_mode() -> None:
    """Settings and the start button, then the panel of this session's job, or of the job it watches.

    A session that watched another's job is told, once that job has ended, that it may start its own: the watched
    panel's fragment reruns the page when the job ends, so the message and the enabled button come without a reload.
    """
    owner, jobs = session_owner(), registry()
    mine = jobs.get(st.session_state.get(JOB_KEY, ""))
    slots = slot_view(jobs, owner, st.session_state.get(WATCHED_KEY))
    training_now = mine is not None and mine.live
    if not training_now:
        if slots.others and not slots.can_start:
            st.session_state[WATCHED_KEY] = slots.others[0].id
        options = _settings()
        if slots.freed:
            st.success(t("training.slot_free"), icon=":material/lock_open:")
        elif not slots.can_start:
            st.info(t("training.busy", n=len(slots.others)), icon=":material/hourglass:")
        if st.button(
            t("training.start"), key="tr_start", type="primary", icon=":material/play_arrow:", disabled=not slots.can_start
        ):
            _start(options, owner)
    if training_now:
        shown = mine
    elif slots.others:
        shown = slots.others[0]
    else:  # the newer of this session's last job and the one it watched (its final state, read-only)
        shown = max((job for job in (mine, slots.watched) if job is not None), key=lambda job: job.created, default=None)
    if shown is not None:
        st.divider()
        job_panel(shown.id, owner)


def film_mode(row: Sequence[DeltaGenerator] | None = None) -> None:
    """The recorded films. `row`: on a projector, two places beside the mode switch for the film picker and Play,
    and the film's caption goes below the player, so the attention chart starts high enough to end on the first
    1280 × 720 screen with its labels (issue 39 §7: it spanned 514–874 px)."""
    names = shipped_films()
    if not names:
        st.info(t("training.no_films"))
        return
    name = (row[0] if row else st).selectbox(t("training.film_model"), names, key="tr_film_model", bind="query-params")
    film = load_film(name)
    open_film_on_its_head(name, film)
    intro = t("training.film_intro", name=md_literal(name), frames=film.n_frames, steps=f"{int(film.curves['step'][-1]):,}")
    if not row:
        st.caption(intro)
    with row[1] if row else contextlib.nullcontext():
        st.toggle(t("training.play"), key="tr_play", help=t("training.play_help"))

    @st.fragment(run_every=0.4 if st.session_state.get("tr_play") else None)
    def player() -> None:
        film_view(
            film,
            total_steps=int(film.curves["step"][-1]),
            schedule=None,
            name=f"film_{name}",
            ends_with_eos=ends_with_eos(name),
            scores=get_shipped_film_scores(name),
            stages=shipped_stage_marks(name, film),
        )

    player()
    if row:
        st.caption(intro)


start_page("training", model=False)  # the URL guard, title and intro; no model picker: the page trains its own
MODES = ("live", "film")
seed_choice("tr_mode", MODES, "live")  # `?tr_mode=film` links straight to the films
# On a projector the mode, the film and Play share one row (`film_mode`): the film's chart must fit the first screen.
top = st.columns([5, 4, 2], vertical_alignment="bottom") if projector_on() else None
mode = (top[0] if top else st).segmented_control(  # on the page: projector mode collapses the sidebar
    t("training.mode"),
    MODES,
    key="tr_mode",
    required=True,
    format_func=labels_of({m: t(f"training.mode_{m}") for m in MODES}),
)
write_choice("tr_mode", mode, "live")
if mode == "film":
    film_mode(top[1:] if top else None)
else:
    live_mode()
