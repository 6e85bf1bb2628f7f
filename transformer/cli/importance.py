"""`python -m transformer importance`: compute a model's head-importance table and store it with the model."""

from __future__ import annotations

import argparse
from typing import Any

from transformer.probes.importance import IMPORTANCE_JSON, compute_importance, save_importance
from transformer.storage.registry import load_model, resolve_model


def cmd_importance(args: argparse.Namespace) -> int:
    bundle = load_model(args.model)
    out = args.out or resolve_model(args.model) / IMPORTANCE_JSON

    def progress(done: int, total: int) -> None:
        print(f"\r{done}/{total} heads", end="\n" if done == total else "", flush=True)

    result = compute_importance(bundle, n=args.n, seed=args.seed, progress=progress)
    save_importance(result, out)
    for s in result.important()[:8]:
        print(f"{s.label}: output changes on {100 * s.changed:.0f}% · log-prob drop {s.logprob_drop:.2f}")
    print(f"{len(result.important())} of {len(result.heads)} heads change an output when removed; wrote {out}")
    return 0


def add_commands(sub: Any) -> None:
    """Register `importance` on the `python -m transformer` sub-parsers."""
    parser = sub.add_parser("importance", help="ablate each head on a held-out sample; store importance.json with the model")
    parser.add_argument("--model", required=True, help="a shipped model's name or a checkpoint folder")
    parser.add_argument("--n", type=int, default=50, help="held-out examples (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="sample seed (default 0)")
    parser.add_argument("--out", default=None, help="output path (default: the model's folder/importance.json)")
    parser.set_defaults(func=cmd_importance)
