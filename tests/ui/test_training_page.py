"""The training page: settings and experiments, a live job (progress, curves, attention, frames), stop, watch
from another session, the end (download), and the model picker listing the session's trained model."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from runs.training.options import DECODER_ONLY_TASKS, TASKS, default_options
from runs.training.registry import registry
from tests.ui.conftest import TIMEOUT, assert_no_exception, figure, open_page, page_path, plotly_array
from ui.i18n import catalog

TINY = {"tr_layers": 1, "tr_heads": 2, "tr_dmodel": 16}


def _poll(at: AppTest, done, timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        at.run()
        assert_no_exception(at)
        if done(at):
            return
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.5)


def _progress(at: AppTest) -> str:
    bars = at.get("progress")
    return bars[0].proto.text if bars else ""


def _end_all() -> None:
    for job in registry().running():
        job.stop()
        job.wait(120)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_opens_with_a_start_button_and_the_experiments(lang):
    at = open_page("training", lang=lang)
    assert at.button(key="tr_start").label == ("Start training" if lang == "en" else "开始训练")
    assert not at.button(key="tr_start").disabled
    assert at.session_state["tr_causal"] is True and at.session_state["tr_norm"] == "pre"


def test_an_experiment_fills_in_its_settings_and_explains_itself():
    at = open_page("training")
    at.session_state["tr_experiment"] = "no_causal"
    at.session_state["tr_causal"] = True
    at.run()
    at.button_group(key="tr_experiment").set_value("no_positional").run()
    assert at.session_state["tr_pos"] == "none" and at.session_state["tr_steps"] == 3000
    assert any("bag of characters" in c.value for c in at.caption)
    at.button_group(key="tr_experiment").set_value("no_causal").run()
    assert at.session_state["tr_causal"] is False and at.session_state["tr_pos"] == "sinusoidal"


@pytest.mark.slow
def test_a_job_trains_live_and_ends_with_a_download():
    _end_all()
    at = open_page("training", tr_steps=60, **TINY)
    at.button(key="tr_start").click().run()
    assert_no_exception(at)
    assert at.button(key="tr_stop").label == "Stop training"
    assert "tr_start" not in [b.key for b in at.button]
    _poll(at, lambda a: "Step 0 of" not in _progress(a) and a.get("plotly_chart"))
    first = _progress(at)
    assert first.startswith("Step ") and "of 60" in first
    curves = figure(at, "tr_curves")
    assert len(plotly_array(curves["data"][0]["x"])) >= 1
    attention = plotly_array(figure(at, "tr_attention")["data"][0]["z"])
    assert attention.shape == (len("hello 世界") + 1,) * 2  # cross-attention of the probe: (<bos> + target) × (source + <eos>)
    _poll(at, lambda a: a.success)
    assert "60 steps" in at.success[0].value
    assert at.button(key="tr_start")  # the slot is free again
    assert len(plotly_array(figure(at, "tr_curves")["data"][0]["x"])) == 60
    frames = at.slider(key="tr_frame")
    assert frames.value == frames.max  # follows the newest frame
    frames.set_value(1).run()  # the slider counts frames from 1
    assert "step 1." in " ".join(c.value for c in at.caption)
    at.button(key="tr_zip_prepare").click().run()
    assert at.get("download_button")


@pytest.mark.slow
def test_another_session_watches_read_only_and_may_start_after_the_stop():
    _end_all()
    owner = open_page("training", tr_steps=20_000, **TINY)
    owner.button(key="tr_start").click().run()
    try:
        other = open_page("training")
        assert other.button(key="tr_start").disabled
        assert any("another session" in i.value for i in other.info)
        assert "tr_stop" not in [b.key for b in other.button]
        _poll(owner, lambda a: "Step 0 of" not in _progress(a))
        owner.button(key="tr_stop").click().run()
        _poll(owner, lambda a: a.success)
        assert "stopped at step" in owner.success[0].value
        other.run()
        assert not other.button(key="tr_start").disabled
    finally:
        _end_all()


def _picker_script() -> None:
    import streamlit as st

    from runs.training.options import JobOptions
    from runs.training.registry import registry
    from ui.sidebar import model_picker
    from ui.trained_models import session_owner

    if "job" not in st.session_state:
        options = JobOptions(n_layers=1, n_heads=2, d_model=16, steps=5, eval_every=0)
        job = registry().start(options, session_owner())
        job.wait(240)
        st.session_state["job"] = job.id
    model_picker()


@pytest.mark.slow
def test_the_model_picker_lists_the_sessions_trained_model_by_a_readable_name():
    _end_all()
    at = AppTest.from_function(_picker_script, default_timeout=300)
    at.run()
    assert_no_exception(at)
    job = registry().get(at.session_state["job"])
    key = f"trained:{job.id}"
    picker = at.sidebar.selectbox(key="model")
    ended = time.strftime("%H:%M", time.localtime(job.ended))
    label = f"Trained here: reverse · step 5 · {ended}"
    assert label in picker.options and key not in picker.options  # the value stays the key; the label is readable
    assert "translate-en-zh" in picker.options and "random" in picker.options  # the others keep their names
    picker.set_value(key).run()
    assert_no_exception(at)
    assert at.sidebar.selectbox(key="model").value == key
    assert any("Trained on the training page" in c.value for c in at.sidebar.caption)
    at.session_state["lang"] = "zh"
    at.run()
    assert_no_exception(at)
    assert f"在此训练：reverse · 第 5 步 · {ended}" in at.sidebar.selectbox(key="model").options
    assert at.sidebar.selectbox(key="model").value == key  # the choice survives the language switch
    other = AppTest.from_function(_picker_script, default_timeout=300)
    other.session_state["job"] = "none"
    other.run()
    assert label not in other.sidebar.selectbox(key="model").options  # another session's model is not listed
    json.dumps(at.session_state["job"])


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("task", DECODER_ONLY_TASKS)
def test_a_decoder_only_task_is_offered_with_a_small_decoder_only_preset(task, lang):
    at = open_page("training", lang=lang)
    at.selectbox(key="tr_task").set_value(task).run()
    assert_no_exception(at)
    assert at.selectbox(key="tr_task").value == task
    assert at.selectbox(key="tr_task").options[TASKS.index(task)] == catalog(lang)[f"training.task_{task.replace('-', '_')}"]
    expected = default_options(task)
    assert at.session_state["tr_layers"] == expected.n_layers == 2 and at.session_state["tr_dmodel"] == expected.d_model == 64
    assert at.session_state["tr_norm"] == "pre" and at.session_state["tr_pos"] == expected.positional
    assert catalog(lang)["training.decoder_only_note"] in [c.value for c in at.caption]
    at.selectbox(key="tr_task").set_value("reverse").run()
    assert catalog(lang)["training.decoder_only_note"] not in [c.value for c in at.caption]


@pytest.mark.slow
@pytest.mark.parametrize("task", DECODER_ONLY_TASKS)
def test_a_decoder_only_job_trains_on_the_page_with_decoder_self_attention_only(task):
    _end_all()
    at = open_page("training", tr_task=task, tr_steps=24, **TINY)
    at.button(key="tr_start").click().run()
    assert_no_exception(at)
    _poll(at, lambda a: a.success)
    job = registry().get(at.session_state["tr_job"])
    film = job.view().film
    kinds = at.selectbox(key="tr_kind")
    assert kinds.options == [catalog("en")["training.kind_decoder"]] and kinds.value == "decoder"  # only decoder self-attention
    z = plotly_array(figure(at, "tr_attention")["data"][0]["z"])
    assert z.shape == (len(film.tgt_tokens),) * 2  # <bos> prompt [=] completion, each reading the ones before
    assert film.tgt_tokens[1 : 1 + len(film.source.split())] == tuple(film.source.split()) or task == "induction"
    frames = at.slider(key="tr_frame")
    frames.set_value(1).run()  # the slider counts frames from 1
    assert "step 1." in " ".join(c.value for c in at.caption)  # the scrubber
    assert any("Trained here" in i.value for i in at.info)  # "open in other pages": the picker's name for it
    at.button(key="tr_zip_prepare").click().run()
    assert at.get("download_button")  # "save as checkpoint"


@pytest.mark.slow
def test_the_film_mode_plays_a_recorded_film(tmp_path, monkeypatch):
    import runs.training.films as films
    import ui.pages.training.panel as panel
    from transformer.storage.checkpoint import save_checkpoint
    from transformer.storage.registry import load_model
    from transformer.tasks import ReverseTask
    from transformer.training.film import FILM, FilmRecorder
    from transformer.training.train import TrainSettings, train

    task = ReverseTask(min_len=2, max_len=5, chinese_heavy_fraction=0.0)
    recorder = FilmRecorder(task, every=4, probe="abc")
    settings = TrainSettings(
        task="reverse",
        steps=12,
        batch_size=8,
        warmup=4,
        eval_every=0,
        config={"n_layers": 1, "d_model": 16, "n_heads": 2, "d_ff": 32, "dropout": 0.0},
    )
    result = train(settings, recorder, task=task)
    folder = save_checkpoint(result.bundle, tmp_path / "tiny")
    recorder.film().save(folder / FILM)
    monkeypatch.setattr(films, "MODELS_DIR", tmp_path)
    monkeypatch.setattr(films, "shipped_models", lambda: ["tiny"])
    monkeypatch.setattr(panel, "get_bundle", lambda name: load_model(tmp_path / name))  # the app's model cache

    at = open_page("training", tr_mode="film")
    assert at.selectbox(key="tr_film_model").value == "tiny"
    assert at.selectbox(key="tr_kind").value == "cross"  # no head named or measured: cross-attention first
    assert at.slider(key="tr_frame").value == 4  # frames at steps 1, 4, 8, 12, counted from 1; it opens on the last
    z = plotly_array(figure(at, "tr_attention")["data"][0]["z"])
    assert z.shape == (4, 4)  # <bos> c b a × a b c <eos>
    at.slider(key="tr_frame").set_value(1).run()
    assert "step 1." in " ".join(c.value for c in at.caption)
    at.toggle(key="tr_play").set_value(True).run()
    assert_no_exception(at)
    assert at.slider(key="tr_frame").value == 2  # playing advances a frame per redraw


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_film_mode_opens_on_the_shipped_reverse_film(lang):
    """Without training anything, a class can scrub through how the shipped `reverse` learned: the film mode
    opens on it, on its last frame, where the anti-diagonal is formed (every cross head of the last layer
    reads mostly the mirrored position), and its first frame does not show it yet."""
    from runs.training.films import load_film

    at = open_page("training", tr_mode="film", lang=lang)
    assert at.selectbox(key="tr_film_model").value == "reverse"
    film = load_film("reverse")
    assert at.slider(key="tr_frame").value == film.n_frames  # the last frame, counted from 1
    z = plotly_array(figure(at, "tr_attention")["data"][0]["z"])
    assert z.shape[0] == len(film.tgt_tokens)

    def mirrored(frame: int) -> float:  # the cross-attention weight on the mirrored source position, best head
        cross = film.frame(frame, "cross")[-1]  # (H, Tq, Tk) of the last layer
        n = cross.shape[-1] - 1  # source characters (the last key is <eos>)
        return max(float(np.mean([cross[h, q, n - 1 - q] for q in range(n)])) for h in range(cross.shape[0]))

    assert mirrored(film.n_frames - 1) > 0.5 > mirrored(0)


def test_a_link_opens_the_film_mode_and_switching_writes_it():
    """`?tr_mode=film` (a link a teacher shares) opens the recorded films; the live mode, the default, stays out of links."""
    at = AppTest.from_file(page_path("training"), default_timeout=TIMEOUT)
    at.query_params["tr_mode"] = "film"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="tr_film_model").value == "reverse"
    # on the page, not in the sidebar: projector mode collapses the sidebar, and the switch must stay in reach
    assert [c.key for c in at.main.segmented_control].count("tr_mode") == 1 and not at.sidebar.segmented_control
    at.segmented_control(key="tr_mode").set_value("live").run()
    assert "tr_mode" not in at.query_params
    at.segmented_control(key="tr_mode").set_value("film").run()
    assert at.query_params.get("tr_mode") == "film"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_film_says_decoder_and_cross_rows_are_named_by_what_they_write(lang):
    """Issue 10 §1: one sentence on each decoder/cross view; the film's encoder view has none."""
    from ui.i18n import catalog

    rows_write = catalog(lang)["heads.rows_write"].split("{example}")[0]

    def said(at) -> list[str]:
        return [c.value for c in at.caption if c.value.startswith(rows_write)]

    at = open_page("training", tr_mode="film", lang=lang)  # reverse's film opens on cross-attention
    assert at.selectbox(key="tr_kind").value == "cross"
    assert said(at) and "今天" not in said(at)[0], said(at)  # the example is the film's own row, not a translator's
    for kind, shown in (("encoder", False), ("decoder", True)):
        at.selectbox(key="tr_kind").set_value(kind).run()
        assert_no_exception(at)
        assert bool(said(at)) == shown, kind


