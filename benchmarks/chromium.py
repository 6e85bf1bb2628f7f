"""Debian's Chromium for the browser tests and the browser benchmarks: where it is, the flags it runs with, and
a request log that proves a page fetched nothing from outside the machine. Never a downloaded browser."""

from __future__ import annotations

import os
import shutil
from urllib.parse import urlsplit

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    """Debian's real Chromium binary (the /usr/bin/chromium wrapper script also works)."""
    for candidate in ("/usr/lib/chromium/chromium", shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def track_outside(page) -> None:
    """Collect in `page.outside` every request not for the app's own server: the app must work offline."""
    page.outside = []
    page.on(
        "request",
        lambda r: (
            page.outside.append(r.url)
            if urlsplit(r.url).hostname not in ("127.0.0.1", "localhost", None) and not r.url.startswith("data:")
            else None
        ),
    )
