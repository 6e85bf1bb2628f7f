"""The patching sweep on the page: answered from the per-pair cache, or run here with a progress bar and a Cancel.

A click on Cancel makes Streamlit rerun the page, which stops the running sweep at its next progress update; the
button's callback has noted the pair first, so the rerun shows "cancelled" instead of starting the sweep again.
"""

from __future__ import annotations

import streamlit as st

from runs.why_page import PairView, cached_pair, pair_view, remember_pair
from ui.caches import get_bundle
from ui.i18n import t

CANCELLED_KEY = "why_cancelled"


def _cancel(key: tuple[object, ...]) -> None:
    st.session_state[CANCELLED_KEY] = key


def _again() -> None:
    st.session_state.pop(CANCELLED_KEY, None)


def patching(model_key: str, clean: str, corrupted: str, position: int | None, target: str | None) -> PairView | None:
    """The sweep of this pair (None where it was cancelled). Raises ProbeRefusal for an input it cannot measure."""
    key = (model_key, clean, corrupted, position, target)
    view = cached_pair(key)
    if view is not None:
        return view
    if st.session_state.get(CANCELLED_KEY) == key:
        st.info(t("why.cancelled"))
        st.button(t("why.run_again"), key="why_again", on_click=_again)
        return None
    bar = st.empty()
    stop = st.empty()
    stop.button(t("why.cancel"), key="why_cancel", on_click=_cancel, args=(key,), icon=":material/cancel:")

    def progress(done: int, total: int) -> None:
        bar.progress(done / max(1, total), text=t("why.progress", done=done, total=total))

    try:
        view = pair_view(get_bundle(model_key), clean, corrupted, position, target, progress=progress)
    finally:
        bar.empty()
        stop.empty()
    remember_pair(key, view)
    return view
