"""The command line, `python -m transformer --help`: one parser, each command registered by its own module.

`trace` and `models` (`cli/trace.py`), `train` and `eval` (`cli/train.py`), `importance` (`cli/importance.py`), `lens` and `patch`
(`cli/why.py`), `atlas` (`cli/atlas.py`).
Nothing outside this package imports it: the library, the run layer and the pages read recipes from the tasks
(`transformer.tasks.recipes`), never from the command line (`tests/test_layers.py`).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from transformer.cli import atlas, importance, trace, train, why
from transformer.storage.checkpoint import CheckpointError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m transformer", description="Attention Atlas's Transformer.")
    sub = parser.add_subparsers(dest="command", required=True)
    for commands in (trace, train, importance, why, atlas):
        commands.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a refused input ends with `error: …` on stderr and exit status 2, never a traceback."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CheckpointError, ValueError, KeyError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
