"""Reading a checkpoint's files without trusting them.

Every file is checked before it is opened (a FIFO or a link to /dev/zero would block or never end)
and every failure is one short `CheckpointError` line that names the file.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

MAX_JSON_BYTES = 16 << 20
MAX_MESSAGE_CHARS = 300  # a hostile value quoted in an error stays one readable line


class CheckpointError(ValueError):
    """A checkpoint folder that is missing, corrupt, truncated or does not match its config."""


def regular_file(path: Path) -> os.stat_result:
    """stat of `path` if it is a regular file; a device, FIFO or folder is refused (reading one could hang)."""
    try:
        info = path.stat()  # follows symlinks: a link to /dev/zero is judged by /dev/zero
    except FileNotFoundError:
        raise CheckpointError(f"{path} is missing") from None
    except OSError as err:
        raise CheckpointError(f"{path} cannot be read: {err.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise CheckpointError(f"{path} is not a regular file")
    return info


def one_line(message: str) -> str:
    """Hostile values can be huge: keep the message one short line."""
    message = " ".join(message.split())
    return message if len(message) <= MAX_MESSAGE_CHARS else message[: MAX_MESSAGE_CHARS - 1] + "…"


def read_card(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The optional card.json; a broken one costs the card's facts, not the model: (card, warnings).

    Never blocks: a FIFO or device is refused by type before it is opened, a huge file by size.
    """
    if not os.path.lexists(path):
        return {}, []
    try:
        card = read_json(path)
    except CheckpointError as err:
        return {}, [f"{err}; the model loads without its card"]
    if not isinstance(card, dict):
        return {}, [f"{path} is not a JSON object; the model loads without its card"]
    return card, []


def read_json(path: Path) -> Any:
    if regular_file(path).st_size > MAX_JSON_BYTES:
        raise CheckpointError(f"{path} is too large to be a checkpoint's JSON")
    try:
        return json.loads(path.read_text(encoding="utf-8"), parse_constant=_reject_constant)
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError) as err:
        raise CheckpointError(one_line(f"{path} is not valid JSON: {err}")) from None
    except RecursionError:
        raise CheckpointError(f"{path} is nested too deeply to be a checkpoint's JSON") from None
    except OSError as err:
        raise CheckpointError(f"{path} cannot be read: {err.strerror}") from None


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed")


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1, allow_nan=False) + "\n", encoding="utf-8")
