"""Shared fixtures for the transformer tests."""

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True, scope="module")
def _one_intra_op_thread() -> Iterator[None]:
    """Tiny matmuls on a shared 2-core machine: a second OpenMP worker only adds contention."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
