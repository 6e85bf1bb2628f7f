"""A long run's records are written where the last long run's were, once nothing holds those any more
(`transformer.engine.record_memory`): never over a record something still reads, and with the numbers a run in fresh
memory records."""

from __future__ import annotations

import gc

import pytest
import torch

from transformer.activation_cache import as_numpy
from transformer.config import TransformerConfig
from transformer.engine import record_memory
from transformer.engine.recorded_decoding import decode_recording
from transformer.storage.registry import random_bundle

SHAPE = (2, 64, 64)
PROMPT = torch.tensor([[1, 8, 9, 10, 11, 12, 13]])  # (1, 7): <bos> and six letters
OTHER = torch.tensor([[1, 20, 21, 22, 23, 24, 25]])  # another prompt of PROMPT's length: rooms of its size


@pytest.fixture(autouse=True)
def _tiny_records_count(monkeypatch):
    """Nothing kept from other tests, and this file's tiny records count as long ones."""
    monkeypatch.setattr(record_memory, "_kept", [])
    monkeypatch.setattr(record_memory, "KEPT_BYTES", 0)


def test_memory_is_lent_again_only_once_nothing_uses_it():
    record = torch.empty(SHAPE)
    address = record.data_ptr()
    record_memory.keep([record])
    view = as_numpy(record[..., :10, :10])  # a figure's array of the record: the record is still read
    del record
    gc.collect()
    assert record_memory.lend(SHAPE, torch.float32).data_ptr() != address, "never written over while read"
    del view
    gc.collect()
    assert record_memory.lend(SHAPE, torch.float32).data_ptr() == address
    assert record_memory.kept_bytes() == 0  # lent: no longer kept


def test_each_free_record_of_the_shape_is_lent_once():
    record_memory.keep([torch.empty(SHAPE), torch.empty(SHAPE)])  # nothing else holds them
    first, second = (alias.data_ptr() for alias in record_memory._kept)
    assert record_memory.lend(SHAPE, torch.float32).data_ptr() == first
    assert record_memory.lend(SHAPE, torch.float32).data_ptr() == second


def test_free_memory_of_another_shape_or_dtype_is_let_go_before_a_run_allocates_its_own():
    held = torch.empty(SHAPE)  # the last trace, still on another session's page
    record_memory.keep([held, torch.empty(SHAPE)])
    lent = record_memory.lend(SHAPE, torch.float16)  # an exact run after a bfloat16 one, say: the free one goes
    assert lent.dtype == torch.float16 and lent.data_ptr() != held.data_ptr()
    assert [alias.data_ptr() for alias in record_memory._kept] == [held.data_ptr()]  # the held one is not ours


def test_only_large_records_are_kept_and_a_small_run_lets_them_go(monkeypatch):
    record_memory.keep([torch.empty(SHAPE)])
    assert record_memory.kept_bytes() == 4 * 64 * 64 * 2
    monkeypatch.setattr(record_memory, "KEPT_BYTES", 4 * 2**20)
    record_memory.keep([torch.empty(SHAPE)])  # a shipped model's records: not worth keeping, and the last go
    assert record_memory.kept_bytes() == 0


def _decode(prompt: torch.Tensor) -> dict[str, torch.Tensor]:
    config = TransformerConfig(architecture="decoder-only", n_layers=2, d_model=16, n_heads=2, d_ff=32, max_len=24)
    bundle = random_bundle(config, seed=11, symbols="abcdefghijklmnopqrstuvwxyz ")  # the same weights every time
    names = [n for n in bundle.model.hook_names if n.endswith("hook_pattern")]
    recorded = decode_recording(bundle.model, None, prompt, 9, names, None)
    assert recorded is not None
    return {name: recorded.cache[name] for name in names}


def test_a_run_in_the_last_runs_memory_records_what_a_run_in_fresh_memory_does(monkeypatch):
    lent: list[int] = []  # the address of each room the runs were lent
    real_lend = record_memory.lend
    monkeypatch.setattr(record_memory, "lend", lambda *a: lent.append((t := real_lend(*a)).data_ptr()) or t)
    first = _decode(PROMPT)
    snapshot = {name: t.clone() for name, t in first.items()}
    second = _decode(PROMPT)  # `first` is alive: fresh memory
    first_rooms, second_rooms = set(lent[: len(lent) // 2]), set(lent[len(lent) // 2 :])
    assert first_rooms and not first_rooms & second_rooms
    assert all(torch.equal(first[name], snapshot[name]) for name in first), "a live run's records are untouched"
    del first, second, snapshot
    gc.collect()
    lent.clear()
    third = _decode(OTHER)  # written over the second run's records, which nothing reads any more
    assert set(lent) == second_rooms
    monkeypatch.setattr(record_memory, "_kept", [])
    fresh = _decode(OTHER)
    for name in fresh:
        assert torch.equal(third[name], fresh[name]), name  # nothing of the last run's numbers shows through
