"""Token labels for figure axes and hover text.

Plotly renders a subset of HTML in tick and hover text (<b>, <a href>, <span style>, <br>), so a
token typed as "<b>x</b>" must be escaped or it would be drawn bold — or worse, become a link.
Repeated tokens ("the", "l" in "hello") would collapse into one category on a categorical axis,
so cells sit at integer positions and labels go in `tickvals`/`ticktext`.

Decoder query rows are named by what they write. Row i of decoder self- and cross-attention is
computed from decoder input token i and produces output token i + 1; labelled by its input, the
alignment head of a translator looks shifted by one word (row "我" attends "today" because it
writes "今天"). A `TokenAxis` carries both: the written token is the label, the input token goes
alongside where there is room ("我 → 今天") and always in the hover. Every figure with a query
axis accepts a `TokenAxis` wherever it accepts a token list, so there is one choice, made here.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from viz.style import TICK_FONT_SIZE

_VISIBLE = {" ": "␣", "\t": "⇥", "\n": "↵"}
READS_WRITES = " → "  # "我 → 今天": the position reads 我 and writes 今天
ROOM_PX = 180.0  # widest tick label (px at the tick font) for which the input token still goes alongside


def text_width_px(text: str, font_px: float) -> float:
    """Estimated drawn width of `text`: wide characters (CJK, fullwidth, most emoji) one em, others 0.62 em.

    Good enough to reserve room for tick labels without asking the browser, which plotly's
    `automargin` does by measuring every label and drawing the figure a second time.
    """
    ems = sum(1.0 if unicodedata.east_asian_width(ch) in "WF" else 0.62 for ch in visible_token(text))
    return ems * font_px


WORD_START = "▁"  # SentencePiece's word-start mark on a subword piece ("▁read"); a figure shows the piece plainly


def visible_token(token: str) -> str:
    """A token with whitespace made visible: " " → "␣", tab → "⇥", newline → "↵"; a word piece without its
    word-start mark ("▁read" → "read", a lone "▁" → "␣"); else unchanged."""
    if token.startswith(WORD_START):
        token = token[len(WORD_START) :] or " "
    return _VISIBLE.get(token, token)


def byte_pieces(tokens: Sequence[str], hexes: Sequence[str]) -> list[str]:
    """Plain "你 ¹⁄₂ = e4 bd" for each distinct byte-level piece among `tokens` (its raw bytes in `hexes`, "" where a
    label is the text), in order of first appearance: a table's legend, where no hover can show them."""
    pairs = dict.fromkeys((visible_token(tok), raw) for tok, raw in zip(tokens, hexes, strict=False) if raw)
    return [f"{label} = {raw}" for label, raw in pairs]


def escape_token(token: str) -> str:
    """A token as safe, visible plotly text: HTML-escaped, with whitespace made visible."""
    return html.escape(visible_token(token), quote=True)


@dataclass(frozen=True)
class TokenAxis:
    """The labels of one attention axis, one per position.

    `tokens` name the positions: for a decoder query axis, the token each position writes (its
    prediction). `reads`, when given, are the tokens the positions read (the decoder's input),
    shown alongside as "reads → writes". Labels come out escaped, ready for plotly.
    """

    tokens: tuple[str, ...]
    reads: tuple[str, ...] | None = None
    hex: tuple[str, ...] | None = None  # raw bytes of each of `tokens` ("e4 bd"; "" where the label is the text)
    reads_hex: tuple[str, ...] | None = None  # raw bytes of each of `reads`

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", tuple(self.tokens))
        if self.reads is not None:
            object.__setattr__(self, "reads", tuple(self.reads))
            if len(self.reads) != len(self.tokens):
                raise ValueError(f"{len(self.reads)} input tokens do not match {len(self.tokens)} written tokens")
        for name in ("hex", "reads_hex"):  # a run without raw bytes (a word-level model, an old trace) has none
            raw = getattr(self, name)
            object.__setattr__(self, name, tuple(raw) if raw and len(raw) == len(self.tokens) else None)

    def __len__(self) -> int:
        return len(self.tokens)

    def short_labels(self) -> list[str]:
        """Escaped main labels (the written token on a decoder query axis)."""
        return [escape_token(tok) for tok in self.tokens]

    def long_labels(self) -> list[str]:
        """Escaped labels with the input token alongside: "我 → 今天" (= short labels without `reads`)."""
        if self.reads is None:
            return self.short_labels()
        return [f"{escape_token(r)}{READS_WRITES}{escape_token(w)}" for r, w in zip(self.reads, self.tokens, strict=True)]

    def plain_long(self, i: int) -> str:
        """Position i's long label, unescaped (for widths and for widgets that show plain text)."""
        if self.reads is None:
            return visible_token(self.tokens[i])
        return f"{visible_token(self.reads[i])}{READS_WRITES}{visible_token(self.tokens[i])}"

    def tick_labels(self, room_px: float = ROOM_PX) -> list[str]:
        """Long labels if the widest fits in `room_px`, else the short ones (one choice for the whole axis)."""
        if self.reads is None:
            return self.short_labels()
        widest = max((text_width_px(self.plain_long(i), TICK_FONT_SIZE) for i in range(len(self))), default=0.0)
        return self.long_labels() if widest <= room_px else self.short_labels()

    def raw_bytes(self, i: int) -> str:
        """Position i's raw bytes as hex ("e4 bd", "e4 bd → e5 a5 bd" beside a decoder row's "reads → writes"),
        "" when neither token is a byte-level piece."""
        written = self.hex[i] if self.hex else ""
        if self.reads is None:
            return written
        read = self.reads_hex[i] if self.reads_hex else ""
        return f"{read or '–'}{READS_WRITES}{written or '–'}" if read or written else ""

    def hover_labels(self, bytes_line: str = "") -> list[str]:
        """Unique escaped "3: 我 → 今天" names (the index tells repeated tokens apart): hover and categories.

        `bytes_line` ("bytes: {hex}", in the page's language) adds a line with the raw bytes of a byte-level
        piece, whose label ("你 ¹⁄₂") names a character it holds only part of; nothing for other tokens."""
        names = [f"{i}: {label}" for i, label in enumerate(self.long_labels())]
        if not bytes_line or (self.hex is None and self.reads_hex is None):
            return names
        for i, name in enumerate(names):
            raw = self.raw_bytes(i)
            if raw:
                names[i] = f"{name}<br>{html.escape(bytes_line.format(hex=raw))}"
        return names

    def option_label(self, i: int, bytes_option: str = "") -> str:
        """Plain "3: 我 → 今天" for a picker (Streamlit shows widget options as text: no escaping).

        `bytes_option` ("{label} · bytes {hex}", in the page's language) adds a byte-level piece's raw bytes, which
        an option cannot show in a hover: "3: 你 ¹⁄₂ · bytes e4 bd"; nothing for other tokens."""
        label = f"{i}: {self.plain_long(i)}"
        raw = self.raw_bytes(i) if bytes_option else ""
        return bytes_option.format(label=label, hex=raw) if raw else label


