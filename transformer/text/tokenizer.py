"""Character, word and subword tokenizers with the four special tokens every model shares.

Ids 0-3 are always <pad>, <bos>, <eos>, <unk>, so masks (pad) and decoding (bos/eos) never
need to look the specials up per model.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from transformer.text.graphemes import graphemes

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS: tuple[str, ...] = (PAD, BOS, EOS, UNK)
PAD_ID, BOS_ID, EOS_ID, UNK_ID = range(len(SPECIALS))

_WORD = re.compile(r"\w+|[^\w\s]")  # a run of letters/digits/CJK, or one punctuation mark
SENTENCE_PUNCTUATION = ".,?!;。，？！；"
"""Marks a teacher types around or inside a sentence ("i read a book."), which the translators ignore."""


def segment(text: str, lexicon: Collection[str], longest: int) -> list[str]:
    """Split a run of text with no spaces ("我今天读书") into lexicon words, greedily taking the longest match.

    Characters no word starts with are kept together as one unknown piece ("我很好" → 我, 很好 when neither
    很 nor 好 is a word), so a message can name what was not understood.

    Args:
        lexicon: the known words.
        longest: the length of the longest word in `lexicon`, in characters (bounds the search).
    """
    pieces: list[str] = []
    unknown = ""
    i = 0
    while i < len(text):
        word = next((text[i : i + n] for n in range(min(longest, len(text) - i), 0, -1) if text[i : i + n] in lexicon), None)
        if word is None:
            unknown += text[i]
            i += 1
            continue
        if unknown:
            pieces.append(unknown)
            unknown = ""
        pieces.append(word)
        i += len(word)
    return [*pieces, unknown] if unknown else pieces


class Tokenizer:
    """A fixed vocabulary of symbols (characters or words) plus the special tokens.

    Subclasses define `tokenize` (text → symbols) and `detokenize` (symbols → text).
    """

    level = "abstract"

    def __init__(self, symbols: Iterable[str]) -> None:
        seen: dict[str, None] = {}
        for s in symbols:
            if s in SPECIALS:
                continue
            if not isinstance(s, str) or not s:
                raise ValueError(f"vocabulary symbols must be non-empty strings, got {s!r}")
            seen.setdefault(s, None)
        self.vocab: list[str] = [*SPECIALS, *seen]
        self.index: dict[str, int] = {s: i for i, s in enumerate(self.vocab)}

    def __len__(self) -> int:
        return len(self.vocab)

    @property
    def pad_id(self) -> int:
        """The id of <pad>: a model's `config.pad_id` must equal it, or padding would hide a real symbol."""
        return self.index[PAD]

    def tokenize(self, text: str) -> list[str]:
        raise NotImplementedError

    def detokenize(self, symbols: Sequence[str]) -> str:
        raise NotImplementedError

    def ids(self, symbols: Iterable[str]) -> list[int]:
        """Symbols → ids, the one place that looks them up; unknown symbols become <unk>."""
        return [self.index.get(s, UNK_ID) for s in symbols]

    def encode(self, text: str, *, bos: bool = False, eos: bool = False) -> list[int]:
        """Text → ids; unknown symbols become <unk> (use `unknown` to tell the user which)."""
        return [BOS_ID] * bos + self.ids(self.tokenize(text)) + [EOS_ID] * eos

    def decode(self, ids: Iterable[int]) -> str:
        """Ids → text, dropping pad/bos/eos (unk is kept visibly as <unk>)."""
        symbols = [self.vocab[i] for i in ids if i not in (PAD_ID, BOS_ID, EOS_ID)]
        return self.detokenize(symbols)

    def symbols(self, ids: Iterable[int]) -> list[str]:
        """Ids → their vocabulary strings, specials included (for axis labels)."""
        return [self.vocab[i] if 0 <= i < len(self.vocab) else UNK for i in ids]

    def raw_bytes(self, ids: Iterable[int]) -> list[str]:
        """Each id's raw bytes as hex ("e4 bd") for a hover beside its label; "" where a label is already the text
        itself: every id of a character- or word-level vocabulary (a byte-level BPE tokenizer overrides this,
        `transformer.hf.tokenizer.PretrainedTokenizer`)."""
        return ["" for _ in ids]

    def unknown(self, text: str) -> list[str]:
        """The distinct symbols of `text` the vocabulary lacks, in order of first appearance."""
        return list(dict.fromkeys(s for s in self.tokenize(text) if s not in self.index))

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "vocab": self.vocab}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Tokenizer:
        """Rebuild from `to_dict` output, checking the specials sit at the first ids (0-3)."""
        if not isinstance(data, dict) or not isinstance(data.get("vocab"), list):
            raise ValueError("a tokenizer must be a JSON object with a 'vocab' list")
        vocab = data["vocab"]
        if not all(isinstance(s, str) for s in vocab):
            raise ValueError("vocabulary symbols must be strings")
        if tuple(vocab[: len(SPECIALS)]) != SPECIALS:
            raise ValueError(f"a vocabulary must start with {list(SPECIALS)}")
        if len(set(vocab)) != len(vocab):
            raise ValueError("the vocabulary has duplicate symbols")
        if data.get("level") == "subword":
            return SubwordTokenizer.from_model(data.get("model"), vocab)
        kinds: dict[str, type[Tokenizer]] = {"char": CharTokenizer, "word": WordTokenizer}
        kind = kinds.get(data.get("level", ""))
        if kind is None:
            raise ValueError(f"unknown tokenizer level {data.get('level')!r}; expected one of {sorted(kinds)}")
        options = data.get("options", {})
        allowed_options = {"word": {"lowercase", "ignored", "segment"}, "char": {"graphemes"}}.get(data["level"], set())
        if not isinstance(options, dict) or set(options) - allowed_options:
            raise ValueError(f"tokenizer options must be an object with keys among {sorted(allowed_options)}, got {options!r}")
        return kind(vocab[len(SPECIALS) :], **options)


