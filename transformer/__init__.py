"""Attention Atlas's Transformer: the model of "Attention Is All You Need", instrumented.

Quick start (Python or Jupyter):

    from transformer import load_model, trace_text
    bundle = load_model("translate-en-zh")
    trace = trace_text(bundle, "i read a book in the library today")
    trace.output_text, trace.cache["decoder.layers.0.cross_attn.hook_pattern"].shape  # (1, H, Tq, Tk)
"""

from transformer.checkpoint import CheckpointError, ModelBundle, load_checkpoint, save_checkpoint
from transformer.config import TransformerConfig
from transformer.decoding import Trace, greedy_decode, trace_text
from transformer.hooks import ActivationCache, capture, edit_mask, hook_names, intervene, replace_pattern, zero_head
from transformer.model import Transformer
from transformer.registry import DEFAULT_MODEL, list_models, load_model, random_bundle
from transformer.tokenizer import CharTokenizer, Tokenizer, WordTokenizer

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
