"""AppTest helpers shared by every page test: open a page (alone, or in the whole app), read its charts,
decode plotly arrays.

Test modules import these as `from tests.ui.conftest import ...` (plain functions, not fixtures).
A plotly chart's figure JSON is `chart.proto.spec`; its element id ends with the key it was drawn
with, and numpy arrays inside are base64 `{dtype, bdata, shape}`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TIMEOUT = 180


def page_path(name: str) -> str:
    """The page script `views/<name>.py`, to run alone (app.py's navigation is covered by the smoke test)."""
    return str(ROOT / "views" / f"{name}.py")


def _seeded(at: AppTest, params: Mapping[str, str] | None, state: Mapping[str, object]) -> AppTest:
    at.query_params.update(params or {})
    for key, value in state.items():
        at.session_state[key] = value
    return at


def open_page(name: str, *, timeout: float = TIMEOUT, params: Mapping[str, str] | None = None, **state: object) -> AppTest:
    """Run page `name` alone once, its widgets seeded through session state (so the first run is the
    only slow one) and `params` as the URL's query, and check it raised nothing."""
    at = _seeded(AppTest.from_file(page_path(name), default_timeout=timeout), params, state)
    at.run()
    assert_no_exception(at)
    return at


def app_test(
    page: str | None = None, *, timeout: float = TIMEOUT, params: Mapping[str, str] | None = None, **state: object
) -> AppTest:
    """The whole app (app.py's navigation) switched to page `page` (default: the home page), seeded with
    `params` as the URL's query and `state` as session state, not run yet."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    if page is not None:
        at.switch_page(f"views/{page}.py")
    return _seeded(at, params, state)


def open_random_in_app(
    page: str, *, architecture: str = "encoder-decoder", norm: str = "post", text: str = "hi there"
) -> AppTest:
    """Page `page` in the whole app on a random model chosen through the sidebar's widgets, then `text` typed.

    AppTest forgets widget state on `switch_page`, so the model and text are picked after switching."""
    at = app_test(page, timeout=300)
    at.run()
    at.selectbox(key="model").set_value("random").run()
    if architecture != "encoder-decoder":
        at.selectbox(key="r_arch").set_value(architecture).run()
    if norm != "post":
        at.selectbox(key="r_norm").set_value(norm).run()
    at.text_input(key="text").set_value(text).run()
    return at


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.exception]


def assert_no_exception(at: AppTest) -> None:
    assert not at.exception, errors(at)


def chart_key(chart) -> str:
    """The key a chart was drawn with, without the "chart_" prefix `ui.charts.show_figure` adds by default."""
    return chart.proto.id.rsplit("-", 1)[-1].removeprefix("chart_")


def figures(at: AppTest) -> dict[str, dict]:
    """Figure JSON of every plotly chart, by `chart_key`."""
    return {chart_key(c): json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def figure(at: AppTest, prefix: str) -> dict:
    """The figure JSON of the first chart whose key starts with `prefix`."""
    for chart in at.get("plotly_chart"):
        if chart.proto.id.split("-", 2)[-1].startswith(prefix):
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no chart {prefix!r}: {[c.proto.id.split('-', 2)[-1] for c in at.get('plotly_chart')]}")


def plotly_array(value) -> np.ndarray:
    """A plotly array from figure JSON: a plain list, or base64 {dtype, bdata, shape}."""
    if isinstance(value, dict):
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = [int(n) for n in shape.split(",")]
        return data.reshape(shape) if shape else data
    return np.array(value, dtype=np.float64)
