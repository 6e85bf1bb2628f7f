"""How a student gets into a class: the join link, its QR code (made here, offline) and the code to type.

The QR code is drawn by `segno` (pure Python, no network, no image library) as a PNG. The link is the
address the teacher's own browser uses (`st.context.url`) with `?class=CODE`; on `localhost` the page
says that other devices need the computer's network address (README: "Serving a class").
"""

from __future__ import annotations

import io
from urllib.parse import urlsplit, urlunsplit

import segno
import streamlit as st

from runs.classroom_store import CLASS_PARAM
from ui.i18n import t

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")
QR_SCALE = 8  # px per module: a 33-module code is ~300 px, read from the back of a room


def join_link(code: str) -> str:
    """The link a student opens: this app's address as the teacher's browser sees it, at the lesson, with
    the class code (no secret in it: the code only lets a student follow and answer)."""
    url = st.context.url
    if not url:  # no browser (tests): a link relative to the app's root
        return f"/?{CLASS_PARAM}={code}"
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/", f"{CLASS_PARAM}={code}", ""))


def is_local(link: str) -> bool:
    return urlsplit(link).hostname in LOCAL_HOSTS or not urlsplit(link).hostname


def qr_png(link: str) -> bytes:
    """A QR code of `link` as PNG bytes (error correction M: still reads with a smudge on the screen)."""
    buffer = io.BytesIO()
    segno.make(link, error="m").save(buffer, kind="png", scale=QR_SCALE, border=2)
    return buffer.getvalue()


def join_card(code: str) -> None:
    """The code in large type, the QR code and the link: for the projector while the class joins."""
    link = join_link(code)
    with st.container(border=True, key="class_join_card"):
        st.metric(t("classroom.join_with"), code)  # the code in the largest type the page has
        cols = st.columns([1, 1.4], vertical_alignment="center")
        cols[0].image(qr_png(link), width=220, caption=t("classroom.scan"))
        cols[1].code(link, language=None, wrap_lines=True)
        if is_local(link):
            cols[1].caption(t("classroom.local_link"))
        else:
            cols[1].caption(t("classroom.or_type", code=code))
