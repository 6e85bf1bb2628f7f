"""Recorded training films of the shipped models (`assets/models/<name>/film.npz`, written by `python -m transformer train`)."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from runs.head_importance import stored_importance
from runs.heads import opening
from runs.model_ref import shipped_models
from runs.training.film_scores import FilmScores, film_scores
from transformer.storage.checkpoint import CARD_JSON, ModelBundle
from transformer.storage.registry import MODELS_DIR
from transformer.tasks.base import Example
from transformer.training.film import FILM, Film

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


def shipped_card(name: str) -> dict[str, Any] | None:
    """Shipped model `name`'s card.json (None if it has none or it cannot be read)."""
    try:
        card = json.loads((MODELS_DIR / name / CARD_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return card if isinstance(card, dict) else None


def film_task(name: str) -> Any | None:
    """The task shipped model `name` was trained on (its card's), to score its film's heads; None if unknown."""
    from transformer.tasks import get_task

    try:
        return get_task(str((shipped_card(name) or {}).get("task", "")))
    except ValueError:
        return None


def shipped_film_scores(name: str) -> FilmScores | None:
    """The task scores of every head in every frame of shipped model `name`'s film (`film_scores`), from the film's
    own frames: no model is loaded and nothing is retrained."""
    task = film_task(name)
    if task is None:
        return None
    film = load_film(name)
    return film_scores(film, task, card_probe(shipped_card(name) or {}, film))


def card_probe(card: dict[str, Any], film: Film) -> Example | None:
    """The film's probe with the alignment its card measured (`attention.probe_alignment`: per target token, the
    source positions that translate it by a dictionary), or None when the card has none for this probe."""
    stored = card.get("attention", {}).get("probe_alignment") if isinstance(card.get("attention"), dict) else None
    if not isinstance(stored, dict) or stored.get("source") != film.source or not isinstance(stored.get("sources"), list):
        return None
    alignment = tuple(frozenset(int(i) for i in s) or None for s in stored["sources"] if isinstance(s, list))
    return Example(film.source, film.target, alignment)


STAGE_FLAGS = {"lr_factor": r"--lr-factor\s+(\S+)", "warmup": r"--warmup\s+(\S+)"}  # recipe flags a card's stage names


@dataclass(frozen=True)
class StageMark:
    """Where a continued training's next stage began in its film, and what changed there.

    Attributes:
        step: the previous stage's last step (the new stage's first step follows it).
        number: the stage that begins here (2, 3, ...).
        changes: (name, before, after) of each recipe setting that changed: "max_len" (the longest training string),
            "lr_factor" (the schedule's peak), "warmup" (its length). Every stage restarts the warmup with a fresh
            optimizer, so the learning rate climbs again from near zero: a loss spike there has this cause.
    """

    step: int
    number: int
    changes: tuple[tuple[str, str, str], ...] = ()


def _stage_recipe(stage: dict[str, Any]) -> dict[str, str]:
    """A card stage's recipe settings, from its command line and its trained string length."""
    command = str(stage.get("command", ""))
    recipe = {name: match.group(1) for name, flag in STAGE_FLAGS.items() if (match := re.search(flag, command))}
    if "trained_max_len" in stage:
        recipe["max_len"] = str(stage["trained_max_len"])
    return recipe


def stage_marks(film: Film, card: dict[str, Any] | None = None) -> list[StageMark]:
    """The film's stage boundaries with what changed at each: from the card's `stages` when their steps add up to the
    film's (a shipped film recorded before films kept their stages), else from `Film.stages` (causes unknown)."""
    stages = (card or {}).get("stages") or []
    total = int(film.curves["step"][-1]) if len(film.curves["step"]) else 0
    ends = np.cumsum([int(stage.get("steps", 0)) for stage in stages]).tolist()
    if len(stages) > 1 and ends[-1] == total:
        recipes = [_stage_recipe(stage) for stage in stages]
        return [
            StageMark(
                int(ends[i - 1]),
                i + 1,
                tuple(
                    (name, before[name], after[name])
                    for name in ("max_len", "lr_factor", "warmup")
                    if name in before and name in after and before[name] != after[name]
                ),
            )
            for i, (before, after) in enumerate(itertools.pairwise(recipes), start=1)
        ]
    return [StageMark(step, number) for number, step in enumerate(film.stages, start=2)]


def shipped_stage_marks(name: str, film: Film) -> list[StageMark]:
    """`stage_marks` of shipped model `name`'s film, with its card."""
    return stage_marks(film, shipped_card(name))


def film_opening(bundle: ModelBundle, film: Film) -> tuple[str, int, int]:
    """The head the film of shipped model `bundle` opens on: the one the heads page opens on for that model (the
    head its card names, e.g. a translator's alignment head or `reverse`'s anti-diagonal one), so the film shows
    the pattern that matters forming, not layer 0 head 0 (a model with no such head: cross-attention's first head)."""
    kinds = sorted(film.patterns, key=lambda kind: kind != "cross")
    return opening(bundle, kinds, stored_importance(bundle)).key