Labels = Sequence[str] | TokenAxis
"""What figure functions accept for an axis: raw tokens (encoder, keys) or a `TokenAxis`."""


def as_axis(labels: Labels) -> TokenAxis:
    """A `TokenAxis` as is; raw tokens as an axis named by themselves."""
    return labels if isinstance(labels, TokenAxis) else TokenAxis(tuple(labels))


def decoder_query_axis(
    inputs: Sequence[str], next_tokens: Sequence[str], inputs_hex: Sequence[str] = (), next_hex: Sequence[str] = ()
) -> TokenAxis:
    """Decoder query rows named by the token each writes (`next_tokens[i]`), reading `inputs[i]` (and their raw
    bytes, where given)."""
    return TokenAxis(tuple(next_tokens), tuple(inputs), tuple(next_hex), tuple(inputs_hex))


def attention_axes(
    kind: str,
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str],
    next_tokens: Sequence[str],
    raw: tuple[Sequence[str], Sequence[str], Sequence[str]] = ((), (), ()),
) -> tuple[TokenAxis, TokenAxis]:
    """(query axis, key axis) of an attention kind ("encoder", "decoder", "cross").

    Keys are always named by the token they read: key j of decoder self-attention is the input
    token at j. Only decoder queries are named by what they write. `raw`: the raw bytes (hex) of the source,
    target and next tokens, for the hover (`viz.trace.TraceData.src_hex` …; empty: none).
    """
    src_hex, tgt_hex, next_hex = (tuple(r) for r in raw)
    if kind == "encoder":
        return TokenAxis(tuple(src_tokens), hex=src_hex), TokenAxis(tuple(src_tokens), hex=src_hex)
    queries = decoder_query_axis(tgt_tokens, next_tokens, tgt_hex, next_hex)
    keys, keys_hex = (tgt_tokens, tgt_hex) if kind == "decoder" else (src_tokens, src_hex)
    return queries, TokenAxis(tuple(keys), hex=keys_hex)


def axis_labels(tokens: Labels) -> list[str]:
    """Escaped labels, one per position (duplicates allowed: positions, not names, place cells)."""
    return as_axis(tokens).tick_labels()


def hover_labels(tokens: Labels, bytes_line: str = "") -> list[str]:
    """ "3: hello" style labels that tell repeated tokens apart in hover text; with `bytes_line` ("bytes: {hex}",
    translated by the page) a byte-level piece's raw bytes go on a line under its name (`TokenAxis.hover_labels`)."""
    return as_axis(tokens).hover_labels(bytes_line)


def axis(tokens: Labels, title: str = "", max_labels: int = 64) -> dict:
    """A plotly axis dict placing `tokens` at 0..T-1; past `max_labels`, every k-th label is shown."""
    labels = axis_labels(tokens)
    step = max(1, -(-len(labels) // max_labels))
    positions = list(range(0, len(labels), step))
    return {
        "tickmode": "array",
        "tickvals": positions,
        "ticktext": [labels[i] for i in positions],
        "title": {"text": html.escape(title)},
        "showgrid": False,
        "zeroline": False,
    }
