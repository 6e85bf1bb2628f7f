"""The rows of the one batch convention, as plain lists (no torch): what each stack reads and is trained on.

    source ids    = tokens + [<eos>]            (the encoder reads the whole sentence and its end)
    decoder input = [<bos>] + target tokens     (shifted right: position i predicts token i)
    labels        = target tokens + [<eos>]

A decoder-only model reads [<bos>] + the text's tokens; an encoder-only model (BERT) [<bos>] + tokens + [<eos>]
(its [CLS] … [SEP]). A text that does not fit is cut to what the row leaves room for: `max_len` less the
specials the row adds (`symbols_that_fit`, the one rule; `text_limit` for a row that adds one). Plain Python, so the tasks
and the prompt format (which need these rows) import no torch; `transformer.text.batch` pads them into tensors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from transformer.text.reading import symbols as read
from transformer.text.tokenizer import BOS_ID, EOS_ID, Tokenizer


class EncodedText(NamedTuple):
    """A text as a model reads it, before its row adds <bos>/<eos>: symbols and ids kept side by side."""

    symbols: list[str]  # the text's symbols, cut to fit
    ids: list[int]  # their ids (<unk> for symbols the vocabulary lacks)
    truncated: bool  # whether symbols were cut off


def text_limit(max_len: int) -> int:
    """How many of a text's symbols fit a row of `max_len` that adds one special: `symbols_that_fit` of a model
    that is not encoder-only."""
    return max_len - 1


def cut_text(tokenizer: Tokenizer, text: str, fit: int) -> EncodedText:
    """`text`'s symbols (read once for every caller: `transformer.text.reading.symbols`), cut to `fit`, and their ids."""
    symbols = read(tokenizer, text)
    return EncodedText(symbols[:fit], tokenizer.ids(symbols[:fit]), len(symbols) > fit)


def encode_text(tokenizer: Tokenizer, text: str, max_len: int) -> EncodedText:
    """`cut_text` to `text_limit(max_len)` symbols."""
    return cut_text(tokenizer, text, text_limit(max_len))


def source_row(ids: Sequence[int]) -> list[int]:
    """What the encoder reads: the tokens, then <eos>."""
    return [*ids, EOS_ID]


def decoder_row(ids: Sequence[int]) -> list[int]:
    """What the decoder reads: <bos>, then the tokens (the target shifted right by one)."""
    return [BOS_ID, *ids]


def label_row(ids: Sequence[int]) -> list[int]:
    """What the decoder is trained to predict at each position: the tokens, then <eos>."""
    return [*ids, EOS_ID]


def encoder_only_row(ids: Sequence[int]) -> list[int]:
    """What an encoder-only model reads: <bos>, the tokens, <eos> (BERT's [CLS] … [SEP])."""
    return [BOS_ID, *ids, EOS_ID]


def reading_row(ids: Sequence[int], is_encoder_decoder: bool, encoder_only: bool = False) -> list[int]:
    """The row of the stack that reads a text: the encoder's source row, a decoder-only model's <bos> + text,
    or an encoder-only model's <bos> + text + <eos>."""
    if encoder_only:
        return encoder_only_row(ids)
    return source_row(ids) if is_encoder_decoder else decoder_row(ids)
