"""`python -m transformer train` records a film beside the weights; every film loads and matches its model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from transformer.checkpoint import load_checkpoint
from transformer.film import FILM, Film, probe_patterns
from transformer.registry import MODELS_DIR, list_models

ROOT = Path(__file__).resolve().parents[2]
MAX_FILMS_BYTES = 3 * 2**20  # every shipped film together


def _check_film_matches(folder: Path) -> Film:
    film, bundle = Film.load(folder / FILM), load_checkpoint(folder)
    assert film.config == bundle.config.to_dict()
    n_layers, n_heads = bundle.config.n_layers, bundle.config.n_heads
    for frames in film.patterns.values():
        assert frames.dtype == np.uint8 and frames.shape[:3] == (film.n_frames, n_layers, n_heads)
    assert len(film.curves["step"]) == bundle.card["steps"] and film.frame_steps[-1] == bundle.card["steps"]
    # The last frame is the shipped model's own attention on the probe.
    final = probe_patterns(bundle, film.source, film.target)
    for kind in final:
        np.testing.assert_array_equal(film.patterns[kind][-1], final[kind])
    return film


@pytest.mark.slow
def test_train_command_records_a_film(tmp_path):
    out = tmp_path / "tiny"
    command = [
        sys.executable,
        "-m",
        "transformer",
        "train",
        "--task",
        "reverse",
        "--out",
        str(out),
        "--steps",
        "12",
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
    ]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=600, env={"OMP_NUM_THREADS": "1", "PATH": ""})
    film = _check_film_matches(out)
    assert film.source == "hello 世界" and film.target == "界世 olleh"
    assert list(film.checks[:, 0]) == [4, 8, 12] and film.n_frames == 12  # 12 steps // 50 frames → every step


@pytest.mark.parametrize("name", [info.name for info in list_models() if (info.path / FILM).is_file()] or ["none"])
def test_shipped_films_load_and_match_their_models(name):
    if name == "none":
        pytest.skip("no shipped model has a film yet (python -m transformer train records one)")
    _check_film_matches(MODELS_DIR / name)


def test_all_films_together_stay_small():
    total = sum((info.path / FILM).stat().st_size for info in list_models() if (info.path / FILM).is_file())
    assert total <= MAX_FILMS_BYTES
