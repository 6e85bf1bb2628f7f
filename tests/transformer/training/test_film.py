"""Training films: a frame is exactly the pattern the model at that step produces; films round-trip through .npz."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from transformer.tasks import ReverseTask
from transformer.training.film import QUANT, Film, FilmRecorder, probe_patterns, quantize
from transformer.training.train import TrainSettings, train

TASK = ReverseTask(min_len=2, max_len=5, chinese_heavy_fraction=0.0)
CONFIG = {"n_layers": 2, "d_model": 16, "n_heads": 2, "d_ff": 32, "dropout": 0.1}
SETTINGS = TrainSettings(
    task="reverse", steps=24, config=CONFIG, batch_size=16, warmup=10, eval_every=8, eval_n=10, target_exact=2.0
)


@pytest.fixture(scope="module")
def recorded():
    """A film every 5 steps, and a deep copy of the model at each frame's step, taken the moment it was filmed."""
    recorder = FilmRecorder(TASK, every=5, probe="abcd", eval_every=SETTINGS.eval_every)
    copies = {}

    def callback(progress):
        recorder(progress)
        if progress.step == 1 or progress.step % 5 == 0:
            copies[progress.step] = copy.deepcopy(progress.bundle)

    result = train(SETTINGS, callback, task=TASK)
    recorder.finish()
    return recorder.film(), copies, result


def test_each_frame_is_the_pattern_of_the_model_at_that_step(recorded):
    film, copies, result = recorded
    assert list(film.frame_steps) == [1, 5, 10, 15, 20, 24]  # the last step is filmed although 24 % 5 != 0
    copies[24] = result.bundle
    for index, step in enumerate(film.frame_steps):
        patterns = probe_patterns(copies[int(step)], film.source, film.target)
        for kind in ("encoder", "decoder", "cross"):
            np.testing.assert_array_equal(film.patterns[kind][index], patterns[kind])
    assert not np.array_equal(film.patterns["cross"][0], film.patterns["cross"][-1])  # training changed it


def test_frames_are_taken_without_dropout_and_leave_the_model_training(recorded):
    film, copies, _ = recorded
    bundle = copies[5]
    bundle.model.train()
    first = probe_patterns(bundle, film.source, film.target)
    assert bundle.model.training
    again = probe_patterns(bundle, film.source, film.target)
    for kind in first:
        np.testing.assert_array_equal(first[kind], again[kind])  # dropout (0.1) would make two runs differ


def test_frame_shapes_curves_and_checks(recorded):
    film, _, result = recorded
    assert film.src_tokens == ("a", "b", "c", "d", "<eos>") and film.tgt_tokens == ("<bos>", "d", "c", "b", "a")
    assert film.patterns["encoder"].shape == (6, 2, 2, 5, 5) and film.patterns["cross"].shape == (6, 2, 2, 5, 5)
    assert film.patterns["cross"].dtype == np.uint8
    rows = film.frame(3, "cross").sum(-1)  # (L, H, Tq): rows still sum to 1 after quantization
    np.testing.assert_allclose(rows, 1.0, atol=film.patterns["cross"].shape[-1] / QUANT)
    np.testing.assert_allclose(film.curves["loss"], result.losses, rtol=1e-6)
    assert [tuple(c) for c in film.checks.tolist()] == [(float(s), pytest.approx(v)) for s, v in result.checks]


def test_film_round_trips_through_npz(recorded, tmp_path):
    film, _, _ = recorded
    path = film.save(tmp_path / "film.npz")
    loaded = Film.load(path)
    assert (loaded.source, loaded.target, loaded.src_tokens, loaded.tgt_tokens) == (
        film.source,
        film.target,
        film.src_tokens,
        film.tgt_tokens,
    )
    for kind in film.patterns:
        np.testing.assert_array_equal(loaded.patterns[kind], film.patterns[kind])
    for name in film.curves:
        np.testing.assert_array_equal(loaded.curves[name], film.curves[name])
    assert loaded.config == film.config and loaded.config["d_model"] == 16


def test_quantize_rounds_to_255_levels():
    np.testing.assert_array_equal(quantize(np.array([0.0, 1 / 255, 0.5, 1.0, 1.2])), [0, 1, 128, 255, 255])


def test_a_probe_without_an_answer_falls_back_to_the_task_example():
    recorder = FilmRecorder(TASK, every=1, probe="")
    assert recorder.source and recorder.target == recorder.source[::-1]


def test_a_film_continues_across_a_grown_vocabulary_but_not_another_shape(recorded):
    """reverse's fourth stage adds level 2 to its alphabet: the probe's frames keep their axes, so its film goes on;
    another layer count or width is another model, whose frames cannot follow."""
    film = recorded[0]
    config = dict(film.config)
    sizes = {"src_vocab_size": config["src_vocab_size"] + 3000, "tgt_vocab_size": config["tgt_vocab_size"] + 3000}
    grown = dataclasses.replace(film, config={**config, **sizes})
    assert grown.continues(film)
    assert grown.after(film).n_frames == 2 * film.n_frames
    assert not dataclasses.replace(film, config={**config, "d_model": 32}).continues(film)


def test_a_joined_film_past_the_frame_budget_keeps_the_shipped_models_frame(recorded, monkeypatch):
    """Thinning a joined film to every other frame must not drop the last one (zh-en's two stages did: its film
    ended 30 steps before its model)."""
    import transformer.training.film

    film = recorded[0]
    monkeypatch.setattr(transformer.training.film, "MAX_FRAMES", film.n_frames)  # two films of n frames: thinned once
    joined = film.after(film)
    assert joined.n_frames <= film.n_frames + 1
    assert joined.frame_steps[-1] == 2 * int(film.curves["step"][-1])  # the second film's last step, shifted
    for kind, frames in film.patterns.items():
        np.testing.assert_array_equal(joined.patterns[kind][-1], frames[-1])
