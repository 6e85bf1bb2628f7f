"""A school server: N `streamlit run app.py` processes behind Debian's nginx, with sticky sessions.

Run:  python -m serve.school [--processes N] [--listen 0.0.0.0:8080]
      python -m serve.school --backend 10.0.0.11:8501 --backend 10.0.0.12:8501   # processes on other machines

One Streamlit process uses about one core well (Python runs one script thread at a time per
process, and `ATLAS_MODEL_RUNS` bounds its model runs); a school with more cores, or more machines,
runs one process per core and lets nginx spread the students over them. Every process gets the same
`server.cookieSecret` (`STREAMLIT_SERVER_COOKIE_SECRET`), so a cookie one process signed is valid at
all of them, and nginx keeps each browser on one process (`serve.nginx`: a Streamlit session lives
in the process that opened it).

What is per process: the model cache, the cache of runs (`ATLAS_CACHE_BYTES` each), and training
jobs (a job lives in the process that started it; `ATLAS_TRAINING_JOBS` counts per process, and a
student sees the jobs of the process nginx sent them to). Nothing is shared on disk.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from serve.nginx import AFFINITY_COOKIE, BACKEND_HEADER, nginx_binary, nginx_command, nginx_config
from serve.processes import free_port, launch_streamlit, stop_process, wait_healthy

ROOT = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT_S = 120  # N processes importing torch at once on 2 cores take a while
COOKIE_SECRET_ENV = "STREAMLIT_SERVER_COOKIE_SECRET"


@dataclass
class School:
    """A running school server: the proxy's URL, and the processes behind it (local ones only)."""

    url: str
    backends: list[str]
    apps: list[subprocess.Popen] = field(default_factory=list)
    proxy: subprocess.Popen | None = None
    prefix: Path = field(default_factory=Path)
    keep_logs: bool = False  # keep `prefix` (its logs) after stopping: set when a process died, so they can be read

    @property
    def app_pids(self) -> list[int]:
        return [app.pid for app in self.apps]

    def stop(self) -> None:
        """End nginx, then every app process (each with its children), the same way: TERM, then KILL."""
        for process in ([self.proxy] if self.proxy else []) + self.apps:
            stop_process(process)


def first_visit(url: str, cookie: str | None = None) -> tuple[str, str]:
    """Load the page at the proxy `url` as a browser does: (the affinity cookie nginx set, the app process
    that answered, "host:port"). Pass `cookie` to visit again as the same browser."""
    request = urllib.request.Request(f"{url}/", headers={"Cookie": f"{AFFINITY_COOKIE}={cookie}"} if cookie else {})
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()
        set_cookie = response.headers.get("Set-Cookie", "")
        backend = response.headers.get(BACKEND_HEADER, "")
    prefix = f"{AFFINITY_COOKIE}="
    if not set_cookie.startswith(prefix):
        raise RuntimeError(f"{url} set no {AFFINITY_COOKIE} cookie: is it the school server's nginx?")
    return set_cookie[len(prefix) :].split(";", 1)[0], backend


