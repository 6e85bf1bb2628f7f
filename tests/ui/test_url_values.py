"""URL values are range-checked and capped before a widget or a model sees them."""

import time

from ui.url_values import (
    MAX_URL_TEXT_CHARS,
    URL_FLOATS,
    URL_NUMBERS,
    bounded_float,
    bounded_int,
    capped_text,
    sanitize_query_params,
)


def test_numbers_in_range_pass_and_everything_else_is_dropped():
    assert bounded_int("7", 0, 1_000_000) == 7
    assert bounded_int(" 42 ", 0, 100) == 42
    for raw in (None, "", "-1", "1000001", "1e3", "0x10", "7.5", "٣", "１", "nan", "9" * 31):
        assert bounded_int(raw, 0, 1_000_000) is None, raw


def test_a_ten_kilobyte_number_costs_nothing_and_never_raises():
    began = time.perf_counter()
    assert bounded_int("9" * 10_000, 0, 1_000_000) is None
    assert time.perf_counter() - began < 0.01


def test_text_is_capped_and_its_length_reported():
    text, n = capped_text("x" * 100_000)
    assert len(text) == MAX_URL_TEXT_CHARS and n == 100_000
    assert capped_text("hello") == ("hello", 5)
    assert capped_text(None) == (None, 0)


def test_sanitize_drops_bad_numbers_caps_texts_and_keeps_the_rest():
    params = {
        "dk_seed": "9" * 10_000,
        "r_layers": "3",
        "layer": "-1",
        "head": "1e3",
        "text": "x" * 100_000,
        "more": "short",
        "model": "reverse",
        "kind": "cross",
    }
    repair = sanitize_query_params(params)
    assert set(repair.dropped) == {"dk_seed", "layer", "head"} and repair.cut == (("text", 100_000),)
    assert params == {"r_layers": "3", "text": "x" * MAX_URL_TEXT_CHARS, "more": "short", "model": "reverse", "kind": "cross"}
    assert not sanitize_query_params(params)  # a repaired link needs no more repair


def test_every_number_a_page_binds_to_the_url_is_guarded():
    """A new number widget bound to the URL must get a range in URL_NUMBERS (or this test names it)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    widgets = "number_input|slider|select_slider|selectbox|multiselect|text_input|text_area|toggle|segmented_control"
    call = re.compile(rf"\.({widgets})\(")
    numeric = {"number_input", "slider", "select_slider", "selectbox"}
    not_numbers = {
        "model",
        "r_arch",
        "r_norm",
        "r_pos",
        "kind",
        "tr_film_model",
        "row",
        "query",
    }  # selectboxes of names or labels (the URL holds the label; Streamlit checks it is an option)
    found = set()
    for path in [*root.glob("ui/*.py"), *root.glob("views/*.py")]:
        text = path.read_text(encoding="utf-8")
        for bind in re.finditer(r'bind="query-params"', text):
            calls = list(call.finditer(text, 0, bind.start()))
            key = re.search(r'key="([a-z_]+)"', text[calls[-1].start() : bind.start()]) if calls else None
            if key and calls[-1].group(1) in numeric:
                found.add(key.group(1))
    assert {"dk_seed", "r_seed", "row"} <= found, found  # the pattern sees the widgets it is about
    guarded = set(URL_NUMBERS) | set(URL_FLOATS)
    assert found - not_numbers <= guarded, sorted(found - not_numbers - guarded)


def test_a_float_in_the_url_is_bounded_and_finite():
    assert bounded_float("0.8", 0.0, 2.0) == 0.8
    for raw in ("nan", "inf", "-0.1", "2.5", "1e999", "9" * 40, "abc", ""):
        assert bounded_float(raw, 0.0, 2.0) is None, raw
    params = {"temp": "inf", "topk": "7"}
    assert sanitize_query_params(params).dropped == ("temp",) and params == {"topk": "7"}
    assert set(URL_FLOATS) == {"temp"}


def test_a_labelled_choice_in_the_url_is_left_to_its_selectbox():
    """The masks page's sentence and the step page's query row travel as their labels ("2: he eats an apple",
    "3: 我 → 今天"): the guard must keep them, or a shared link opens on another sentence or row."""
    params = {"row": "2: he eats an apple", "query": "3: 我 → 今天", "layer": "1"}
    assert not sanitize_query_params(params) and params == {"row": "2: he eats an apple", "query": "3: 我 → 今天", "layer": "1"}
