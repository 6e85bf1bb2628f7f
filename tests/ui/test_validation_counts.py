"""The truncation notice counts what the user gave, not the 20,000-character prefix the check reads."""

from runs.validation import MAX_INPUT_CHARS, check_text
from transformer.text.tokenizer import CharTokenizer, WordTokenizer


def test_a_pasted_book_is_counted_in_full():
    chars = CharTokenizer("ab")
    check = check_text("ab" * 50_000, chars, 511)  # 100,000 characters
    assert check.truncated_to == 511 and check.original_tokens == 100_000


def test_words_beyond_the_character_cap_are_counted():
    words = WordTokenizer(["the", "cat"])
    text = " ".join(["the", "cat"] * 11_429)  # 22,858 words, 75,000+ characters
    assert len(text) > MAX_INPUT_CHARS
    check = check_text(text, words, 511)
    assert check.truncated_to == 511 and check.original_tokens == 22_858
