"""The school server: N app processes behind Debian's nginx, every browser kept on one process.

The slow test starts two real `streamlit run app.py` processes and nginx, loads the page through the
proxy and runs a real websocket session there (the heads page, a typed sentence, its reply checked).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from serve import school as school_module
from serve.nginx import nginx_binary, nginx_command, nginx_config
from serve.school import first_visit, school_server

NO_NGINX = "nginx is not installed (apt-get install nginx; tests/run.sh installs it as root)"
needs_nginx = pytest.mark.skipif(nginx_binary() is None, reason=NO_NGINX)


@needs_nginx
def test_the_generated_config_is_valid_nginx(tmp_path: Path) -> None:
    config = nginx_config("127.0.0.1:8080", ["127.0.0.1:8501", "127.0.0.1:8502"], tmp_path)
    (tmp_path / "nginx.conf").write_text(config)
    command = nginx_command(nginx_binary(), tmp_path)
    checked = subprocess.run([*command[:-2], "-t"], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    assert "hash $atlas_affinity consistent" in config  # sticky: one browser, one process
    assert "proxy_set_header Upgrade $http_upgrade" in config  # Streamlit's websocket passes through
    assert config.count("server 127.0.0.1:850") == 2


def test_a_config_without_processes_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one"):
        nginx_config("127.0.0.1:8080", [], tmp_path)


def test_without_nginx_the_script_says_how_to_install_it(monkeypatch, capsys) -> None:
    monkeypatch.setattr(school_module, "nginx_binary", lambda: None)
    assert school_module.main(["--processes", "1", "--listen", "127.0.0.1:0"]) == 2
    assert "apt-get install nginx" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--processes", "0"], ["--listen", "8080"], ["--listen", "host:port"]])
def test_bad_arguments_are_refused_with_a_message(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        school_module.main(argv)
    assert exited.value.code == 2
    assert "error:" in capsys.readouterr().err


def _environment(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


@pytest.mark.slow
@needs_nginx
def test_two_processes_behind_nginx_serve_a_real_session_each_on_one_process() -> None:
    from benchmarks.classroom import Student, check_reply, expectations

    [mine] = expectations(1, seed=0)
    with school_server(processes=2) as school:
        secrets = {_environment(pid)["STREAMLIT_SERVER_COOKIE_SECRET"] for pid in school.app_pids}
        assert len(secrets) == 1  # one cookie secret: a cookie one process signed is valid at the other

        cookie, backend = first_visit(school.url)
        assert backend in school.backends
        for _ in range(3):  # the same browser comes back to the same process
            assert first_visit(school.url, cookie) == (cookie, backend)
        chosen = {first_visit(school.url)[1] for _ in range(20)}  # new browsers are spread over both
        assert chosen == set(school.backends)

        async def session() -> tuple[str | None, bool]:
            student = Student(int(school.url.rsplit(":", 1)[1]), proxied=True)
            await student.connect()  # loads the page for its cookie, then opens the websocket with it
            try:
                _, opened = await student.rerun()
                student.learn_page(opened)  # the heads page arrived, with its text box
                _, reply = await student.rerun(mine.sentence)
            finally:
                await student.close()
            assert student.backend in school.backends
            return check_reply(reply, mine, {})

        # on a thread of its own: pytest-playwright's sync API leaves an event loop running on the main thread once
        # an e2e test has used it, and asyncio.run refuses to nest
        with ThreadPoolExecutor(max_workers=1) as pool:
            error, leaked = pool.submit(asyncio.run, session()).result()
        assert error is None and not leaked
    assert cookie  # a non-empty key
    assert all(app.poll() is not None for app in school.apps) and school.proxy.poll() is not None  # all stopped


def test_each_app_process_gets_one_thread_per_library_and_its_share_of_model_runs(monkeypatch) -> None:
    """One OpenMP and one MKL thread per call (a script thread's MKL team of two spins, and two processes' teams
    took each other's cores); the cores shared out as concurrent model runs; the caller's own settings win."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "ATLAS_MODEL_RUNS", "ATLAS_RUN_WORKER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(school_module.os, "cpu_count", lambda: 4)
    environment = school_module.app_environment("secret", 2)
    assert (environment["OMP_NUM_THREADS"], environment["MKL_NUM_THREADS"], environment["ATLAS_MODEL_RUNS"]) == ("1", "1", "2")
    assert environment["ATLAS_RUN_WORKER"] == "0"  # the processes are the cores' share: no model-run worker each
    assert environment[school_module.COOKIE_SECRET_ENV] == "secret"
    monkeypatch.setenv("MKL_NUM_THREADS", "3")
    assert school_module.app_environment("secret", 2)["MKL_NUM_THREADS"] == "3"


@contextlib.contextmanager
def _healthy_backend():
    """A stand-in app process for nginx to front: answers every GET with 200 (the health check included)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Ok(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Ok)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@needs_nginx
def test_the_temporary_folder_goes_on_exit_unless_its_logs_are_kept() -> None:
    """Every run made an `atlas-school-*` folder (nginx's config and the logs) and left it in the temp directory."""
    with _healthy_backend() as backend:
        with school_server(backends=[backend]) as school:
            prefix = school.prefix
            assert (prefix / "nginx.conf").is_file() and prefix.name.startswith("atlas-school-")
        assert not prefix.exists(), "stopped: its folder is gone"
        with school_server(backends=[backend]) as school:
            school.keep_logs = True  # what `main` sets when a process died: its logs are then worth reading
        assert school.prefix.is_dir()
        shutil.rmtree(school.prefix)
