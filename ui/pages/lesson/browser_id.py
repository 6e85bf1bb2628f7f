"""One browser is one student: an anonymous id kept in a cookie of the student's browser, so a second tab (or a
reload) of the same browser joins the class as the same student instead of as a new one.

Before it, every session (every tab) made up its own id, so one person with many tabs, or one script with many
sessions, counted as many students. A browser that sends no cookie (a script) still gets a new id per session:
what bounds those is the class's cap on joins and the per-client rate limit (`class_mode.join`).

Streamlit sets no cookie from the server, so the page writes it with a one-line script at the foot of the page
(`write_pending`), like the teacher's (`teacher_cookie`). The id names nobody: random, 16 URL-safe characters.
"""

from __future__ import annotations

import re
import secrets

import streamlit as st

COOKIE = "atlas_student"
MAX_AGE_S = 180 * 24 * 3600  # a school term: the same laptop is the same student in every class
ID_KEY = "class_student_id"  # session state: this session's (this browser's) id
_PENDING_KEY = "class_student_cookie"  # session state: the id to write into the cookie on the next run
_VALUE = re.compile(r"[A-Za-z0-9_-]{16}")


def sent() -> str:
    """The id this browser's cookie holds ("" when it sent none)."""
    return str(st.context.cookies.get(COOKIE, ""))


def browser_id() -> str:
    """This browser's id: the session's, else the cookie's, else a new one (written on the next run's foot)."""
    if ID_KEY in st.session_state:
        return st.session_state[ID_KEY]
    sent_id = sent()
    if _VALUE.fullmatch(sent_id):
        st.session_state[ID_KEY] = sent_id
    else:
        st.session_state[ID_KEY] = secrets.token_urlsafe(12)  # 16 characters
        st.session_state[_PENDING_KEY] = st.session_state[ID_KEY]
    return st.session_state[ID_KEY]


def write_pending() -> None:
    """Write the id `browser_id` made up into this browser's cookie, once (an invisible script at the page's foot)."""
    value = st.session_state.pop(_PENDING_KEY, None)
    if value is None or _VALUE.fullmatch(value) is None:
        return
    st.html(
        f'<script>document.cookie = "{COOKIE}={value}; Max-Age={MAX_AGE_S}; Path=/; SameSite=Strict";</script>',
        unsafe_allow_javascript=True,
    )
