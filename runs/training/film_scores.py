"""Heads finding their job: the head-detector score that matters for a film's task, for every head in every frame.

A film holds every head's attention on the probe, teacher-forced on its right answer, in every frame, so the scores
come from the film's own frames: every shipped film carries them without retraining, and a live job's film gets
them as it grows. Which score matters depends on the task:

- a sequence-to-sequence task (reverse, copy, the translators): cross-attention's *source alignment*, the weight
  each output row puts on the source token(s) it is made from (the task's gold alignment of the probe: for
  `reverse`, the anti-diagonal);
- a decoder-only translator (`gpt-translate-en-zh`): the same alignment, read in its one self-attention stack from
  the rows that write the completion to the prompt's tokens;
- `induction`: decoder self-attention's *previous token* and *induction* scores (`transformer.probes.head_scores`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from transformer.probes.head_scores import (
    INDUCTION,
    PREVIOUS_TOKEN,
    SOURCE_ALIGNMENT,
    HeadScores,
    alignment_matrix,
    induction_score,
    previous_token_score,
    source_alignment_score,
)
from transformer.training.evaluate import alignment_sets
from transformer.training.film import QUANT, Film

TOKEN_SCORES: dict[str, tuple[str, ...]] = {"induction": (PREVIOUS_TOKEN, INDUCTION)}  # task → scores, headline last
FORMED_AT = 0.5  # a head holding at least half its weight where the task needs it shows the pattern clearly


@dataclass(frozen=True)
class FilmScores:
    """Scores of one attention kind's heads over a film.

    Attributes:
        kind: the attention kind scored ("cross" or "decoder").
        names: the score names, the headline score (the one a head is opened by) last.
        scores: (N, S, L, H) float32: score n of frame s's layer l head h; NaN where it does not apply.
        steps: (S,) the step of each frame.
    """

    kind: str
    names: tuple[str, ...]
    scores: np.ndarray
    steps: np.ndarray

    @property
    def headline(self) -> str:
        return self.names[-1]

    def at(self, frame: int) -> HeadScores:
        """Frame `frame`'s layer × head table (every score)."""
        return HeadScores(self.names, self.scores[:, frame].astype(np.float64))

    def best(self, frame: int) -> tuple[int, int, float]:
        """(layer, head, score) of the head scoring highest on the headline score at frame `frame`."""
        grid = np.nan_to_num(self.scores[-1, frame], nan=-np.inf)  # (L, H)
        layer, head = np.unravel_index(int(np.argmax(grid)), grid.shape)
        return int(layer), int(head), float(self.scores[-1, frame, layer, head])

    def first_formed(self, at_least: float = FORMED_AT) -> int | None:
        """The step of the first frame in which some head's headline score reaches `at_least` (None: never)."""
        reached = np.nan_to_num(self.scores[-1], nan=0.0).max(axis=(1, 2)) >= at_least  # (S,)
        return int(self.steps[int(np.argmax(reached))]) if reached.any() else None


def _frames(film: Film, kind: str) -> np.ndarray:
    """Kind's frames as weights, stacked for the detectors: (S·L, H, Tq, Tk) float64."""
    frames = film.patterns[kind]  # (S, L, H, Tq, Tk) uint8
    return frames.reshape(-1, *frames.shape[2:]).astype(np.float64) / QUANT


def probe_alignment(film: Film, task: Any, kind: str, probe: Any | None = None) -> np.ndarray | None:
    """(Tq, Tk) bool: where each row of `kind`'s frames should look by the task's gold alignment of the probe;
    None when the task gives the probe no alignment.

    Cross-attention row j writes target token j and its keys are the source tokens. In a decoder-only stack the
    completion's first token is written by the row before it (the prompt's last), and the prompt's tokens follow
    <bos>."""
    example = probe if probe is not None else task.reference(film.source) if hasattr(task, "reference") else None
    aligned = alignment_sets(example) if example is not None else {}
    if not aligned:
        return None
    tq, tk = film.patterns[kind].shape[-2:]
    if kind == "cross":
        return alignment_matrix(aligned, tq, tk)
    first_row = len(film.tgt_tokens) - len(example.alignment) - 1  # the row that writes target token 0
    shifted = {first_row + j: {1 + s for s in sources} for j, sources in aligned.items()}
    return alignment_matrix(shifted, tq, tk)


def film_scores(film: Film, task: Any, probe: Any | None = None) -> FilmScores | None:
    """The score that matters for `task`, for every head in every frame of `film`; None when the film has nothing
    to score it on (a probe the task gives no alignment). `probe`: the probe's `Example` with an alignment measured
    elsewhere (a natural translator's card holds its probe's dictionary alignment: real pairs come without one)."""
    kind = "cross" if "cross" in film.patterns else "decoder"
    s, n_layers = film.patterns[kind].shape[:2]
    frames = _frames(film, kind)
    names = TOKEN_SCORES.get(getattr(task, "name", ""))
    if names is not None and kind == "decoder":
        tokens = list(film.tgt_tokens)
        found = {PREVIOUS_TOKEN: previous_token_score(frames), INDUCTION: induction_score(frames, tokens)}
        table = np.stack([found[name] for name in names])  # (N, S·L, H)
    else:
        alignment = probe_alignment(film, task, kind, probe)
        if alignment is None:
            return None
        names = (SOURCE_ALIGNMENT,)
        table = source_alignment_score(frames, alignment)[None]  # (1, S·L, H)
    scores = table.reshape(len(names), s, n_layers, -1).astype(np.float32)  # (N, S, L, H)
    return FilmScores(kind, names, scores, np.asarray(film.frame_steps))