class CharTokenizer(Tokenizer):
    """One token per Unicode code point, or per user-perceived character (`graphemes=True`).

    Text is NFC-normalized first, so an accent typed as a combining mark matches the precomposed
    letter in the vocabulary. With `graphemes`, an emoji with a skin tone or a ZWJ family is one
    token (one <unk> if the vocabulary lacks it), as the reverse task counts characters.
    """

    level = "char"

    def __init__(self, symbols: Iterable[str], graphemes: bool = False) -> None:
        super().__init__(symbols)
        self.graphemes = graphemes

    def tokenize(self, text: str) -> list[str]:
        if self.graphemes:
            return graphemes(text)
        return list(unicodedata.normalize("NFC", text))

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "options": {"graphemes": True}} if self.graphemes else super().to_dict()

    def detokenize(self, symbols: Sequence[str]) -> str:
        return "".join(symbols)


class WordTokenizer(Tokenizer):
    """Words split on whitespace and punctuation; each punctuation mark is its own token.

    Decoding joins tokens with single spaces, so encode/decode is lossless for text whose tokens
    are already separated by single spaces (the tasks' format).

    Args:
        lowercase: lowercase the text first.
        ignored: punctuation marks dropped from the text (e.g. `SENTENCE_PUNCTUATION`), unless in the vocabulary.
        segment: split a run with no spaces into vocabulary words, longest match first (Chinese: "我读书" → 我 读 书).
    """

    level = "word"

    def __init__(self, symbols: Iterable[str], lowercase: bool = True, ignored: str = "", segment: bool = False) -> None:
        super().__init__(symbols)
        self.lowercase, self.ignored, self.segment = lowercase, ignored, segment
        self._longest = max((len(s) for s in self.vocab[len(SPECIALS) :]), default=1)

    def tokenize(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFC", text)
        words = _WORD.findall(text.lower() if self.lowercase else text)
        if self.ignored:
            words = [w for w in words if w not in self.ignored or w in self.index]
        if self.segment:
            known = self.index.keys()
            words = [piece for w in words for piece in ([w] if w in known else segment(w, known, self._longest))]
        return words

    def detokenize(self, symbols: Sequence[str]) -> str:
        return " ".join(symbols)

    def to_dict(self) -> dict[str, Any]:
        options: dict[str, Any] = {"lowercase": self.lowercase}
        if self.ignored:
            options["ignored"] = self.ignored
        if self.segment:
            options["segment"] = True
        return {**super().to_dict(), "options": options}


WORD_START = "▁"
"""SentencePiece's word-start mark: a subword piece that begins a word carries it ("▁read", "able")."""


class SubwordTokenizer(Tokenizer):
    """Byte-pair-encoding pieces from a trained `tokenizers` model ("unbelievable" → ▁unb · el · iev · able).

    The model is a Hugging Face `tokenizers` pipeline (NFC, Metaspace words, punctuation split off, BPE with
    <unk> for a character it never saw), stored whole in the checkpoint's vocab.json, so encoding in the app
    is exactly the encoding of training. Its first four ids must be the shared specials. Every everyday
    English word splits into known pieces: the alphabet holds every printable ASCII character.
    """

    level = "subword"

    def __init__(self, model: Any) -> None:
        from tokenizers import Tokenizer as HfTokenizer

        self._model = model if isinstance(model, HfTokenizer) else HfTokenizer.from_str(json.dumps(model))
        by_id = sorted(self._model.get_vocab(with_added_tokens=True).items(), key=lambda item: item[1])
        if [i for _, i in by_id] != list(range(len(by_id))) or tuple(s for s, _ in by_id[: len(SPECIALS)]) != SPECIALS:
            raise ValueError(f"a subword model's ids must be 0..n-1 and start with {list(SPECIALS)}")
        super().__init__(s for s, _ in by_id)

    @staticmethod
    def from_model(model: Any, vocab: Sequence[str]) -> SubwordTokenizer:
        """Rebuild from vocab.json's entry, checking the stored vocabulary is the model's own."""
        if not isinstance(model, dict):
            raise ValueError("a subword tokenizer needs its 'model' object (a tokenizers JSON pipeline)")
        try:
            tokenizer = SubwordTokenizer(model)
        except Exception as error:  # the Rust parser's errors are plain Exceptions with a message
            raise ValueError(f"the subword model could not be read: {str(error).splitlines()[0][:200]}") from None
        if tokenizer.vocab != list(vocab):
            raise ValueError("the subword model's vocabulary differs from the stored 'vocab' list")
        return tokenizer

    def tokenize(self, text: str) -> list[str]:
        return self._model.encode(text, add_special_tokens=False).tokens

    def detokenize(self, symbols: Sequence[str]) -> str:
        return self._model.decoder.decode(list(symbols)) if symbols else ""

    def unknown(self, text: str) -> list[str]:
        """The characters the model read as <unk> (its pieces never include an unknown symbol otherwise)."""
        encoding = self._model.encode(text, add_special_tokens=False)
        pieces = zip(encoding.tokens, encoding.offsets, strict=True)
        return list(dict.fromkeys(text[a:b] for token, (a, b) in pieces if token == UNK))

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "model": json.loads(self._model.to_str())}


def word_groups(symbols: Sequence[str]) -> list[list[int]]:
    """The positions of `symbols` grouped into words: a piece starts a word when it carries `WORD_START` or begins
    with a mark (punctuation is its own word); any other piece continues the word before it."""
    groups: list[list[int]] = []
    for i, symbol in enumerate(symbols):
        if symbol.startswith(WORD_START) or not groups or not symbol[:1].isalnum():
            groups.append([])
        groups[-1].append(i)
    return groups


def word_pieces(tokenizer: Tokenizer, text: str) -> list[str]:
    """Each word of `text` as its pieces joined by "·" ("un·believ·able"): how a subword model reads it."""
    symbols = tokenizer.tokenize(text)
    plain = [s.removeprefix(WORD_START) for s in symbols]
    return [piece for piece in ("·".join(plain[i] for i in group if plain[i]) for group in word_groups(symbols)) if piece]
