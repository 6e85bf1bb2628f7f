"""`python -m transformer lens` and `python -m transformer patch`: the Why page's numbers on the command line.

    python -m transformer lens --model en-zh --text "the cat is on the mat" [--position 1] [--json]
    python -m transformer patch --model en-zh --clean "the cat is on the mat" --corrupted "the dog is on the mat" \
        [--position 1] [--target 猫] [--json]

With `--json` each prints one JSON object (the shapes of `Lens.to_json` and `Patching.to_json`); a refused input
ends with `error: …` and exit status 2 (`transformer.cli.main`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hook_names import ordinal
from transformer.probes.lens import logit_lens
from transformer.probes.patching import patch
from transformer.storage.registry import load_model


def _print_json(data: dict[str, Any]) -> None:
    print(json.dumps(data, ensure_ascii=False))


def cmd_lens(args: argparse.Namespace) -> int:
    lens = logit_lens(load_model(args.model), args.text, args.position)
    if args.json:
        _print_json(lens.to_json())
        return 0
    print(f"position {lens.position}: the model writes {lens.token!r}")
    print(f"{'read after':<44} {'p(token)':>9}  top tokens")
    for read in lens.reads:
        where = "embeddings" if read.layer is None else f"layer {ordinal(read.layer)} {read.part}"
        top = ", ".join(f"{t} {p:.3f}" for t, p in read.top)
        print(f"{where:<44} {read.p_token:>9.4f}  {top}")
    return 0


def cmd_patch(args: argparse.Namespace) -> int:
    def progress(done: int, total: int) -> None:
        if not args.json:
            print(f"\r{done}/{total} patched runs", end="\n" if done == total else "", file=sys.stderr, flush=True)

    result = patch(load_model(args.model), args.clean, args.corrupted, args.position, args.target, progress=progress)
    if args.json:
        _print_json(result.to_json())
        return 0
    print(
        f"position {result.position}: target {result.target!r} against {result.foil!r}; logit difference "
        f"clean {result.clean_diff:.3f}, corrupted {result.corrupted_diff:.3f}"
    )
    print("restored fraction, residual stream (rows: each layer's input, then after the last layer):")
    tokens = result.clean.stream_tokens
    print(" " * 12 + " ".join(f"{t[:7]:>7}" for t in tokens))
    for i, row in enumerate(result.residual):
        label = f"layer {ordinal(i)} in" if i + 1 < len(result.residual) else "final"
        print(f"{label:<12}" + " ".join(f"{v:>7.3f}" for v in row))
    print("restored fraction, each head's output (heads from 1):")
    for module, values in result.heads.items():
        print(f"{module:<32} " + " ".join(f"{v:>7.3f}" for v in values))
    module, head, value = result.best_head()
    print(f"most restored by one head: {module} head {ordinal(head)} ({value:.3f})")
    return 0


def add_commands(sub: Any) -> None:
    """Register `lens` and `patch` on the `python -m transformer` sub-parsers."""
    lens = sub.add_parser("lens", help="the logit lens: what the model would write after each layer and sublayer")
    lens.add_argument("--model", required=True, help="a shipped model's name or a checkpoint folder")
    lens.add_argument("--text", required=True)
    lens.add_argument("--position", type=int, default=None, help="output position, from 1 (default 1; BERT: the first [MASK])")
    lens.add_argument("--json", action="store_true", help="print one JSON object")
    lens.set_defaults(func=cmd_lens)

    patching = sub.add_parser("patch", help="patch each residual point and head from a clean sentence into a corrupted one")
    patching.add_argument("--model", required=True, help="a shipped model's name or a checkpoint folder")
    patching.add_argument("--clean", required=True, help="the clean sentence")
    patching.add_argument("--corrupted", required=True, help="the corrupted sentence, of the same length in tokens")
    patching.add_argument(
        "--position", type=int, default=None, help="output position, from 1 (default: the first where the runs differ)"
    )
    patching.add_argument("--target", default=None, help="the token measured (default: the clean run's token there)")
    patching.add_argument("--json", action="store_true", help="print one JSON object")
    patching.set_defaults(func=cmd_patch)
