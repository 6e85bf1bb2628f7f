"""The pretrained families the app converts, by the `model_type` of their config.json."""

from __future__ import annotations

from typing import Any

from transformer.hf import bert, gpt2, marian
from transformer.hf.llama import LLAMA, QWEN2, QWEN3

# Each family: a module (gpt2.py, …) or an object (llama.py's `DecoderFamily`) with MODEL_CLASS, vocab_map, config,
# is_tied and state; and optionally `check(folder, config_json)`, which refuses a folder before its weights are read.
FAMILIES: dict[str, Any] = {"gpt2": gpt2, "bert": bert, "marian": marian, "llama": LLAMA, "qwen2": QWEN2, "qwen3": QWEN3}
FAMILY_NAMES = {"gpt2": "GPT-2", "bert": "BERT", "marian": "Marian", "llama": "Llama", "qwen2": "Qwen2", "qwen3": "Qwen3"}
