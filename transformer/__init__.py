"""Attention Atlas's Transformer: the model of "Attention Is All You Need", instrumented.

Quick start (Python or Jupyter):

    from transformer import load_model, trace_text
    bundle = load_model("translate-en-zh")
    trace = trace_text(bundle, "i read a book in the library today")
    trace.output_text, trace.cache["decoder.layers.0.cross_attn.hook_pattern"].shape  # (1, H, Tq, Tk)
"""

import importlib

# Loaded on first use (PEP 562): `import transformer.tasks` (plain Python) or `python -m transformer --help`
# does not pay for importing torch.
_EXPORTS: dict[str, str] = {
    "CheckpointError": "storage.checkpoint",
    "ModelBundle": "storage.checkpoint",
    "load_checkpoint": "storage.checkpoint",
    "save_checkpoint": "storage.checkpoint",
    "TransformerConfig": "config",
    "Trace": "engine.decoding",
    "greedy_decode": "engine.decoding",
    "trace_text": "engine.decoding",
    "ActivationCache": "activation_cache",
    "capture": "hooks",
    "hook_names": "hooks",
    "intervene": "hooks",
    "edit_mask": "interventions",
    "replace_pattern": "interventions",
    "zero_head": "interventions",
    "Transformer": "model",
    "DEFAULT_MODEL": "storage.registry",
    "list_models": "storage.registry",
    "load_model": "storage.registry",
    "random_bundle": "storage.registry",
    "CharTokenizer": "text.tokenizer",
    "Tokenizer": "text.tokenizer",
    "WordTokenizer": "text.tokenizer",
}


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'transformer' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"transformer.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_MODEL",
    "ActivationCache",
    "CharTokenizer",
    "CheckpointError",
    "ModelBundle",
    "Tokenizer",
    "Trace",
    "Transformer",
    "TransformerConfig",
    "WordTokenizer",
    "capture",
    "edit_mask",
    "greedy_decode",
    "hook_names",
    "intervene",
    "list_models",
    "load_checkpoint",
    "load_model",
    "random_bundle",
    "replace_pattern",
    "save_checkpoint",
    "trace_text",
    "zero_head",
]
