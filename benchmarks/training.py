"""Training: how long `reverse` takes to reach 99 % held-out exact match on this 2-core machine.

Run:  python -m benchmarks.training [--model reverse] [--retrain] [--quick]

By default it reads what the training run recorded in `assets/models/<model>/card.json`
(`training_seconds`, the stop reason, the recipe and the held-out metrics of the shipped model).
`--retrain` measures it anew: it runs the card's own command (`python -m transformer train ...`)
into a temporary folder with `--threads 2 --target-exact 0.99`, so training stops at the first
held-out check at or above 99 %, and times the whole process. That takes many minutes; it is never
run by default.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import arguments, header, print_table
from transformer.storage.registry import MODELS_DIR

TARGET = 0.99
EVAL_N = 1000  # held-out examples per check: the final evaluation's n


def card_row(source: str, card: dict, wall_s: float | None = None) -> list[object]:
    metrics, recipe = card.get("metrics", {}), card.get("training", {})
    exact = metrics.get("heldout_exact_match")
    return [
        source,
        card.get("task", "?"),
        card.get("steps", "?"),
        card.get("stop_reason", "?"),
        recipe.get("target_exact", "?"),
        f"{card.get('training_seconds', float('nan')):.0f}",
        "" if wall_s is None else f"{wall_s:.0f}",
        f"{100 * exact:.1f} %" if isinstance(exact, float) else "?",
        metrics.get("n_heldout", "?"),
    ]


def stage_commands(card: dict) -> list[list[str]]:
    """The training command of every stage on the card (a fine-tuning stage starts from the one
    before it), as argument lists for `python -m transformer`, without --out/--init-from/--target-exact."""
    commands = [stage["command"] for stage in card.get("stages", [])] or card["command"].split("&&")
    stages = []
    for command in commands:
        words = shlex.split(command)[3:]  # drop "python -m transformer"
        for flag in ("--out", "--init-from", "--target-exact", "--threads", "--eval-n"):
            if flag in words:
                i = words.index(flag)
                del words[i : i + 2]
        stages.append(words)
    return stages


def retrain(card: dict, out: Path) -> float:
    """Run the card's stages into `out` on 2 threads, every stage stopping at 99 %; wall seconds.

    Every held-out check decodes `EVAL_N` examples, as many as the final evaluation: a smaller
    check (the recipes use 200–300 to save time) can pass 99 % by luck and stop a run that the
    final evaluation then puts at 97 %. A later stage only runs if the one before fell short."""
    root = Path(__file__).resolve().parents[1]
    start = time.monotonic()
    previous: Path | None = None
    for number, words in enumerate(stage_commands(card), start=1):
        folder = out.with_name(f"{out.name}-stage{number}")
        command = [
            sys.executable,
            "-m",
            "transformer",
            *words,
            "--out",
            str(folder),
            "--threads",
            "2",
            "--target-exact",
            str(TARGET),
            "--eval-n",
            str(EVAL_N),
            *(["--init-from", str(previous)] if previous else []),
        ]
        print(f"stage {number}: {shlex.join(command)}\n", flush=True)
        subprocess.run(command, cwd=root, check=True)
        previous = folder
        if json.loads((folder / "card.json").read_text())["metrics"]["heldout_exact_match"] >= TARGET:
            break
    previous.rename(out)
    return time.monotonic() - start


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--model", default="reverse", help="shipped model folder under assets/models")
    parser.add_argument("--retrain", action="store_true", help="train again (many minutes) instead of reading the card")
    args = parser.parse_args()
    header(f"Training time to {100 * TARGET:.0f} % held-out exact match")
    path = MODELS_DIR / args.model / "card.json"
    if not path.is_file():
        print(f"No {path.relative_to(MODELS_DIR.parents[1])} yet: the model has not been shipped. Measure it with --retrain.\n")
        return
    card = json.loads(path.read_text(encoding="utf-8"))
    rows = [card_row("shipped card", card)]
    if args.retrain and not args.quick:
        with tempfile.TemporaryDirectory(prefix="atlas-retrain-") as folder:
            wall = retrain(card, Path(folder) / args.model)
            rows.append(
                card_row("--retrain (2 threads)", json.loads((Path(folder) / args.model / "card.json").read_text()), wall)
            )
    print_table(
        ["source", "task", "steps", "stop reason", "target", "training s", "process wall s", "held-out exact", "held-out n"], rows
    )
    print(f"Recipe: {card.get('command', '?')}")


if __name__ == "__main__":
    main()
