"""User-perceived characters: our grapheme clusters against the `regex` module's \\X, and the reverse task on them."""

from __future__ import annotations

import random
import unicodedata

import pytest

from transformer.tasks import get_task
from transformer.text.graphemes import graphemes
from transformer.text.tokenizer import CharTokenizer, Tokenizer

CLUSTERS = {
    "👍🏽": "thumb + skin tone",
    "👩\u200d👩\u200d👧": "ZWJ family",
    "🇨🇳": "flag: two regional indicators",
    "e\u0301": "e + combining acute (NFC: é)",
    "❤\ufe0f": "heart + emoji presentation selector",
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f": "tag sequence flag",
    "\r\n": "CR LF",
    "한": "Hangul syllable",
    "\u1100\u1161\u11a8": "Hangul jamo L V T",
    "क्\u093f": "Devanagari with virama and vowel sign",
}
# Everything GB3-GB13 covers (the Indic conjunct rule GB9c, new in Unicode 15.1, is left out on purpose).
POOL = "ae\u0301\u0308 \r\n中文👍🏽🏿\u200d👩👧❤\ufe0f🇨🇳🇺\U000e0067\U000e007f🏴한\u1100\u1161\u11a8\u0600١,.!\u0903\u093f"


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_a_cluster_is_one_character_alone_and_between_letters(cluster):
    nfc = unicodedata.normalize("NFC", cluster)
    assert graphemes(cluster) == [nfc], CLUSTERS[cluster]
    assert graphemes("a" + cluster + "b") == ["a", nfc, "b"], CLUSTERS[cluster]


def test_two_flags_in_a_row_pair_their_indicators():
    assert graphemes("🇨🇳🇺🇸🇫") == ["🇨🇳", "🇺🇸", "🇫"]


def test_agrees_with_the_regex_module_on_random_strings():
    regex = pytest.importorskip("regex")
    rng = random.Random(0)
    for _ in range(5000):
        text = "".join(rng.choice(POOL) for _ in range(rng.randint(0, 10)))
        assert graphemes(text) == regex.findall(r"\X", unicodedata.normalize("NFC", text)), repr(text)


def test_reverse_task_reverses_user_perceived_characters():
    task = get_task("reverse")
    example = task.reference("a👍🏽b👩\u200d👩\u200d👧e\u0301🇨🇳")
    assert example.target == "🇨🇳é👩\u200d👩\u200d👧b👍🏽a"
    assert example.alignment == (5, 4, 3, 2, 1, 0)
    assert task.reference("hello 世界").target == "界世 olleh"


def test_the_grapheme_tokenizer_keeps_a_cluster_as_one_token_and_round_trips_its_option():
    tok = CharTokenizer("ab", graphemes=True)
    assert tok.tokenize("a👍🏽b") == ["a", "👍🏽", "b"]
    assert tok.encode("a👍🏽b") == [tok.index["a"], 3, tok.index["b"]]  # one <unk>, not two
    again = Tokenizer.from_dict(tok.to_dict())
    assert isinstance(again, CharTokenizer) and again.graphemes
    assert CharTokenizer("ab").tokenize("👍🏽") == ["👍", "🏽"]  # the default stays per code point