def test_each_film_opens_on_its_models_telling_head_and_keeps_the_users_choice():
    """A translator's film opens on its alignment head, reverse's on its anti-diagonal head, induction's on its
    induction head: the head the heads page opens on, read from the model's card, not layer 0 head 0."""
    from runs.head_importance import stored_importance
    from runs.heads import opening
    from runs.model_ref import ModelRef, load_bundle
    from runs.training.films import load_film, shipped_films

    at = open_page("training", tr_mode="film", lang="en")
    for name in shipped_films():
        at.selectbox(key="tr_film_model").set_value(name).run()
        assert_no_exception(at)
        bundle = load_bundle(ModelRef.parse(name))
        expected = opening(bundle, sorted(load_film(name).patterns, key=lambda k: k != "cross"), stored_importance(bundle))
        assert expected.reason != "first", name  # every shipped model names or measures a telling head
        shown = (at.selectbox(key="tr_kind").value, at.selectbox(key="tr_layer").value, at.selectbox(key="tr_head").value)
        assert shown == expected.key, name
    other = (at.selectbox(key="tr_head").value + 1) % 2
    at.selectbox(key="tr_head").set_value(other).run()  # the user's choice stays while the film plays on
    assert at.selectbox(key="tr_head").value == other


def _in_order(node) -> list:
    """The page's elements in the order they are drawn (depth first through columns and containers)."""
    children = getattr(node, "children", None)
    if not children:
        return [node]
    return [leaf for key in sorted(children) for leaf in _in_order(children[key])]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_projector_the_film_picker_and_play_sit_beside_the_mode_and_the_caption_below_the_film(lang):
    """Projector mode (issue 39 §7): the film's attention must end on the first 1280 × 720 screen, so the mode
    switch, the film picker and Play share one row and the film's caption comes after its charts."""
    from runs.training.films import load_film

    intro = catalog(lang)["training.film_intro"].split("{")[0]
    for projector in (False, True):
        at = open_page("training", tr_mode="film", lang=lang, projector=projector)
        first, second, third = (at.main.columns[i] for i in range(3))  # the page's first row of columns
        beside = (
            [c.key for c in first.segmented_control] == ["tr_mode"]
            and [c.key for c in second.selectbox] == ["tr_film_model"]
            and [c.key for c in third.toggle] == ["tr_play"]
        )
        assert beside == projector
        elements = _in_order(at.main)
        said = next(i for i, e in enumerate(elements) if e.type == "caption" and intro in e.value)
        chart = next(i for i, e in enumerate(elements) if e.type == "plotly_chart")
        assert (said > chart) == projector
    assert at.selectbox(key="tr_film_model").value == "reverse" and load_film("reverse").n_frames > 1
