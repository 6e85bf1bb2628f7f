"""A pretrained model's own tokenizer, read from its folder, behind the project's `Tokenizer` interface.

Text is split by the folder's tokenizer (`transformers`, offline); ids are renumbered by `VocabMap`
(specials at 0-3). Labels are made readable for a class: byte-level pieces (GPT-2, Qwen, Llama 3) are decoded
to the text they stand for ("Ġbook" → " book"; a piece holding part of a character's UTF-8 bytes is labelled
with that character and which part, "你 ¹⁄₂", read in its sentence: `transformer.hf.byte_labels`), while BERT's
"##ing" and Marian's "▁book" stay as they are, since those marks are how the model itself sees word boundaries.
Chinese characters are shown as characters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from transformer.hf.byte_labels import piece_hex, sequence_labels
from transformer.hf.vocab import VocabMap
from transformer.text.tokenizer import PAD_ID, SPECIALS, UNK_ID, Tokenizer


@lru_cache(maxsize=1)
def _byte_of_char() -> dict[str, int]:
    """GPT-2's byte-level alphabet, inverted: the printable character each byte was written as → the byte."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars = list(printable)
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


def piece_bytes(piece: str) -> bytes | None:
    """The bytes a byte-level BPE piece stands for ("Ġbook" → b" book"); None for a special token such as
    <|endoftext|>, stored as itself."""
    table = _byte_of_char()
    if not piece or not all(c in table for c in piece):
        return None
    return bytes(table[c] for c in piece)


def byte_level_label(piece: str) -> str:
    """A byte-level BPE piece read alone as text: "Ġbook" → " book"; bytes of a character it holds only part of
    (which it cannot name without its sentence: `PretrainedTokenizer.symbols`) → ▯."""
    return sequence_labels([piece_bytes(piece)], [piece])[0]


def is_byte_level(hf_tokenizer: Any) -> bool:
    """Whether the folder's tokenizer is byte-level BPE (GPT-2's), whose pieces need decoding to read."""
    backend = getattr(hf_tokenizer, "backend_tokenizer", None)
    decoder = getattr(backend, "decoder", None)
    return type(decoder).__name__ == "ByteLevel"


class PretrainedTokenizer(Tokenizer):
    """The folder's tokenizer with the project's numbering (`VocabMap`) and readable labels."""

    level = "subword"

    def __init__(self, hf_tokenizer: Any, vocab_map: VocabMap) -> None:  # no super().__init__: the vocabulary is given
        self.hf = hf_tokenizer
        self.map = vocab_map
        pieces = hf_tokenizer.convert_ids_to_tokens(list(range(vocab_map.size)))
        self.pieces: list[str] = [p if isinstance(p, str) else "" for p in pieces]  # pretrained order
        self.vocab = [*SPECIALS, *self.pieces]
        self.index = {s: i for i, s in enumerate(SPECIALS)}
        for hf_id, piece in enumerate(self.pieces):
            if piece:
                self.index.setdefault(piece, vocab_map.ours(hf_id))
        decode = byte_level_label if is_byte_level(hf_tokenizer) else str
        specials = [None if role is None else decode(self.pieces[role]) for role in vocab_map.roles]
        self.labels = [s or SPECIALS[i] for i, s in enumerate(specials)] + [decode(p) for p in self.pieces]
        # byte-level only: each id's bytes (None for specials), so a sequence's labels can name split characters
        self.bytes: list[bytes | None] | None = None
        if is_byte_level(hf_tokenizer):
            special = set(getattr(hf_tokenizer, "all_special_ids", ()) or ())  # <|endoftext|> is a name, not bytes
            self.bytes = [None] * len(SPECIALS) + [None if i in special else piece_bytes(p) for i, p in enumerate(self.pieces)]

    @property
    def pad_id(self) -> int:
        return PAD_ID

    @property
    def mask_id(self) -> int | None:
        """The project's id of the mask token (BERT's [MASK]), or None."""
        hf_id = getattr(self.hf, "mask_token_id", None)
        return None if hf_id is None else self.map.ours(hf_id)

    def tokenize(self, text: str) -> list[str]:
        return list(self.hf.tokenize(text))

    def detokenize(self, symbols: Sequence[str]) -> str:
        return str(self.hf.convert_tokens_to_string(list(symbols))).strip()

    def ids(self, symbols: Iterable[str]) -> list[int]:
        return [self.index.get(s, UNK_ID) for s in symbols]

    def decode(self, ids: Iterable[int]) -> str:
        """Ids → text as the pretrained tokenizer writes it, without padding, start and end tokens."""
        hf_ids = [self.map.theirs(i) for i in ids if i >= len(SPECIALS) or i == UNK_ID]
        return str(self.hf.decode([i for i in hf_ids if i is not None], skip_special_tokens=True)).strip()

    def symbols(self, ids: Iterable[int]) -> list[str]:
        """Readable labels for a sequence's axes and lists (see the module docstring): a byte-level piece that holds
        part of a character is labelled with that character and which part, from its neighbours in `ids`."""
        ids = [i if 0 <= i < len(self.labels) else UNK_ID for i in ids]
        names = [self.labels[i] for i in ids]
        if self.bytes is None:
            return names
        return sequence_labels([self.bytes[i] for i in ids], names)

    def raw_bytes(self, ids: Iterable[int]) -> list[str]:
        """Each id's raw bytes as hex ("e4 bd"), for a hover beside its label; "" for specials and non-byte-level
        tokenizers."""
        if self.bytes is None:
            return ["" for _ in ids]
        return [piece_hex(self.bytes[i]) if 0 <= i < len(self.bytes) else "" for i in ids]

    def to_dict(self) -> dict[str, Any]:
        raise ValueError("a pretrained model's tokenizer stays in its own folder; it is not saved as vocab.json")