def app_environment(cookie_secret: str, n_processes: int) -> dict[str, str]:
    """The environment of each app process: one shared cookie secret, and the machine's cores shared out
    (one torch thread per call, `ATLAS_MODEL_RUNS` = cores / processes), unless the caller set them.

    MKL's threads too: every script run is a thread of its own, and each thread that calls MKL with two threads
    gets a team of its own that spins while it waits for work. Two processes on two cores with app.py's default
    of two made a 30-student burst cost 730 ms of CPU per sentence instead of 72 (p95 12 s instead of 1.3 s). No
    model-run worker (`runs.run_worker`): with two processes on two cores, a worker each made the burst slower
    (p95 1.36 s instead of 1.17 s) and added 0.7 GB."""
    cores = os.cpu_count() or 1
    return {
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "ATLAS_RUN_WORKER": "0",  # the processes share the cores out already: a model-run worker each only competes
        "ATLAS_MODEL_RUNS": str(max(1, cores // n_processes)),
        **os.environ,
        COOKIE_SECRET_ENV: cookie_secret,
        "BROWSER": "none",
    }


def launch_app(port: int, address: str, environment: dict[str, str], log: Path) -> subprocess.Popen:
    """`streamlit run app.py` on address:port (`serve.processes.launch_streamlit`), its output to `log`."""
    with log.open("w") as out:
        return launch_streamlit(port, out, address, environment)


@contextlib.contextmanager
def school_server(
    processes: int = 2,
    listen: str | None = None,
    backends: Sequence[str] = (),
    cookie_secret: str | None = None,
    app_address: str = "127.0.0.1",
) -> Iterator[School]:
    """Start `processes` app processes (or use running `backends`, "host:port") and nginx in front of them;
    yield once the proxy answers; stop everything this started, and delete the temporary folder of its nginx
    config and logs (`atlas-school-*`) unless `School.keep_logs` was set or the start failed (then it says where).

    Args:
        listen: where nginx listens, "address:port" (default 127.0.0.1 on a free port).
        cookie_secret: the shared `server.cookieSecret` (default: a fresh random one).
    Raises:
        RuntimeError: nginx is not installed, or a process exited during start-up.
    """
    binary = nginx_binary()
    if binary is None:
        raise RuntimeError("nginx is not installed: apt-get install nginx (Debian's package)")
    if not backends and processes < 1:
        raise ValueError(f"at least one app process is needed, got {processes}")
    listen = listen or f"127.0.0.1:{free_port()}"
    host, port = listen.rsplit(":", 1)
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '*', '') else host}:{port}"
    prefix = Path(tempfile.mkdtemp(prefix="atlas-school-"))
    environment = app_environment(cookie_secret or secrets.token_hex(32), processes)
    school = School(url, list(backends), prefix=prefix)
    started = False
    try:
        if not backends:
            ports = [free_port() for _ in range(processes)]
            school.backends = [f"127.0.0.1:{p}" if app_address == "127.0.0.1" else f"{app_address}:{p}" for p in ports]
            school.apps = [launch_app(p, app_address, environment, prefix / f"app-{p}.log") for p in ports]
            for backend in school.backends:
                wait_healthy(f"http://{backend}", school.apps, STARTUP_TIMEOUT_S)
        (prefix / "nginx.conf").write_text(nginx_config(listen, school.backends, prefix), encoding="utf-8")
        with (prefix / "nginx.out").open("w") as out:
            school.proxy = subprocess.Popen(
                nginx_command(binary, prefix), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        wait_healthy(url, [school.proxy, *school.apps], STARTUP_TIMEOUT_S)
        started = True
        yield school
    finally:
        school.stop()
        if started and not school.keep_logs:
            shutil.rmtree(prefix, ignore_errors=True)
        else:
            print(f"logs kept in {prefix}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--processes", type=int, default=os.cpu_count() or 1, help="app processes to start (default: one per core)"
    )
    parser.add_argument("--listen", default="0.0.0.0:8080", help="where students connect, address:port (default 0.0.0.0:8080)")
    parser.add_argument(
        "--backend",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="an app process already running elsewhere (repeat for each; then none is started here)",
    )
    parser.add_argument(
        "--cookie-secret",
        default=os.environ.get(COOKIE_SECRET_ENV),
        help=f"the secret every process shares (default: ${COOKIE_SECRET_ENV}, else a random one)",
    )
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    if args.listen.count(":") < 1 or not args.listen.rsplit(":", 1)[1].isdigit():
        parser.error(f"--listen must be address:port, got {args.listen!r}")
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    try:
        with school_server(args.processes, args.listen, args.backend, args.cookie_secret) as school:
            where = ", ".join(school.backends)
            print(f"Attention Atlas for a school: {school.url} (listening on {args.listen}) → {where}", flush=True)
            print("Ctrl+C stops nginx and every app process.", flush=True)
            while not stop:
                if any(process.poll() is not None for process in [*school.apps, school.proxy] if process):
                    school.keep_logs = True
                    print(f"a process exited; stopping (logs in {school.prefix})", file=sys.stderr)
                    return 1
                time.sleep(1)
    except KeyboardInterrupt:
        pass
    except (RuntimeError, TimeoutError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
