"""The reverse proxy in front of several app processes: Debian's nginx, with sticky sessions.

Why sticky: a Streamlit session lives in the process that opened it. Its websocket
(`/_stcore/stream`) carries every rerun, a reconnect must land on the same process to find the
session again, and media (`/media/...`: figure downloads) are held in that process's memory. So
every request of one browser must reach one process.

How: nginx's open-source `hash` balancing on a cookie. A browser without the `atlas_backend` cookie
gets a random key (`$request_id`) that picks a process and is sent back as the cookie; every later
request (the page's scripts, the websocket, downloads) carries it and hashes to the same process.
`ip_hash` would do too on a school network, but sends everyone behind one address (a NAT, or every
simulated student of `benchmarks.classroom`) to one process. `consistent` hashing moves only the
students of a process that is added or removed.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

AFFINITY_COOKIE = "atlas_backend"
BACKEND_HEADER = "X-Atlas-Backend"
NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")


def nginx_binary() -> str | None:
    """Debian's nginx (`apt-get install nginx`), or None where it is not installed."""
    for candidate in NGINX_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def nginx_config(listen: str, backends: Sequence[str], prefix: Path) -> str:
    """nginx.conf for a proxy on `listen` (e.g. "127.0.0.1:8080", "0.0.0.0:80") to `backends` ("host:port").

    Everything nginx writes (pid, logs, temporary files) goes under `prefix`, so it runs without root
    and beside a system nginx.
    """
    if not backends:
        raise ValueError("nginx needs at least one app process to send students to")
    servers = "\n".join(f"        server {backend};" for backend in backends)
    temp = {kind: prefix / f"{kind}_temp" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")}
    temp_paths = "\n".join(f"    {kind}_temp_path {path};" for kind, path in temp.items())
    return f"""# Attention Atlas behind nginx: {len(backends)} app process(es), sticky sessions by cookie (serve/nginx.py).
worker_processes 1;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} warn;

events {{
    worker_connections 4096;
}}

http {{
    access_log off;
{temp_paths}

    # Streamlit's websocket: pass the upgrade through, keep idle connections open for a whole lesson.
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ""      close;
    }}

    # Session affinity: the cookie's key if the browser has one, else a fresh random key.
    map $cookie_{AFFINITY_COOKIE} $atlas_affinity {{
        ""      $request_id;
        default $cookie_{AFFINITY_COOKIE};
    }}

    upstream atlas {{
        hash $atlas_affinity consistent;
{servers}
    }}

    server {{
        listen {listen};

        location / {{
            proxy_pass http://atlas;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_read_timeout 1d;
            proxy_send_timeout 1d;
            proxy_buffering off;
            add_header Set-Cookie "{AFFINITY_COOKIE}=$atlas_affinity; Path=/; HttpOnly; SameSite=Lax" always;
            add_header {BACKEND_HEADER} $upstream_addr always;  # which process answered: for tests and debugging
        }}
    }}
}}
"""


def nginx_command(binary: str, prefix: Path) -> list[str]:
    """Run nginx in the foreground (so the school server owns it and stops it) with the config under `prefix`."""
    return [binary, "-p", str(prefix), "-e", str(prefix / "error.log"), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"]
