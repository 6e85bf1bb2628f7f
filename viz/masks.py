"""The masks of a padded batch, as NumPy, for the Masks page.

The masks themselves are built by the model's own functions (`transformer.text.batch.batch_masks`,
which calls `transformer.masks`); this view-model holds them next to the padded tokens that
label their axes, and answers the small questions the page asks (which sentence is most padded,
a key padding vector as the matrix an attention layer applies).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from viz.tokens import Labels, TokenAxis, decoder_query_axis


@dataclass(frozen=True)
class MaskBatch:
    """A padded batch and its masks; every mask is boolean `allowed` (True = may attend).

    Decoder-only models have no source: `src_*`, `encoder_self` and `cross` are empty / None.
    """

    src_tokens: tuple[tuple[str, ...], ...]  # (B, Ts) with pad tokens
    tgt_tokens: tuple[tuple[str, ...], ...]  # (B, Tt) with pad tokens: the decoder's input
    tgt_padding: np.ndarray  # (B, Tt): key is a real token
    causal: np.ndarray  # (Tt, Tt) lower triangular
    decoder_self: np.ndarray  # (B, Tt, Tt) = padding & causal
    src_padding: np.ndarray | None = None  # (B, Ts)
    encoder_self: np.ndarray | None = None  # (B, Ts, Ts): padding keys only
    cross: np.ndarray | None = None  # (B, Tt, Ts): decoder queries × real source keys
    tgt_next: tuple[tuple[str, ...], ...] = ()  # (B, Tt) with pad tokens: the token each decoder position writes
    # the raw bytes (hex, "e4 bd") of each token above, "" where its label is the text (a <pad>, a word-level
    # model's token): a byte-level piece's label ("你 ¹⁄₂") names a character it holds only part of; () for none
    src_hex: tuple[tuple[str, ...], ...] = ()  # (B, Ts)
    tgt_hex: tuple[tuple[str, ...], ...] = ()  # (B, Tt)
    next_hex: tuple[tuple[str, ...], ...] = ()  # (B, Tt)

    @property
    def size(self) -> int:
        return len(self.src_tokens or self.tgt_tokens)

    @property
    def has_decoder(self) -> bool:
        """False for an encoder-only model's batch: its one mask is the encoder's padding mask."""
        return any(self.tgt_tokens)

    @property
    def has_source(self) -> bool:
        return self.src_padding is not None

    @property
    def most_padded(self) -> int:
        """The sentence with the most padding (source side if any): the most telling one to inspect."""
        lengths = self.lengths("src" if self.has_source else "tgt")
        return lengths.index(min(lengths))

    def query_labels(self, row: int) -> Labels:
        """Sentence `row`'s decoder query axis: named by the token each position writes when `tgt_next`
        is known (viz.tokens.TokenAxis), else by the input tokens as before."""
        if not self.tgt_next:  # the input tokens, with their raw bytes where the run has them
            return self.key_labels("tgt", row) if _row(self.tgt_hex, row) else self.tgt_tokens[row]
        return decoder_query_axis(self.tgt_tokens[row], self.tgt_next[row], _row(self.tgt_hex, row), _row(self.next_hex, row))

    def key_labels(self, side: str, row: int) -> TokenAxis:
        """Sentence `row`'s tokens on the "src" or "tgt" side, with their raw bytes for the hover."""
        tokens, raw = (self.src_tokens, self.src_hex) if side == "src" else (self.tgt_tokens, self.tgt_hex)
        return TokenAxis(tokens[row], hex=_row(raw, row))

    def raw_rows(self, side: str) -> tuple[tuple[str, ...], ...]:
        """The raw bytes of every sentence's tokens on the "src" or "tgt" side ((B, T); () for none)."""
        return self.src_hex if side == "src" else self.tgt_hex

    def lengths(self, side: str) -> list[int]:
        """Real (unpadded) length of each sentence on the "src" or "tgt" side."""
        padding = self.src_padding if side == "src" else self.tgt_padding
        return [] if padding is None else [int(n) for n in padding.sum(axis=1)]


def _row(raw: tuple[tuple[str, ...], ...], row: int) -> tuple[str, ...]:
    """Row `row` of a (B, T) table of raw bytes; () when the batch has none."""
    return raw[row] if row < len(raw) else ()


def padded_tokens(sequences: Sequence[Sequence[str]], pad_token: str) -> tuple[tuple[str, ...], ...]:
    """Token sequences right-padded with `pad_token` to the longest: the labels of a padded batch."""
    width = max((len(s) for s in sequences), default=0)
    return tuple(tuple(s) + (pad_token,) * (width - len(s)) for s in sequences)


def key_padding_matrix(padding: np.ndarray) -> np.ndarray:
    """One sentence's key padding (T,) as the (T, T) matrix an attention layer applies: every
    query row is the same, since padding hides keys, not queries."""
    return np.broadcast_to(padding[None, :], (padding.shape[0], padding.shape[0]))  # (Tq, Tk)
