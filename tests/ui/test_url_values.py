"""URL values are range-checked and capped before a widget or a model sees them."""

import time

from ui.url_values import MAX_URL_TEXT_CHARS, beyond_training, bounded_int, capped_text


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


def test_long_input_beyond_training_is_flagged_from_the_card():
    reverse = {"data": {"level": "char", "max_len": 32}}
    assert beyond_training(reverse, 33) == 32
    assert beyond_training(reverse, 32) is None
    assert beyond_training({"data": {"level": "word"}}, 500) is None  # the card does not say: no warning
    assert beyond_training({"data": {"max_len": True}}, 500) is None
    assert beyond_training({}, 500) is None


def test_the_shipped_reverse_card_records_its_trained_length():
    import json

    from transformer.registry import MODELS_DIR

    card = json.loads((MODELS_DIR / "reverse" / "card.json").read_text(encoding="utf-8"))
    length = card["data"]["max_len"]
    assert beyond_training(card, length + 1) == length and beyond_training(card, length) is None
