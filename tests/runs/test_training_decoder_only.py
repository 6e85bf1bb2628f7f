"""The decoder-only tasks on the training page: their presets, a job that trains each one and films decoder
self-attention over the whole prompt-and-completion sequence, and the trained model in other pages and as a folder."""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

from runs.model_ref import ModelRef, load_bundle
from runs.training.export import checkpoint_zip
from runs.training.job import FINISHED
from runs.training.options import DECODER_ONLY_TASKS, TASKS, default_options, experiment_options
from runs.training.registry import registry, trained_key
from tests.runs.training_helpers import end
from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.storage.checkpoint import load_checkpoint
from transformer.tasks import get_task
from transformer.text.prompt import CARD_KEY, PromptFormat, lm_sequence
from transformer.training.film import FILM, Film, probe_patterns
from transformer.training.train import task_with_options, tokenizers_for

STEPS = 24


def _tiny(task: str):
    """A config that trains a step in milliseconds: 1 layer, 2 heads, d_model 16; a frame every 8 steps."""
    return default_options(task).replace(n_layers=1, n_heads=2, d_model=16, steps=STEPS, eval_every=8, eval_n=10, batch_size=16)


def test_the_page_offers_the_decoder_only_tasks_with_small_presets():
    assert set(DECODER_ONLY_TASKS) <= set(TASKS)
    for name in DECODER_ONLY_TASKS:
        options = default_options(name)
        settings = options.settings()
        config = TransformerConfig.from_dict({**settings.config, "src_vocab_size": 10, "tgt_vocab_size": 10})
        assert not config.is_encoder_decoder and config.norm_position == "pre"
        # a lesson's size: the shipped models (3 layers of 128; halves of up to 24) took half an hour
        assert options.n_layers <= 2 and options.d_model <= 64 and options.steps <= 2000
        for experiment in ("default", "no_positional", "pre_norm_fast"):
            assert experiment_options(experiment, name).settings().config["architecture"] == "decoder-only"
    induction = default_options("induction")
    assert induction.positional == "learned" and induction.label_smoothing == 0.0  # the command line's recipe
    task = task_with_options(get_task("induction"), induction.settings().task_options)
    assert task.max_half <= 8 and task.reference(induction.probe_text) is not None  # the probe fits the lesson's task
    assert get_task("gpt-translate-en-zh").reference(default_options("gpt-translate-en-zh").probe_text) is not None


@pytest.mark.parametrize("name", DECODER_ONLY_TASKS)
def test_a_decoder_only_job_films_decoder_self_attention_over_prompt_and_completion(name):
    options = _tiny(name)
    job = registry().start(options, f"session-{name}")
    try:
        assert job.wait(240)
    finally:
        end(job)
    view = job.view()
    assert view.state == FINISHED and view.step == STEPS and view.error is None
    film = view.film
    assert list(film.patterns) == ["decoder"]  # no encoder, no cross-attention
    assert film.src_tokens == ()
    # The frames' axis is what the model reads in training: <bos> prompt [suffix] completion (the last token dropped).
    task = get_task(name)
    fmt = task.prompt_format
    tokenizer, _ = tokenizers_for(task)
    completion = film.target.split() if task.level == "word" else list(film.target)
    inputs, _ = lm_sequence(fmt, tokenizer, tokenizer.tokenize(film.source), completion)
    assert list(film.tgt_tokens) == [tokenizer.vocab[i] for i in inputs]
    assert film.source == options.probe_text
    assert ("=" in film.tgt_tokens) == (name == "gpt-translate-en-zh")
    frames = film.patterns["decoder"]
    assert frames.dtype == np.uint8 and frames.shape == (film.n_frames, 1, 2, len(inputs), len(inputs))  # (S, L, H, T, T)
    every = options.frame_every
    assert [int(s) for s in film.frame_steps] == sorted({1, *range(every, STEPS + 1, every)})  # the snapshots
    assert not np.triu(frames[-1, 0, 0].astype(int), k=1).any()  # causal: no position reads ahead
    np.testing.assert_array_equal(frames[-1], probe_patterns(job.bundle, film.source, film.target)["decoder"])


@pytest.mark.parametrize("name", DECODER_ONLY_TASKS)
def test_a_trained_decoder_only_model_opens_elsewhere_and_saves_with_its_prompt_format(name):
    job = registry().start(_tiny(name).replace(steps=8, eval_every=0), f"session-{name}")
    try:
        assert job.wait(240)
    finally:
        end(job)
    bundle = load_bundle(ModelRef.parse(trained_key(job)))
    assert bundle is job.bundle and bundle.card["task"] == name
    fmt = get_task(name).prompt_format
    assert PromptFormat.from_dict(bundle.card[CARD_KEY]) == fmt  # other pages append the suffix it was trained with
    trace = trace_text(bundle, get_task(name).examples(1, split="heldout", seed=0)[0].source, max_new_tokens=3)
    assert trace is not None
    file_name, data = checkpoint_zip(job)
    with tempfile.TemporaryDirectory() as tmp:
        zipfile.ZipFile(io.BytesIO(data)).extractall(tmp)
        folder = Path(tmp) / file_name.removesuffix(".zip")
        loaded = load_checkpoint(folder)
        assert not loaded.config.is_encoder_decoder and loaded.source_tokenizer is None
        assert PromptFormat.from_dict(loaded.card[CARD_KEY]) == fmt
        assert list(Film.load(folder / FILM).patterns) == ["decoder"]


def test_a_probe_the_task_cannot_answer_falls_back_to_an_example_of_the_lessons_task():
    options = _tiny("induction").replace(steps=2, eval_every=0, probe="no repeat here")
    job = registry().start(options, "session-probe")
    try:
        assert job.wait(240)
    finally:
        end(job)
    film = job.view().film
    task = task_with_options(get_task("induction"), options.settings().task_options)
    assert film.source != options.probe and task.reference(film.source).target == film.target
    assert len(film.source) <= task.max_lead + task.max_half + 1  # a lesson-sized repeat, not one of up to 24 + 10
