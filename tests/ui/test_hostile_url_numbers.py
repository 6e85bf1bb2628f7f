"""Every number a link carries is brought into its widget's range (or dropped for the default) before use.

`/output?...&mode=sample&temp=1e-310` crashed sampling (a subnormal temperature is "between 0 and 2" but no
slider can set it). Here every numeric URL parameter of every page gets subnormal, huge, negative, NaN and
infinite values: the guard (`ui.url_values`) drops them, the page renders, and each widget holds a value of
its own range.
"""

from __future__ import annotations

import math

import pytest

from tests.ui.conftest import figure, open_page, plotly_array
from ui.url_values import URL_FLOATS, URL_NUMBERS, bounded_float, sanitize_query_params

HOSTILE = {
    "subnormal": "1e-310",
    "smallest": "5e-324",
    "huge": "1e308",
    "long": "9" * 400,
    "negative": "-3",
    "negative_small": "-1e-310",
    "nan": "nan",
    "inf": "inf",
    "minus_inf": "-inf",
    "infinity": "Infinity",
}
# the numeric URL parameters each page reads (the lesson: a random model's settings in the sidebar, and ?step=)
PAGE_PARAMS: dict[str, tuple[str, ...]] = {
    "step_by_step": ("dk", "dk_seed", "layer", "head"),
    "heads": ("layer", "head"),
    "masks": ("layer", "head", "blocked"),
    "layernorm": ("ln_pair_layers",),
    "positional": ("pe_d", "pe_pos", "pe_k"),
    "feed_forward": ("ffn_layer",),
    "output": ("seed", "topk", "temp", "steps"),
    "lesson": ("step", "r_layers", "r_dmodel", "r_heads", "r_seed"),
}
RANDOM_MODEL = {"lesson"}  # the r_* widgets are drawn only for the random model


def test_every_guarded_number_is_read_by_a_page_here():
    """A new numeric URL parameter must be added to PAGE_PARAMS, so its page is opened with hostile values."""
    read = {key for keys in PAGE_PARAMS.values() for key in keys}
    assert set(URL_NUMBERS) | set(URL_FLOATS) <= read, sorted(set(URL_NUMBERS) | set(URL_FLOATS) - read)


@pytest.mark.parametrize("raw", list(HOSTILE.values()), ids=list(HOSTILE))
@pytest.mark.parametrize("key", [*URL_NUMBERS, *URL_FLOATS])
def test_the_guard_drops_every_hostile_number(key, raw):
    params = {key: raw, "model": "reverse"}
    repair = sanitize_query_params(params)
    assert repair.dropped == (key,) and params == {"model": "reverse"}


def test_a_temperature_must_be_one_the_slider_can_hold():
    low, high, step = URL_FLOATS["temp"]
    for raw in ("0", "0.0", "0.05", "0.35", "0.35000000000000003", "1", "2", "2.0"):
        assert bounded_float(raw, low, high, step) == float(raw), raw
    for raw in ("1e-310", "5e-324", "0.01", "0.07", "2.05", "-0.0001", "nan", "inf"):
        assert bounded_float(raw, low, high, step) is None, raw


def _widget_values(at, keys: tuple[str, ...]) -> dict[str, object]:
    values = {}
    for kind in ("slider", "select_slider", "number_input", "selectbox", "multiselect"):
        for widget in at.get(kind):
            if widget.key in keys:
                values[widget.key] = widget
    return values


def _in_range(widget) -> bool:
    value = widget.value
    if isinstance(value, list):  # a multiselect of positions
        return all(v in widget.options or str(v) in widget.options for v in value)
    if widget.type in ("slider", "number_input"):
        return math.isfinite(float(value)) and widget.min <= value <= widget.max
    options = [str(o) for o in widget.options]
    return str(value) in options or (hasattr(widget, "format_func") and widget.format_func(value) in options)


@pytest.mark.parametrize(
    "raw", ["1e-310", "5e-324", "1e308", "-3", "nan", "inf"], ids=["subnormal", "smallest", "huge", "negative", "nan", "inf"]
)
@pytest.mark.parametrize("page", list(PAGE_PARAMS))
def test_every_page_opens_with_hostile_numbers_in_its_link(page, raw):
    keys = PAGE_PARAMS[page]
    model = "random" if page in RANDOM_MODEL else "reverse"
    params = {"model": model, "text": "hello world", "mode": "sample", **dict.fromkeys(keys, raw)}
    at = open_page(page, params=params)  # raises nothing (checked by open_page)
    for key in set(keys) & (set(URL_NUMBERS) | set(URL_FLOATS)):
        assert at.query_params.get(key) != raw, f"?{key}={raw} was kept"
    widgets = _widget_values(at, keys)
    assert widgets, f"no widget of {keys} drawn"
    for key, widget in widgets.items():
        assert _in_range(widget), (key, widget.value)
    if "temp" in widgets:
        assert widgets["temp"].value == 1.0  # the default
    if page == "output":
        assert at.session_state["out_steps"] == 0
    if page == "lesson":
        assert at.query_params["step"] == "1"


def test_the_issue_link_renders_and_sampling_at_the_smallest_temperature_equals_greedy():
    """The issue's link; then the smallest temperature the slider allows, sampled, writes what greedy writes."""
    issue = {"model": "reverse", "text": "hello world", "mode": "sample", "temp": "1e-310", "steps": "5"}
    at = open_page("output", params=issue)
    assert at.slider(key="temp").value == 1.0 and at.info, "the dropped temperature is reported"
    probs = plotly_array(figure(at, "out_chart")["data"][0]["x"])
    assert probs.size and all(math.isfinite(p) for p in probs)
    written = {}
    for mode, temp in (("greedy", "1"), ("sample", "0.05")):
        at = open_page("output", params={**issue, "mode": mode, "temp": temp})
        written[mode] = at.code[-1].value
        probs = plotly_array(figure(at, "out_chart")["data"][0]["x"])
        assert all(math.isfinite(p) for p in probs)
    assert written["sample"] == written["greedy"]
