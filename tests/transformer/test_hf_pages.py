"""`transformer.hf.pages`: the conversion's copied weights give their pages back, and nothing else is touched."""

from __future__ import annotations

import mmap
import sys

import pytest
import torch

from transformer.hf.pages import copied_away, release_pages


def test_copied_away_names_only_the_weights_none_of_ours_uses() -> None:
    kept, copied, split = torch.ones(4, 4), torch.ones(8, 2), torch.ones(6, 4)
    ours = [kept.t(), split[2:4], torch.zeros(8, 2)]  # a transpose and a view keep theirs; the copy is new memory
    assert [t.data_ptr() for t in copied_away([kept, copied, split, copied], ours)] == [copied.data_ptr()]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="madvise(MADV_DONTNEED) as Linux defines it")
def test_release_pages_releases_whole_pages_inside_the_tensor_only() -> None:
    floats = mmap.PAGESIZE // 4
    whole = torch.full((8 * floats,), 7.0)  # anonymous memory: released pages read back as zeros
    offset = (-whole.data_ptr() // 4) % floats + 10  # start 10 floats past a page boundary
    inside = whole[offset : offset + 3 * floats]
    released = release_pages([inside])
    assert released == 2 * mmap.PAGESIZE  # the two whole pages inside; the partial ones at either end are kept
    zeros = (whole == 0).nonzero().flatten()
    first = offset + floats - 10  # the first page boundary inside the slice
    assert zeros.tolist() == list(range(first, first + 2 * floats))
