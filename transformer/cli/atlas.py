"""`python -m transformer atlas`: every head's detector scores over a model's held-out sentences, stored with the model.

Writes `atlas.json` beside the checkpoint (or `--out`): per head the mean and spread of each score and its top
sentences (`transformer.probes.atlas`). A model without a task of its own (a converted folder) is read on the
bundled sentence set, and the file says so (`"source": "bundled"`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from transformer.probes.atlas import ATLAS_JSON, BUNDLED, HELDOUT, build_atlas, bundled_sentences, heldout_sentences, save_atlas
from transformer.probes.importance import fingerprint
from transformer.storage.registry import load_model, resolve_model

DEFAULT_N = 40
"""Held-out sentences per model: all eight shipped models in a few minutes on a shared 2-core machine."""


def cmd_atlas(args: argparse.Namespace) -> int:
    bundle = load_model(args.model)
    out = Path(args.out) if args.out else resolve_model(args.model) / ATLAS_JSON
    texts = heldout_sentences(bundle, args.n, args.seed)
    source = HELDOUT
    if texts is None:
        texts, source = bundled_sentences(), BUNDLED
        print(f"{bundle.name} has no held-out set of its own: reading the bundled sentence set ({len(texts)} sentences)")

    def progress(done: int, total: int) -> None:
        print(f"\r{done}/{total} sentences", end="\n" if done == total else "", flush=True)

    atlas = build_atlas(bundle, texts, source=source, seed=args.seed, progress=progress, fingerprint=fingerprint(bundle))
    save_atlas(atlas, out)
    print(f"{len(atlas.heads)} heads over {atlas.n_sentences} {source} sentences; wrote {out} ({out.stat().st_size:,} bytes)")
    return 0


def add_commands(sub: Any) -> None:
    """Register `atlas` on the `python -m transformer` sub-parsers."""
    parser = sub.add_parser("atlas", help="score every head over held-out sentences; store atlas.json with the model")
    parser.add_argument("--model", required=True, help="a shipped model's name or a checkpoint folder")
    parser.add_argument("--n", type=int, default=DEFAULT_N, help=f"held-out sentences (default {DEFAULT_N})")
    parser.add_argument("--seed", type=int, default=0, help="sample seed (default 0)")
    parser.add_argument("--out", default=None, help="output path (default: the model's folder/atlas.json)")
    parser.set_defaults(func=cmd_atlas)
