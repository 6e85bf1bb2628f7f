"""Browser-test harness: a real `streamlit run` on a free port, driven by Debian's Chromium via Playwright.

Never downloads a browser (no `playwright install`, no pytest-playwright browser fixtures): it
launches the system Chromium, and every test here skips with a clear reason where it is missing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmarks.chromium import CHROMIUM_ARGS, chromium_path, track_outside
from serve.processes import free_port, launch_streamlit, stop_process, wait_healthy

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
STARTUP_TIMEOUT_S = 60
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
BUSY = "[data-testid=stApp]:not([data-test-script-state=notRunning])"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip every e2e test, saying why, where Chromium or Playwright is not installed."""
    reason = None
    if chromium_path() is None:
        reason = "Chromium not installed (apt-get install chromium); browser tests skipped"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "the playwright Python package is not installed; browser tests skipped"
    for item in items:
        if reason and "e2e" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def class_dir(tmp_path_factory) -> Path:
    """The test server's class-mode folder (`ATLAS_CLASS_DIR`): a temporary one, never the user's data folder."""
    return tmp_path_factory.mktemp("classes")


@contextlib.contextmanager
def own_server(log_path: Path, **env: str) -> Iterator[str]:
    """`streamlit run app.py` on a free port with `env` set, its output to `log_path`: its URL once healthy; stopped after."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with log_path.open("w") as log:
        server = launch_streamlit(port, log, CI="1", **env)
        try:
            wait_healthy(url, [server], STARTUP_TIMEOUT_S, 0.5)
            yield url
        finally:
            stop_process(server)


@pytest.fixture(scope="session")
def app_url(class_dir) -> Iterator[str]:
    """Start the app on 127.0.0.1:<free port>, wait for its health check, yield its URL, stop it."""
    SCREENSHOTS.mkdir(exist_ok=True)
    with own_server(SCREENSHOTS / "streamlit.log", ATLAS_CLASS_DIR=str(class_dir)) as url:  # the log is git-ignored
        yield url


@pytest.fixture(scope="session")
def chromium() -> Iterator[object]:
    """A Playwright browser on the system Chromium (never a downloaded one)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def app_page(chromium, app_url):  # app_url: the server must be up before a tab opens
    """A 1400×1000 browser tab with its own Streamlit session, shared by the tests of one module
    (in file order: a page load with a model run is the slow part), closed after them."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    tab = context.new_page()
    tab.set_default_timeout(120_000)  # generous: a shared CI machine can be slow
    track_outside(tab)
    try:
        yield tab
    finally:
        context.close()


def wait_idle(page, timeout_ms: int = 180_000, start_ms: int = 3_000) -> None:
    """Wait for the rerun an action just triggered to finish, and the "Running…" status widget to go.

    On a busy machine a rerun may start a moment after the click or key press, so first give it
    up to `start_ms` to start (a run that already finished is fine), then wait for the idle state.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with contextlib.suppress(PlaywrightTimeout):  # the run may already be over
        page.wait_for_selector(BUSY, timeout=start_ms)
    page.wait_for_selector(IDLE, timeout=timeout_ms)
    page.wait_for_selector("[data-testid=stStatusWidget]", state="detached", timeout=timeout_ms)


# Resolves once the page's layout has held still for `frames` animation frames in a row, every plotly chart drawn
# at its container's width (a resize, a new rerun or a chart coming into view makes plotly lay out again, and no
# event says it is done); false if that does not happen by the deadline.
SETTLED = """async ([frames, deadlineMs]) => {
  const frame = () => new Promise(resolve => requestAnimationFrame(resolve));
  const charts = () => [...document.querySelectorAll('.js-plotly-plot')];
  const fitted = () => charts().every(gd => gd._fullLayout && gd.querySelector('.main-svg')
    && (!gd._fullLayout.autosize || Math.abs(gd._fullLayout.width - gd.clientWidth) <= 2));
  const signature = () => JSON.stringify([
    (document.querySelector('[data-testid=stMain]') || document.body).scrollHeight,
    ...charts().map(gd => gd._fullLayout ? [gd._fullLayout.width, gd._fullLayout.height, gd.clientWidth] : null)]);
  const deadline = performance.now() + deadlineMs;
  let last = null, still = 0;
  while (performance.now() < deadline) {
    await frame();
    const now = signature();
    still = now === last && fitted() ? still + 1 : 0;
    last = now;
    if (still >= frames) return true;
  }
  return false;
}"""


def wait_settled(page, frames: int = 10, timeout_ms: int = 15_000) -> bool:
    """Wait until the page's charts are laid out for its current size (`SETTLED`); whether they were in time."""
    return bool(page.evaluate(SETTLED, [frames, timeout_ms]))


def screenshot(page, name: str) -> Path:
    """Save the whole page to tests/e2e/screenshots/<name>.png (git-ignored).

    Streamlit scrolls inside its main container, so `full_page` would stop at the viewport: the
    viewport is made as tall as the content for the shot, then restored.
    """
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    viewport = page.viewport_size
    height = page.evaluate("() => (document.querySelector('[data-testid=stMain]') || document.body).scrollHeight")
    page.set_viewport_size({"width": viewport["width"], "height": min(int(height) + 40, 8000)})
    wait_settled(page)  # plotly re-lays out to the new size
    page.screenshot(path=str(path))
    page.set_viewport_size(viewport)
    return path


@pytest.fixture
def browser_tools():
    """`wait_idle`, `wait_settled` and `screenshot` for tests (fixtures, so no test imports a conftest module)."""
    return SimpleNamespace(wait_idle=wait_idle, wait_settled=wait_settled, screenshot=screenshot)
