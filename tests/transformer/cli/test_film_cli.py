"""`python -m transformer train` records a film beside the weights; every film loads and matches its model."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from transformer.config import TransformerConfig
from transformer.storage.checkpoint import load_checkpoint
from transformer.storage.registry import MODELS_DIR, list_models
from transformer.training.film import FILM, Film, probe_patterns

ROOT = Path(__file__).resolve().parents[3]
MAX_FILMS_BYTES = 3 * 2**20  # every shipped film together


def _check_film_matches(folder: Path) -> Film:
    film, bundle = Film.load(folder / FILM), load_checkpoint(folder)
    assert TransformerConfig.from_dict(dict(film.config)) == bundle.config  # fields added since default to the paper
    n_layers, n_heads = bundle.config.n_layers, bundle.config.n_heads
    for frames in film.patterns.values():
        assert frames.dtype == np.uint8 and frames.shape[:3] == (film.n_frames, n_layers, n_heads)
    # One value per step taken, the last frame on the last step; a model trained in stages (`--init-from`)
    # carries the film of every stage, so its film may be longer than its last stage (`card["steps"]`).
    steps = film.curves["step"]
    np.testing.assert_array_equal(steps, np.arange(1, len(steps) + 1))
    assert len(steps) >= bundle.card["steps"] and film.frame_steps[-1] == steps[-1]
    assert np.all(np.diff(film.frame_steps) > 0)
    # The last frame is the shipped model's own attention on the probe.
    final = probe_patterns(bundle, film.source, film.target)
    for kind in final:
        np.testing.assert_array_equal(film.patterns[kind][-1], final[kind])
    return film


def _tiny_training(out: Path, steps: int, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "transformer",
        "train",
        "--task",
        "reverse",
        "--out",
        str(out),
        "--steps",
        str(steps),
        "--config",
        "n_layers=1",
        "--config",
        "d_model=16",
        "--config",
        "n_heads=2",
        "--config",
        "d_ff=32",
        "--eval-every",
        "4",
        "--eval-n",
        "10",
        "--batch-size",
        "8",
        *extra,
    ]


def _run(command: list[str]) -> str:
    done = subprocess.run(
        command, cwd=ROOT, check=True, capture_output=True, timeout=600, env={"OMP_NUM_THREADS": "1", "PATH": ""}
    )
    return done.stderr.decode()


@pytest.mark.slow
def test_train_command_records_a_film(tmp_path):
    out = tmp_path / "tiny"
    _run(_tiny_training(out, 12))
    film = _check_film_matches(out)
    assert film.source == "hello 世界" and film.target == "界世 olleh"
    assert list(film.checks[:, 0]) == [4, 8, 12] and film.n_frames == 12  # 12 steps // 50 frames → every step


@pytest.mark.parametrize("name", [info.name for info in list_models()])
def test_every_shipped_model_has_the_film_of_the_run_that_made_it(name):
    assert (MODELS_DIR / name / FILM).is_file(), f"{name} ships no {FILM}: re-run its card command to record one"
    _check_film_matches(MODELS_DIR / name)


def test_all_films_together_stay_small():
    total = sum((info.path / FILM).stat().st_size for info in list_models() if (info.path / FILM).is_file())
    assert total <= MAX_FILMS_BYTES


@pytest.mark.slow
def test_a_continued_training_continues_its_film(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    _run(_tiny_training(first, 8))
    _run(_tiny_training(second, 6, "--init-from", str(first), "--seed", "1"))
    earlier, film = Film.load(first / FILM), _check_film_matches(second)
    assert len(film.curves["step"]) == 8 + 6 and film.frame_steps[-1] == 14
    n = earlier.n_frames
    np.testing.assert_array_equal(film.frame_steps[:n], earlier.frame_steps)  # the first stage, unchanged
    for kind, frames in earlier.patterns.items():
        np.testing.assert_array_equal(film.patterns[kind][:n], frames)
    np.testing.assert_array_equal(film.curves["loss"][:8], earlier.curves["loss"])
    assert film.curves["elapsed"][8] >= earlier.curves["elapsed"][-1]  # the clock runs on across stages
    assert list(film.checks[:, 0]) == [4, 8, 12]


@pytest.mark.slow
def test_a_continued_training_with_another_probe_films_itself_only(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    _run(_tiny_training(first, 8))
    earlier = Film.load(first / FILM)
    dataclasses.replace(earlier, source="another probe").save(first / FILM)
    note = _run(_tiny_training(second, 6, "--init-from", str(first)))
    film = _check_film_matches(second)
    assert len(film.curves["step"]) == 6 and "covers this run only" in note


@pytest.mark.parametrize("name", [info.name for info in list_models()])
def test_the_card_writer_knows_every_shipped_task(name):
    """A retrained shipped model gets its own summary, example (the film's probe) and, for a translator,
    a gold alignment that is a sentence (the decoder-only summaries once sat in the wrong table)."""
    from transformer.cli.train import GOLD_ALIGNMENT, SUMMARIES

    task = json.loads((MODELS_DIR / name / "card.json").read_text(encoding="utf-8"))["task"]
    summary, summary_zh, example = SUMMARIES[task]
    assert summary and summary_zh and example
    assert all(isinstance(how, str) for how in GOLD_ALIGNMENT.values())
