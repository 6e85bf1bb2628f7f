"""Readable labels for byte-level BPE pieces (GPT-2, Qwen, Llama 3), Chinese included.

A byte-level tokenizer splits text into UTF-8 bytes, not characters, and a Chinese character (three bytes) is
often split across two or three pieces. Decoded alone, such a piece is not text: a Python escape (`\\xe4\\xbd`) or
a replacement mark (�), unreadable for a class. Read in its sentence, each piece's bytes belong to known
characters, so a piece is labelled with the characters it holds, and a character it holds only part of is
written with which part:

    "你好" as pieces [e4 bd] [a0 e5 a5 bd]  →  "你 ¹⁄₂", "你 ²⁄₂好"

(part j of the k pieces the character is spread over). Bytes that form no character (a sequence cut off at the
end of a text, or pieces read out of their sentence) are shown as ▯, never as an escape; `piece_hex` gives every
piece's raw bytes for a hover.
"""

from __future__ import annotations

from collections.abc import Sequence

SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
UNKNOWN = "▯"  # bytes that form no character where they stand


def part_label(char: str, part: int, parts: int) -> str:
    """ "你", 1, 2 → "你 ¹⁄₂": the character, and which of the pieces it is spread over this one is (from 1)."""
    return f"{char} {str(part).translate(SUPERSCRIPT)}⁄{str(parts).translate(SUBSCRIPT)}"


def _char_length(lead: int) -> int:
    """The UTF-8 length of a character from its first byte; 0 for a byte that cannot start one."""
    if lead < 0x80:
        return 1
    for length, (mask, value) in ((2, (0xE0, 0xC0)), (3, (0xF0, 0xE0)), (4, (0xF8, 0xF0))):
        if lead & mask == value:
            return length
    return 0


def _characters(data: bytes) -> list[tuple[int, int, str]]:
    """(start, end, character) for each character of `data`, and (start, start + 1, UNKNOWN) for a byte that
    belongs to none (a stray continuation byte, or a character cut off)."""
    out: list[tuple[int, int, str]] = []
    i = 0
    while i < len(data):
        n = _char_length(data[i])
        try:
            char = data[i : i + n].decode("utf-8") if n and i + n <= len(data) else ""
        except UnicodeDecodeError:
            char = ""
        if char:
            out.append((i, i + n, char))
            i += n
        else:
            out.append((i, i + 1, UNKNOWN))
            i += 1
    return out


def sequence_labels(pieces: Sequence[bytes | None], names: Sequence[str]) -> list[str]:
    """One label per piece of a sequence. `pieces`: each piece's bytes, or None for a special token (whose label is
    its `names` entry, and which ends a run of bytes: no character spans it)."""
    labels = list(names)
    start = 0
    while start < len(pieces):
        if pieces[start] is None:
            start += 1
            continue
        end = start
        while end < len(pieces) and pieces[end] is not None:
            end += 1
        _label_run(pieces, start, end, labels)
        start = end
    return labels


def _label_run(pieces: Sequence[bytes | None], start: int, end: int, labels: list[str]) -> None:
    """Label pieces start .. end - 1, none of them special, from the characters their joined bytes make."""
    owner: list[int] = []  # owner[b]: the piece that holds byte b of the run
    for p in range(start, end):
        owner += [p] * len(pieces[p] or b"")
    segments: dict[int, list[tuple[str, bool]]] = {p: [] for p in range(start, end)}  # piece → (text, is a part)
    for first, last, char in _characters(b"".join(pieces[p] or b"" for p in range(start, end))):
        holders = list(dict.fromkeys(owner[first:last]))  # the pieces this character's bytes are in, in order
        for j, p in enumerate(holders, start=1):
            whole = len(holders) == 1
            segments[p].append((char if whole else part_label(char, j, len(holders)), not whole))
    for p, parts in segments.items():
        text = ""
        for i, (segment, is_part) in enumerate(parts):
            joint = " " if i and (is_part or parts[i - 1][1]) else ""
            text += joint + segment
        labels[p] = text


def piece_hex(piece: bytes | None) -> str:
    """A piece's raw bytes as a hover shows them: "e4 bd a0" ("" for a special token)."""
    return "" if piece is None else " ".join(f"{b:02x}" for b in piece)
