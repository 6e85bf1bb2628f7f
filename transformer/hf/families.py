"""The pretrained families the app converts, by the `model_type` of their config.json."""

from __future__ import annotations

from types import ModuleType

from transformer.hf import bert, gpt2, marian

FAMILIES: dict[str, ModuleType] = {"gpt2": gpt2, "bert": bert, "marian": marian}
FAMILY_NAMES = {"gpt2": "GPT-2", "bert": "BERT", "marian": "Marian"}
