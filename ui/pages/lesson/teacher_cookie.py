"""The teacher's class survives a reload: its code and secret kept in a cookie of the teacher's own browser.

A Streamlit session lives as long as its browser tab's connection. A teacher who pressed F5, or whose laptop slept
on the projector, came back to a new session that no longer held the class's secret: the class went on in the
store, the students' screens waited on a step nobody could move, and only a new class (a new code for everyone)
got the lesson going again.

The secret never goes in the URL (a projector shows the address bar, and a student's link must not lead the class).
It goes in a cookie instead, which only the teacher's browser sends, with each new connection to this server
(`st.context.cookies`). A new session with no class of its own reads it, and leads again only if the store still
knows that secret for a live class (`ClassStore.leads`); otherwise the cookie is dropped. Ending the class drops it
too. Streamlit can set no cookie from the server, so the teacher's page writes it with a one-line script, once,
after Start or End (`write_pending`).
"""

from __future__ import annotations

import re

import streamlit as st

COOKIE = "atlas_class_teacher"
MAX_AGE_S = 12 * 3600  # a school day; the store decides whether the class is still alive (it expires when idle)
_PENDING_KEY = "class_teacher_cookie"  # session state: the cookie to write on the next run, or "" to drop it
_VALUE = re.compile(r"([A-Z0-9]{3,16}):([A-Za-z0-9_-]{16,64})")  # a class code and a `token_urlsafe` secret


def recalled() -> tuple[str, str] | None:
    """(code, secret) from this browser's cookie, or None when it sent none or one this app did not write."""
    found = _VALUE.fullmatch(str(st.context.cookies.get(COOKIE, "")))
    return None if found is None else (found.group(1), found.group(2))


def remember(code: str, secret: str) -> None:
    """Keep (code, secret) in the teacher's browser from the next run on (`write_pending`)."""
    value = f"{code}:{secret}"
    if _VALUE.fullmatch(value) is None:  # the store's own format: nothing else is ever written into the script
        raise ValueError("not a class code and secret")
    st.session_state[_PENDING_KEY] = value


def forget() -> None:
    """Drop the cookie on the next run (`write_pending`): the class ended, or the store no longer knows it."""
    st.session_state[_PENDING_KEY] = ""


def write_pending() -> None:
    """Write or drop the cookie `remember` or `forget` asked for, once (an invisible script; call it where a
    zero-height element costs nothing, at the foot of the page)."""
    value = st.session_state.pop(_PENDING_KEY, None)
    if value is None:
        return
    age = MAX_AGE_S if value else 0
    st.html(
        f'<script>document.cookie = "{COOKIE}={value}; Max-Age={age}; Path=/; SameSite=Strict";</script>',
        unsafe_allow_javascript=True,
    )
