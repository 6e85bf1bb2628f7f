"""Recorded training films of the shipped models (`assets/models/<name>/film.npz`, written by `python -m transformer train`)."""

from __future__ import annotations

from runs.model_ref import shipped_models
from transformer.film import FILM, Film
from transformer.registry import MODELS_DIR

FIRST_FILM = "reverse"  # the film a class remembers: the anti-diagonal forming out of noise


def shipped_films() -> list[str]:
    """Names of shipped models that have a film, `FIRST_FILM` first (the page opens on it)."""
    names = [name for name in shipped_models() if (MODELS_DIR / name / FILM).is_file()]
    return sorted(names, key=lambda name: name != FIRST_FILM)


def load_film(name: str) -> Film:
    """A shipped model's film. Raises ValueError if `name` has none."""
    if name not in shipped_films():
        raise ValueError(f"no recorded film for {name!r}")
    return Film.load(MODELS_DIR / name / FILM)
