"""The models this session trained on the training page, as every page's model picker lists and names them.

A trained model is an ended job of the server's `runs.training.registry`, run by its model key `trained:<job id>`.
The picker (`ui.sidebar`) is on every page, so this lives among the shared widgets, not in the training page's room.
"""

from __future__ import annotations

import time
import uuid

import streamlit as st

from runs.model_ref import TRAINED_PREFIX
from runs.training.registry import registry, trained_key
from ui.i18n import t

OWNER_KEY = "tr_owner"  # session state: this browser session's id (a job remembers who started it)


def session_owner() -> str:
    """An id of this browser session, kept in its session state (a job remembers who started it: only they may stop it)."""
    return st.session_state.setdefault(OWNER_KEY, uuid.uuid4().hex)


def trained_model_keys() -> list[str]:
    """Model keys of this session's ended, usable training jobs, newest first (the sidebar's model picker lists them)."""
    return [trained_key(job) for job in registry().owned_by(session_owner()) if job.bundle is not None]


def trained_label(key: str) -> str:
    """How the model picker names a trained model: "Trained here: reverse · step 1,200 · 14:02" (the time it ended,
    the server's clock), so two runs of one task tell apart. Any other key is its own label."""
    job = registry().get(key.removeprefix(TRAINED_PREFIX)) if key.startswith(TRAINED_PREFIX) else None
    if job is None or job.result is None:
        return key
    ended = time.strftime("%H:%M", time.localtime(job.ended or job.created))
    return t("training.model_label", task=job.options.task, steps=f"{job.result.steps:,}", time=ended)
