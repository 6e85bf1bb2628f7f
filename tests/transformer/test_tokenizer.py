"""Character and word tokenizers: round trips over Chinese, emoji, accents and ASCII."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transformer.text.tokenizer import BOS_ID, EOS_ID, PAD_ID, SPECIALS, UNK, UNK_ID, CharTokenizer, Tokenizer, WordTokenizer

# Pieces of text: ASCII, Chinese, emoji (one with a skin-tone modifier: two code points), accents
# precomposed and as base + combining mark (which NFC composes into the precomposed letter).
PIECES = [
    "a",
    "b",
    "Z",
    "q",
    "0",
    "7",
    " ",
    ".",
    "!",
    "<",
    ">",
    "&",
    "中",
    "文",
    "你",
    "好",
    "。",
    "😀",
    "👍🏽",
    "é",
    "e\u0301",
    "ü",
    "u\u0308",
    "ñ",
    "Å",
]
NFC_CHARS = sorted({c for p in PIECES for c in unicodedata.normalize("NFC", p)})
OOV_PIECES = ["x", "猫", "🚀", "ç", "c\u0327"]  # never in the vocabulary below

texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
texts_with_oov = st.lists(st.sampled_from(PIECES + OOV_PIECES), max_size=30).map("".join)

FAST = settings(max_examples=60, deadline=None)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


# ---- CharTokenizer ----------------------------------------------------------------------------------


@FAST
@given(texts)
def test_char_round_trip_in_vocabulary(text: str) -> None:
    tok = CharTokenizer(NFC_CHARS)
    ids = tok.encode(text)
    assert UNK_ID not in ids
    assert all(4 <= i < len(tok) for i in ids)
    assert tok.decode(ids) == nfc(text)
    assert tok.decode(tok.encode(text, bos=True, eos=True)) == nfc(text)
    assert tok.unknown(text) == []


@FAST
@given(texts_with_oov)
def test_char_unknown_lists_oov_in_first_appearance_order(text: str) -> None:
    tok = CharTokenizer(NFC_CHARS)
    expected: list[str] = []
    for c in nfc(text):
        if c not in NFC_CHARS and c not in expected:
            expected.append(c)
    assert tok.unknown(text) == expected
    assert tok.decode(tok.encode(text)) == "".join(c if c in NFC_CHARS else UNK for c in nfc(text))


def test_char_unknown_example() -> None:
    tok = CharTokenizer("abc")
    assert tok.unknown("a猫bxa猫🚀") == ["猫", "x", "🚀"]
    assert tok.encode("ax") == [4, UNK_ID]


def test_char_nfc_matches_precomposed_vocabulary() -> None:
    tok = CharTokenizer(["é"])
    assert tok.encode("e\u0301") == tok.encode("é") == [4]


def test_char_emoji_with_modifier_is_two_tokens() -> None:
    tok = CharTokenizer(NFC_CHARS)
    assert len(tok.encode("👍🏽")) == 2
    assert tok.symbols(tok.encode("👍🏽")) == ["👍", "🏽"]


# ---- WordTokenizer ----------------------------------------------------------------------------------

WORDS = ["Hello", "world", "café", "cafe\u0301", "中文", "你好", "naïve", "ÜBER", "x2", "😀", "👍🏽", "<b>", "。"]
SEPARATORS = [" ", "  ", "\n", "\t", ", ", "!", " . ", "？"]

word_texts = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=12).map(
    lambda pairs: "".join(w + s for w, s in pairs)
)


def _word_vocab(lowercase: bool = True) -> list[str]:
    tok = WordTokenizer([], lowercase=lowercase)
    return sorted({t for text in WORDS + SEPARATORS for t in tok.tokenize(text)})


@FAST
@given(word_texts)
def test_word_round_trip_in_vocabulary(text: str) -> None:
    tok = WordTokenizer(_word_vocab())
    tokens = tok.tokenize(text)
    assert tok.unknown(text) == []
    assert tok.decode(tok.encode(text)) == " ".join(tokens)
    assert all(t == t.lower() for t in tokens)
    assert not any(t.isspace() or t == "" for t in tokens)


@FAST
@given(st.text(alphabet="".join(NFC_CHARS) + "xyz猫\u0301 \n,", max_size=40))
def test_word_round_trip_arbitrary_text(text: str) -> None:
    base = WordTokenizer([])
    tok = WordTokenizer([*base.tokenize(text), "unrelated"])
    assert tok.decode(tok.encode(text)) == " ".join(tok.tokenize(text))
    assert WordTokenizer(["unrelated"]).unknown(text) == list(dict.fromkeys(tok.tokenize(text)))


def test_word_tokenize_examples() -> None:
    tok = WordTokenizer([])
    assert tok.tokenize("Hello, WORLD!") == ["hello", ",", "world", "!"]
    assert tok.tokenize("cafe\u0301 中文😀") == ["café", "中文", "😀"]
    assert WordTokenizer([], lowercase=False).tokenize("Hi there") == ["Hi", "there"]


# ---- Specials and serialization ---------------------------------------------------------------------


def test_specials_are_ids_0_to_3() -> None:
    for tok in (CharTokenizer("ab"), WordTokenizer(["x"])):
        assert tok.vocab[:4] == list(SPECIALS) == ["<pad>", "<bos>", "<eos>", "<unk>"]
        assert (PAD_ID, BOS_ID, EOS_ID, UNK_ID) == (0, 1, 2, 3)
    tok = CharTokenizer(["<unk>", "a", "<pad>", "a", "b"])  # specials and repeats are not added twice
    assert tok.vocab == [*SPECIALS, "a", "b"]
    assert tok.encode("ab", bos=True, eos=True) == [BOS_ID, 4, 5, EOS_ID]
    assert tok.decode([PAD_ID, BOS_ID, 4, UNK_ID, 5, EOS_ID, PAD_ID]) == "a<unk>b"
    assert tok.symbols([BOS_ID, 4, 99]) == ["<bos>", "a", UNK]


@pytest.mark.parametrize(
    "tok", [CharTokenizer(NFC_CHARS), WordTokenizer(_word_vocab()), WordTokenizer(_word_vocab(False), lowercase=False)]
)
def test_to_dict_from_dict_round_trip(tok: Tokenizer) -> None:
    data = json.loads(json.dumps(tok.to_dict(), ensure_ascii=False))
    back = Tokenizer.from_dict(data)
    assert type(back) is type(tok)
    assert back.vocab == tok.vocab
    assert back.to_dict() == tok.to_dict()
    sample = "Hello 中文 ÜBER 😀"
    assert back.encode(sample) == tok.encode(sample)


GOOD = {"level": "char", "vocab": [*SPECIALS, "a", "b"]}


@pytest.mark.parametrize(
    "data,message",
    [
        ({**GOOD, "vocab": [*SPECIALS, "a", "a"]}, "duplicate"),
        ({**GOOD, "vocab": ["<pad>", "<bos>", "<eos>", "a"]}, "start with"),
        ({**GOOD, "vocab": ["<bos>", "<pad>", "<eos>", "<unk>", "a"]}, "start with"),
        ({**GOOD, "vocab": ["a", "b"]}, "start with"),
        ({**GOOD, "level": "byte"}, "level"),
        ({"vocab": GOOD["vocab"]}, "level"),
        ({"level": "char"}, "vocab"),
        ({**GOOD, "vocab": "abc"}, "vocab"),
        (["<pad>"], "object"),
        ({**GOOD, "vocab": [*SPECIALS, "a", 5]}, "string"),
        ({**GOOD, "vocab": [*SPECIALS, ["a"]]}, "string"),
        ({**GOOD, "vocab": [*SPECIALS, ""]}, "non-empty"),
        ({**GOOD, "options": {"lowercase": False}}, "options"),  # a char tokenizer has no options
        ({**GOOD, "level": "word", "options": ["lowercase"]}, "options"),
        ({**GOOD, "level": "word", "options": {"stem": True}}, "options"),
    ],
)
def test_from_dict_rejects_bad_data(data, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Tokenizer.from_dict(data)
