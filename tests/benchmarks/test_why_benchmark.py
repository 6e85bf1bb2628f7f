"""`python -m benchmarks.why --quick` runs and prints its table (never a timing assertion)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_why_benchmark_prints_its_table() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.why", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "| en-zh (example pair) |" in result.stdout and "naive sweep s" in result.stdout
