"""Starting and stopping `streamlit run app.py` processes: one set of helpers for the school server, the browser
tests and the benchmarks (each used to keep its own copy).

Every app process runs headless in its own process group, so stopping it ends its children too; "healthy" is
Streamlit's own health check answering 200.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str) -> bool:
    """Whether the app (or a proxy in front of it) at `url` answers Streamlit's health check."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


def launch_streamlit(
    port: int,
    out: IO[str],
    address: str = "127.0.0.1",
    environment: Mapping[str, str] | None = None,
    script: str = "app.py",
    **env: str,
) -> subprocess.Popen:
    """`streamlit run app.py` (or another `script`) on address:port, headless, its output to `out`, in its own
    process group. `environment`: the whole environment (default: this process's); `env`: variables set on top."""
    command = [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port), "--server.address", address]
    command += ["--server.headless", "true", "--browser.gatherUsageStats", "false"]
    variables = {**(os.environ if environment is None else environment), "BROWSER": "none", **env}
    return subprocess.Popen(command, cwd=ROOT, env=variables, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def wait_healthy(url: str, processes: Sequence[subprocess.Popen], timeout_s: float, poll_s: float = 0.2) -> None:
    """Return once `url` is healthy; raise if one of `processes` exits or `timeout_s` passes."""
    deadline = time.monotonic() + timeout_s
    while not healthy(url):
        for process in processes:
            if process.poll() is not None:
                raise RuntimeError(f"{process.args[0]} exited with code {process.returncode} before {url} answered")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url}/_stcore/health did not answer within {timeout_s:.0f} s")
        time.sleep(poll_s)


def stop_process(process: subprocess.Popen) -> None:
    """SIGTERM a process group we started, SIGKILL it if it has not ended within 10 s."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
