"""Wire cost: bytes of figure JSON per attention cell, as the heads page sends it.

Run:  python -m benchmarks.wire_cost [--lengths 16 64 ...] [--quick]

Builds one heads-page rerun (benchmarks/heads_rerun.py: the same viz calls as views/heads.py) on
a teacher-forced run with T tokens on both sides, and measures each figure the way Streamlit
serializes it (`plotly.io.to_json(fig, validate=False)`, then its protobuf). Three sources of
attention weights, because compression depends on them:
- random: an untrained model of the config (diffuse rows near 1/T);
- trained: the shipped translate-en-zh (sharp rows; its own small config, T ≤ its max_len);
- noise: random rows (incompressible: the worst case an 8-bit grid can meet).
Grid target: ≤ 1.4 bytes per cell (8-bit + base64 is 1.33). "per drawn" divides by the cells
actually sent after pooling (tiles are pooled to ≥ 1 screen pixel per cell at long inputs);
"per weight" by every attention weight of every head. The enlarged head is sent exactly (float32) up to 256 × 256 cells.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from benchmarks.common import CONFIGS, SMALL, arguments, header, print_table, size
from benchmarks.heads_rerun import Rerun, heads_rerun, square_trace
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import list_models, load_model, random_bundle
from viz.trace import TraceData

TRAINED = "translate-en-zh"


def noise_trace(trace: TraceData, seed: int = 0) -> TraceData:
    """The same run (tokens, what each row writes) with every pattern replaced by random rows summing to 1."""
    rng = np.random.default_rng(seed)
    arrays = {}
    for name, array in trace.arrays.items():
        noise = rng.random(array.shape, dtype=np.float32)
        arrays[name] = noise / noise.sum(axis=-1, keepdims=True)
    return dataclasses.replace(trace, arrays=arrays)


def row(label: str, length: int, run: Rerun) -> list[object]:
    grids = [k for k in run.json_bytes if k.startswith("grid_")]
    grid_json = sum(run.json_bytes[k] for k in grids)
    cells, drawn = sum(run.cells[k] for k in grids), sum(run.drawn[k] for k in grids)
    worst = max(run.json_bytes[k] / run.drawn[k] for k in grids)
    return [
        label,
        length,
        f"{cells:,}",
        f"{drawn / cells:.2f}",
        size(grid_json),
        f"{grid_json / drawn:.3f}",
        f"{worst:.3f}",
        f"{grid_json / cells:.3f}",
        size(run.json_bytes["head"]),
        f"{run.json_bytes['head'] / run.cells['head']:.2f}",
        size(sum(run.json_bytes.values())),
        size(sum(run.wire_bytes.values())),
    ]


def sources(quick: bool) -> dict[str, ModelBundle]:
    configs = {SMALL: CONFIGS[SMALL]} if quick else CONFIGS
    bundles = {f"random {label}": random_bundle(config) for label, config in configs.items()}
    if not quick and TRAINED in {info.name for info in list_models()}:
        bundles[f"trained {TRAINED} (2×4, d=64)"] = load_model(TRAINED)
    return bundles


def main() -> None:
    args = arguments(__doc__).parse_args()
    lengths = [16] if args.quick else args.lengths
    header("Wire cost of one heads-page rerun (figure JSON as st.plotly_chart serializes it)")
    rows = []
    for label, bundle in sources(args.quick).items():
        for length in lengths:
            if length > bundle.config.max_len:
                continue
            trace = square_trace(bundle, length, seed=length)
            rows.append(row(label, length, heads_rerun(bundle, trace)))
            if label.startswith("random"):
                rows.append(row(label.replace("random", "noise"), length, heads_rerun(bundle, noise_trace(trace))))
    print_table(
        [
            "weights",
            "T",
            "grid weights",
            "drawn/weights",
            "grid JSON",
            "B/cell drawn",
            "worst grid B/cell",
            "B/weight",
            "head JSON (exact)",
            "head B/cell",
            "rerun JSON",
            "rerun wire",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
