"""Applying `ui.url_values.sanitize_query_params` to the page's URL before any widget reads it.

A widget bound to the URL (`bind="query-params"`) is seeded on a session's first run from Streamlit's
snapshot of the URL as it arrived, not from `st.query_params`; and a bound parameter cannot be changed
through `st.query_params` once its widget exists. So the guard repairs both the live parameters and that
snapshot, through the session's own query-parameter state, once at the top of every page
(`ui.page.start_page`), before the sidebar or the page draws a widget. This is the only place the app
touches Streamlit internals; if they move, it falls back to the public `st.query_params` (the live URL
is repaired and the notice still shows).
"""

from __future__ import annotations

import logging

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.url_values import UrlRepair, sanitize_query_params

log = logging.getLogger(__name__)


def guard_query_params() -> UrlRepair:
    """Drop out-of-range URL numbers and cap URL texts, for the widgets' seeding too; say what changed."""
    params = st.query_params.to_dict()
    repair = sanitize_query_params(params)
    if repair:
        try:
            _repair_session(params, repair)
        except (AttributeError, TypeError) as err:  # Streamlit's internals changed: repair what the public API can
            log.warning("URL guard fell back to st.query_params: %s", err)
            _repair_public(params, repair)
    return repair


def _repair_session(params: dict[str, str], repair: UrlRepair) -> None:
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with ctx.session_state.query_params() as qp:
        for key in repair.dropped:
            qp.discard_param_no_forward_msg(key)
        for key, _ in repair.cut:
            qp.set_with_no_forward_msg(key, params[key])
        qp.set_initial_query_params_from_current()  # what bound widgets are seeded from
        qp._send_query_param_msg()  # the browser's address bar gets the repaired link


def _repair_public(params: dict[str, str], repair: UrlRepair) -> None:
    for key in repair.dropped:
        st.query_params.pop(key, None)
    for key, _ in repair.cut:
        st.query_params[key] = params[key]
