"""Recorded training films of the shipped models (`assets/models/<name>/film.npz`, written by `python -m transformer train`)."""

from __future__ import annotations

import json
from typing import Any

from runs.head_importance import stored_importance
from runs.heads import opening
from runs.model_ref import shipped_models
from runs.training.film_scores import FilmScores, film_scores
from transformer.checkpoint import CARD_JSON, ModelBundle
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


def film_task(name: str) -> Any | None:
    """The task shipped model `name` was trained on (its card's), to score its film's heads; None if unknown."""
    from transformer.tasks import get_task

    try:
        card = json.loads((MODELS_DIR / name / CARD_JSON).read_text(encoding="utf-8"))
        return get_task(str(card.get("task", "")))
    except (OSError, ValueError, AttributeError):
        return None


def shipped_film_scores(name: str) -> FilmScores | None:
    """The task scores of every head in every frame of shipped model `name`'s film (`film_scores`), from the film's
    own frames: no model is loaded and nothing is retrained."""
    task = film_task(name)
    return None if task is None else film_scores(load_film(name), task)


def film_opening(bundle: ModelBundle, film: Film) -> tuple[str, int, int]:
    """The head the film of shipped model `bundle` opens on: the one the heads page opens on for that model (the
    head its card names, e.g. a translator's alignment head or `reverse`'s anti-diagonal one), so the film shows
    the pattern that matters forming, not layer 0 head 0 (a model with no such head: cross-attention's first head)."""
    kinds = sorted(film.patterns, key=lambda kind: kind != "cross")
    return opening(bundle, kinds, stored_importance(bundle)).key
