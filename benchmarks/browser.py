"""A real `streamlit run` on a free loopback port and Debian's Chromium, for the browser benchmarks.

Shares the browser tests' helpers (`benchmarks.chromium`: Chromium's path and flags; `serve.processes`: free port,
start, health check, stop). Adds what timing needs: knowing when every chart on the page shows the *current* run.
A chart counts as painted when its plotly graph div holds a data array it did not hold before
(the new run's), every image in it has decoded, and two animation frames have passed since (the
frame that drew it was composited). Everything stays on 127.0.0.1; requests elsewhere are counted
and reported, never made on purpose.
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from benchmarks.chromium import CHROMIUM_ARGS, chromium_path, track_outside
from serve.processes import free_port, launch_streamlit, stop_process, wait_healthy

ROOT = Path(__file__).resolve().parents[1]
# Charts that depend on the model only (head importance, head detectors): they do not change with the text.
# The heads page's charts that depend on the text: the open tab's grid (the other kinds' grids are built
# when their tab is chosen), the enlarged head, the metric picture and the rollout.
HEADS_CHARTS = 4
PER_MODEL_CHARTS = '[class*="st-key-detectors_"], [class*="st-key-heads_importance_"]'
TIMEOUT_S = 600  # no single measurement may take longer (a hung page fails the script, not the machine)

# Mark every chart's current data, so a later `PAINTED` can tell it was replaced.
MARK_CHARTS = """() => {
  window.__seen = new WeakSet();
  for (const gd of document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')) {
    if (gd.data) window.__seen.add(gd.data);
  }
}"""

# Resolves with the page's clock (ms) once the script finished, nothing is stale, and `n` charts each
# show data not seen before, their images decoded and two frames drawn since; or with -1 at `timeoutMs`.
PAINTED = (
    """async ([n, timeoutMs]) => {
  const PER_MODEL = '"""
    + PER_MODEL_CHARTS
    + """';
  const ready = () => {
    const app = document.querySelector('[data-testid=stApp]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (document.querySelector('[data-testid=stStatusWidget], [data-stale=true]')) return false;
    const boxes = [...document.querySelectorAll('[data-testid=stPlotlyChart]')].filter(box => !box.closest(PER_MODEL));
    return boxes.length >= n && boxes.every(box => {
      const gd = box.querySelector('.js-plotly-plot');
      return gd && gd.data && gd._fullLayout && !(window.__seen && window.__seen.has(gd.data));
    });
  };
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const deadline = performance.now() + timeoutMs;
  while (!ready()) {
    if (performance.now() > deadline) return -1;
    await frame();
  }
  const images = [...document.querySelectorAll('[data-testid=stPlotlyChart] svg image')];
  await Promise.all(images.map(img => {
    const im = new Image(); im.src = img.getAttribute('href'); return im.decode().catch(() => null);
  }));
  await frame(); await frame();
  return performance.now();
}"""
)


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    started: float  # time.monotonic() just before the process was created
    healthy_after: float = 0.0  # seconds from start to the first 200 from /_stcore/health
    log: Path = field(default_factory=Path)

    def page_url(self, path: str = "", **query: str) -> str:
        """The URL of page `path` ("" is the home page: the lesson; "heads" the attention-heads page)."""
        return f"{self.url}/{path}?{urlencode(query)}" if query else f"{self.url}/{path}"

    def stop(self) -> None:
        stop_process(self.process)


@contextlib.contextmanager
def streamlit_server(poll_s: float = 0.02, script: str = "app.py", **env: str) -> Iterator[Server]:
    """Start the app (or another Streamlit `script`) on 127.0.0.1:<free port>, with environment variables `env` set
    (e.g. ATLAS_MODELS_DIR); yield once it answers its health check; stop it."""
    port = free_port()
    log = Path(tempfile.gettempdir()) / f"atlas-bench-{port}.log"
    with log.open("w") as out:
        started = time.monotonic()
        server = Server(f"http://127.0.0.1:{port}", launch_streamlit(port, out, script=script, **env), started, log=log)
        try:
            wait_healthy(server.url, [server.process], TIMEOUT_S, poll_s)
            server.healthy_after = time.monotonic() - started
            yield server
        finally:
            server.stop()


@contextlib.contextmanager
def chromium_page(width: int = 1400, height: int = 1000) -> Iterator[object]:
    """A Playwright tab in Debian's Chromium (never a downloaded browser); `page.outside` counts
    requests that were not for 127.0.0.1."""
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    if path is None:
        raise RuntimeError("Chromium is not installed (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_S * 1000)
            track_outside(page)
            yield page
        finally:
            browser.close()


def wait_painted(page, n_charts: int) -> float:
    """Block until `n_charts` charts show new data and have been painted; the page's clock then (ms)."""
    painted = float(page.evaluate(PAINTED, [n_charts, TIMEOUT_S * 1000]))
    if painted < 0:
        raise TimeoutError(f"the page did not paint {n_charts} new charts within {TIMEOUT_S} s")
    return painted


def rss_peak_kib(pid: int) -> tuple[int, int]:
    """(VmHWM, VmRSS) of a process in KiB, from /proc/<pid>/status."""
    values = {}
    with open(f"/proc/{pid}/status", encoding="utf-8") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                values[key] = int(rest.split()[0])
    return values["VmHWM"], values["VmRSS"]
