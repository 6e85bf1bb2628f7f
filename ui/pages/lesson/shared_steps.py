"""A lesson step's content built once per model, sentence, step and language, and shared by every session.

In class mode every student's page moves to the teacher's new step in the same second, and each page
used to build the step's figure for itself: 7–130 ms a page (the attention step's scores figure the
most), all in one server process's interpreter, so a class of 60 waited seconds for the last page
(benchmarks/README.md §13). The content depends only on the step's numbers (`ui.caches.get_lesson_step`,
cached) and the UI language, so one build serves the class. Sharing a figure is safe: pages never change
a figure after it is built (`ui.projector.projector_figure` enlarges a copy).
"""

from __future__ import annotations

import streamlit as st

from runs.lesson import STEPS
from ui.i18n import current_language
from ui.pages.lesson.steps import Lesson, StepContent, build_step, lesson_for

MAX_STEPS = len(STEPS) * 2 * 16  # every step in both languages, for 16 model-and-sentence pairs (a few kB each)


@st.cache_resource(max_entries=MAX_STEPS, show_spinner=False)
def _shared_step(model_key: str, text: str, step: str, lang: str) -> StepContent:
    return build_step(step, lesson_for(model_key, text))  # `lang` keys the cache: build_step speaks the session's language


def shared_step(step: str, ls: Lesson) -> StepContent:
    """`build_step(step, ls)`, built once for every session on the same model, sentence and language."""
    return _shared_step(ls.model_key, ls.text, step, current_language())
