"""Reading a text once: the one reader of a model bundle, its symbols, and how many of them fit.

A page checks the user's text (too long? symbols the model does not know?), estimates the bytes its run will
record, picks its arithmetic, runs the model and labels its axes. Each used to tokenize the text again, and each
had its own idea of how much fits: an encoder-only model's row adds two specials (BERT's [CLS] and [SEP]), so the
check let one symbol more through than the run read, and the page never said that the end was cut. Now each asks
here: `reader` names the tokenizer, `symbols` tokenizes a text once for every caller (the same text is not read
twice), and `symbols_that_fit` is the one rule of how much fits.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from transformer.text.tokenizer import Tokenizer

READ_TEXTS = 64
"""Tokenized texts kept (per process): a page's few texts, and a class's sentences, each read once."""


def reader(bundle: Any) -> Tokenizer:
    """The tokenizer that reads the user's text: the encoder's (source side) where the model has one, else the
    decoder's (a decoder-only model reads its prompt with its one tokenizer)."""
    return bundle.source_tokenizer or bundle.target_tokenizer


def symbols_that_fit(config: Any) -> int:
    """How many of a text's symbols fit the row a model (`config`) reads it in: `max_len` less the specials that
    row adds (`transformer.text.rows`): one, <eos> after a source or <bos> before a decoder's text; two for an
    encoder-only model, <bos> … <eos>."""
    return config.max_len - (2 if config.is_encoder_only else 1)


@lru_cache(maxsize=READ_TEXTS)
def _symbols(tokenizer: Tokenizer, text: str) -> tuple[str, ...]:
    return tuple(tokenizer.tokenize(text))


def symbols(tokenizer: Tokenizer, text: str) -> list[str]:
    """`tokenizer.tokenize(text)`, computed once for every caller that reads the same text with the same tokenizer
    (a word-level or subword tokenizer over a long paragraph takes milliseconds each time)."""
    return list(_symbols(tokenizer, text))


@dataclass(frozen=True)
class ReadText:
    """A text as a model would read it: every symbol, and how many fit."""

    symbols: tuple[str, ...]  # every symbol of the text, before any cut
    fit: int  # how many fit the model's row (`symbols_that_fit`)

    @property
    def kept(self) -> list[str]:
        """The symbols the model reads."""
        return list(self.symbols[: self.fit])

    @property
    def truncated(self) -> bool:
        """Whether the end of the text was cut."""
        return len(self.symbols) > self.fit


def read_text(bundle: Any, text: str) -> ReadText:
    """`text` as `bundle`'s model reads it (`reader`, `symbols_that_fit`)."""
    return ReadText(_symbols(reader(bundle), text), symbols_that_fit(bundle.config))


__all__ = ["READ_TEXTS", "ReadText", "read_text", "reader", "symbols", "symbols_that_fit"]
