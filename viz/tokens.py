"""Token labels for figure axes and hover text.

Plotly renders a subset of HTML in tick and hover text (<b>, <a href>, <span style>, <br>), so a
token typed as "<b>x</b>" must be escaped or it would be drawn bold — or worse, become a link.
Repeated tokens ("the", "l" in "hello") would collapse into one category on a categorical axis,
so cells sit at integer positions and labels go in `tickvals`/`ticktext`.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Sequence

_VISIBLE = {" ": "␣", "\t": "⇥", "\n": "↵"}


def text_width_px(text: str, font_px: float) -> float:
    """Estimated drawn width of `text`: wide characters (CJK, fullwidth, most emoji) one em, others 0.62 em.

    Good enough to reserve room for tick labels without asking the browser, which plotly's
    `automargin` does by measuring every label and drawing the figure a second time.
    """
    ems = sum(1.0 if unicodedata.east_asian_width(ch) in "WF" else 0.62 for ch in visible_token(text))
    return ems * font_px


def visible_token(token: str) -> str:
    """A token with whitespace made visible: " " → "␣", tab → "⇥", newline → "↵" (else unchanged)."""
    return _VISIBLE.get(token, token)


def escape_token(token: str) -> str:
    """A token as safe, visible plotly text: HTML-escaped, with whitespace made visible."""
    return html.escape(visible_token(token), quote=True)


def axis_labels(tokens: Sequence[str]) -> list[str]:
    """Escaped labels, one per position (duplicates allowed: positions, not names, place cells)."""
    return [escape_token(tok) for tok in tokens]


def hover_labels(tokens: Sequence[str]) -> list[str]:
    """"3: hello" style labels that tell repeated tokens apart in hover text."""
    return [f"{i}: {escape_token(tok)}" for i, tok in enumerate(tokens)]


def axis(tokens: Sequence[str], title: str = "", max_labels: int = 64) -> dict:
    """A plotly axis dict placing `tokens` at 0..T-1; past `max_labels`, every k-th label is shown."""
    step = max(1, -(-len(tokens) // max_labels))
    positions = list(range(0, len(tokens), step))
    labels = axis_labels(tokens)
    return {
        "tickmode": "array",
        "tickvals": positions,
        "ticktext": [labels[i] for i in positions],
        "title": {"text": html.escape(title)},
        "showgrid": False,
        "zeroline": False,
    }
