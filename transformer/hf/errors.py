"""Why a pretrained folder cannot be used: one exception whose `reason` the app translates.

The message is English, one line, for the command line and logs; `reason` is a code
(`REASONS`) the app turns into a sentence in the user's language (catalog `pretrained.refused_<reason>`),
with `details` filling it in.
"""

from __future__ import annotations

from typing import Any

from transformer.storage.untrusted_files import CheckpointError

REASONS = ("no_safetensors", "unknown_family", "remote_code", "outside", "corrupt", "unsupported", "no_transformers")


class PretrainedRefused(CheckpointError):
    """A pretrained checkpoint folder the app will not load, and why (`reason`, one of `REASONS`)."""

    def __init__(self, reason: str, message: str, **details: Any) -> None:
        assert reason in REASONS, reason
        super().__init__(message)
        self.reason = reason
        self.details = details


class UnsupportedModel(PretrainedRefused):
    """A readable checkpoint of a known family in a variant the app cannot convert exactly."""

    def __init__(self, message: str) -> None:
        super().__init__("unsupported", message, what=message)
