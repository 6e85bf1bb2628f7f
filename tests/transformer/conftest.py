"""Shared fixtures for the transformer tests."""

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True, scope="module")
def _one_intra_op_thread() -> Iterator[None]:
    """Tiny matmuls on a shared 2-core machine: a second OpenMP worker only adds contention (and in
    test_concurrency, 10 threads × 2 OpenMP workers on 2 cores spin against each other: 5× slower).
    (The app caps OpenMP threads too: OMP_NUM_THREADS in app.py.)"""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
