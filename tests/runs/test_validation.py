"""User text is cleaned and its problems reported before it reaches a model."""

from runs.validation import check_text, strip_controls
from transformer.text.tokenizer import CharTokenizer, WordTokenizer

CHARS = CharTokenizer("abcdefghijklmnopqrstuvwxyz 你好世界")


def test_empty_and_whitespace_are_refused():
    for text in ["", "   ", "\t\n", "\x00\x01"]:
        assert check_text(text, CHARS, 10).empty


def test_control_characters_are_removed_and_counted():
    check = check_text("ab\x00c\x1bd\u200e", CHARS, 10)
    assert check.text == "abcd"
    assert check.removed_controls == 3


def test_emoji_joiner_is_kept():
    cleaned, removed = strip_controls("👩\u200d💻")
    assert cleaned == "👩\u200d💻" and removed == 0


def test_long_text_is_truncated_with_counts():
    check = check_text("abcdefghij" * 3, CHARS, 7)
    assert check.text == "abcdefg"
    assert check.truncated_to == 7 and check.original_tokens == 30


def test_unknown_symbols_listed_in_order_with_suggestions():
    words = WordTokenizer(["the", "library", "book"])
    check = check_text("the libary bok libary", words, 10, suggest=lambda w: ["library"] if w == "libary" else [])
    assert check.unknown == ("libary", "bok")
    assert check.suggestions == {"libary": ["library"]}


def test_chinese_and_emoji_unknown():
    check = check_text("你好🙂世界", CHARS, 10)
    assert check.text == "你好🙂世界" and check.unknown == ("🙂",)
