"""The corpus pages' benchmark runs with `--quick` and prints its Markdown tables (never a timing assertion)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_atlas_benchmark_runs_quick():
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.atlas", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    for table in ("### Precompute", "### Opening the page", "### The map of queries and keys"):
        assert table in result.stdout
    assert "| induction | 4 |" in result.stdout
