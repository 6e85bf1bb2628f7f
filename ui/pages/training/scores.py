"""The training page's "heads finding their job": a small layer × head chart of the score that matters for the task
(`runs.training.film_scores`) at the frame shown, and the live view opened on the head that scores best.

Live, the attention view follows the best head of the frame shown (the head that ends up holding the pattern is
rarely layer 0 head 0, and it may change while the model learns) until the user picks a head themselves.
"""

from __future__ import annotations

import streamlit as st

from hook_names import ordinal
from runs.training.film_scores import FORMED_AT, FilmScores
from ui.charts import show_figure
from ui.figure_memo import memo_figure
from ui.figure_words import detector_text
from ui.i18n import t
from viz.detector_figure import detector_figure

BEST_KEY = "tr_best_head"  # session state: the (kind, layer, head) last opened as the best; a different one: user's
SCORE_WIDTH = 420  # px: the chart sits in the page's right column


def follow_best_head(scores: FilmScores | None, index: int, keys: tuple[str, str, str]) -> bool:
    """Open the attention view on frame `index`'s best head, unless the user picked another head since the page last
    did (then their choice is kept). `keys`: the session keys of the kind, layer and head pickers. Returns whether the
    view shows the best head."""
    if scores is None:
        return False
    shown = tuple(st.session_state.get(key) for key in keys)
    opened = st.session_state.get(BEST_KEY)
    if opened is not None and shown != opened:
        return False  # the user chose a head: keep it
    layer, head, _ = scores.best(index)
    best = (scores.kind, layer, head)
    for key, value in zip(keys, best, strict=True):
        st.session_state[key] = value
    st.session_state[BEST_KEY] = best
    return True


def score_chart(scores: FilmScores, index: int, name: str) -> None:
    """Every head's task score at frame `index` (outlined: the best two reaching 0.2), with what it means."""
    words = detector_text(scores.names)
    fig = memo_figure(
        "tr_scores",
        (name, scores.scores.shape, index),
        lambda: detector_figure(scores.at(index), words, width_hint=SCORE_WIDTH),
    )
    show_figure(fig, f"{name}_scores", key="tr_scores", html=False)
    layer, head, value = scores.best(index)
    formed = scores.first_formed()
    st.caption(
        t(
            "training.scores_caption",
            kind=t(f"training.kind_{scores.kind}"),
            score=words.names[scores.headline],
            step=f"{int(scores.steps[index]):,}",
            layer=ordinal(layer),
            head=ordinal(head),
            value=f"{value:.2f}",
        )
        + " "
        + (
            t("training.scores_formed", step=f"{formed:,}", at=f"{FORMED_AT:.1f}")
            if formed is not None
            else t("training.scores_not_formed", at=f"{FORMED_AT:.1f}")
        )
    )
