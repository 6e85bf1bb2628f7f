"""`python -m transformer trace` and `python -m transformer models`: run a model on text, list the shipped ones."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from transformer.config import TransformerConfig, config_overrides
from transformer.engine.decoding import trace_text
from transformer.storage.registry import RANDOM, list_models, load_model, random_bundle


def _trace_text_arg(text: str) -> str:
    """The model needs something to read: empty or whitespace-only text is refused, not traced."""
    if not text.strip():
        raise ValueError("--text is empty; give the sentence to trace, e.g. --text 'hello world'")
    return text


def _trace_out_arg(raw: str) -> Path:
    """`--out` must name a new or existing .npz file in a folder we can write to.

    The suffix is required rather than appended: numpy appends `.npz` to any other name, so the
    file written would not be the one named (and `--out some_folder` would land beside the folder).
    """
    if not raw.strip():
        raise ValueError("--out is empty; give a file name ending in .npz, e.g. --out trace.npz")
    out = Path(raw)
    if out.name.lower() == ".npz":
        raise ValueError(f"--out {raw!r} needs a file name before .npz, e.g. trace.npz")
    if out.suffix != ".npz":
        raise ValueError(f"--out {raw!r} must end in .npz (e.g. {out.stem or 'trace'}.npz)")
    if out.is_dir():
        raise ValueError(f"--out {raw!r} is a folder; give a file name ending in .npz inside it")
    blocking = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise ValueError(f"--out {raw!r}: {str(blocking)!r} is a file, not a folder")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"--out {raw!r}: cannot create the folder {str(out.parent)!r} ({err.strerror or err})") from None
    if not os.access(out.parent, os.W_OK):
        raise ValueError(f"--out {raw!r}: the folder {str(out.parent)!r} is not writable")
    return out


def cmd_trace(args: argparse.Namespace) -> int:
    text, out = _trace_text_arg(args.text), _trace_out_arg(args.out)  # before the (possibly slow) model run
    if args.model == RANDOM:
        bundle = random_bundle(TransformerConfig.from_dict(config_overrides(args.config)), seed=args.seed)
    else:
        if args.config:
            raise ValueError("--config builds a random model; use it with --model random")
        bundle = load_model(args.model)
    trace = trace_text(bundle, text)
    arrays: dict[str, np.ndarray] = dict(trace.cache.numpy())
    arrays["tokens.src"] = np.array(trace.src_tokens, dtype=str)
    arrays["tokens.tgt"] = np.array(trace.tgt_tokens, dtype=str)
    arrays["tokens.next"] = np.array(trace.next_tokens, dtype=str)  # what each decoder row writes
    arrays["output"] = np.array(trace.output_text, dtype=str)
    arrays["text"] = np.array(trace.text, dtype=str)
    try:
        np.savez_compressed(out, **arrays)
    except OSError as err:
        raise ValueError(f"cannot write {str(out)!r}: {err.strerror or err}") from None
    if trace.unknown:
        print(f"note: the model does not know {trace.unknown}; they were read as <unk>", file=sys.stderr)
    if trace.truncated:
        print(f"note: the input was truncated to {len(trace.src_tokens or trace.tgt_tokens)} tokens", file=sys.stderr)
    print(f"output: {trace.output_text}")
    print(f"wrote {len(trace.cache)} tensors + tokens to {out}")
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    infos = list_models()
    if not infos:
        print("no shipped models under assets/models/ (train one: python -m transformer train --help)")
        return 0
    print(f"{'name':<18} {'task':<16} {'params':>9} {'exact match':>12}  summary")
    for info in infos:
        card = info.card
        metrics = card.get("metrics", {})
        exact = metrics.get("heldout_exact_match")
        exact_s = f"{100 * exact:.1f}%" if isinstance(exact, (int, float)) else "?"
        params = card.get("parameters", "?")
        print(f"{info.name:<18} {card.get('task', '?'):<16} {params:>9} {exact_s:>12}  {card.get('summary', '')}")
    return 0


def add_commands(sub: Any) -> None:
    """Register `trace` and `models` on the `python -m transformer` sub-parsers."""
    trace = sub.add_parser("trace", help="run a model on text and save every captured tensor to .npz")
    trace.add_argument("--model", required=True, help=f"a shipped model's name, a checkpoint folder, or {RANDOM!r}")
    trace.add_argument("--text", required=True)
    trace.add_argument("--out", required=True, help="output file, must end in .npz")
    trace.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="with --model random: a TransformerConfig field, e.g. --config n_layers=2 --config d_model=64",
    )
    trace.add_argument("--seed", type=int, default=0, help="with --model random: weight seed")
    trace.set_defaults(func=cmd_trace)

    models = sub.add_parser("models", help="list the models shipped under assets/models/")
    models.set_defaults(func=cmd_models)
