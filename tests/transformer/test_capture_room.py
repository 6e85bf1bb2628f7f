"""Recording with room (`capture(room=)`): a long prompt's decoder self-attention rows are kept at the start of a
tensor as large as the run can grow, the later decoding steps' rows are written into it (`step_capture.stitch`),
and nothing is copied: the same numbers, bit for bit, as recording without room and putting the pieces together."""

from __future__ import annotations

import pytest
import torch

import transformer.engine.recorded_decoding as recorded_decoding
from hook_names import act_name
from transformer.config import TransformerConfig
from transformer.engine.recorded_decoding import decode_recording
from transformer.engine.records import capture
from transformer.engine.step_capture import stitch
from transformer.storage.registry import random_bundle


def _bundle():
    config = TransformerConfig(architecture="decoder-only", n_layers=2, d_model=32, n_heads=4, d_ff=64, max_len=40)
    return random_bundle(config, seed=7, symbols="abcdefghijklmnopqrstuvwxyz ")


PROMPT = torch.tensor([[1, 5, 6, 7, 8, 9, 10]])  # (1, 7)


def test_a_record_with_room_is_the_start_of_a_larger_tensor_with_the_same_numbers():
    bundle = _bundle()
    name, other = act_name("decoder", 1, "pattern"), act_name("decoder", 0, "pattern")
    with torch.no_grad(), capture(bundle.model, [name, other]) as plain:
        bundle.model(None, PROMPT)
    with torch.no_grad(), capture(bundle.model, [name, other], room={name: 20}) as roomy:
        bundle.model(None, PROMPT)
    base = roomy.rooms[name]
    assert base.shape == (1, 4, 20, 20) and roomy[name].shape == (1, 4, 7, 7)
    assert roomy[name].data_ptr() == base.data_ptr()  # the record is the start of the room, not a copy of it
    assert torch.equal(roomy[name], plain[name]) and torch.equal(roomy[other], plain[other])
    assert other not in roomy.rooms  # a name without room is recorded as it always was


def test_no_room_is_made_where_the_tensor_would_not_fit_or_nothing_records_it():
    bundle = _bundle()
    name = act_name("decoder", 0, "pattern")
    with torch.no_grad(), capture(bundle.model, [name], room={name: 5}) as small:  # 7 positions do not fit in 5
        bundle.model(None, PROMPT)
    assert small.rooms == {} and small[name].shape == (1, 4, 7, 7)
    with torch.no_grad(), capture(bundle.model, [], room={name: 20}) as unrecorded:
        bundle.model(None, PROMPT)
    assert unrecorded.rooms == {} and name not in unrecorded


@pytest.mark.parametrize("total", [6, 4])
def test_stitch_writes_later_rows_into_the_room_and_copies_down_a_room_the_run_did_not_fill(total):
    name = act_name("decoder", 0, "pattern")
    room = torch.full((1, 2, 6, 6), -1.0)
    first = room[..., :3, :3]
    first.copy_(torch.arange(18.0).reshape(1, 2, 3, 3))
    later = [torch.full((1, 2, 1, 3 + i + 1), 100.0 + i) for i in range(total - 3)]  # one row per step, one more key
    steps = [{name: first}, *({name: row} for row in later)]
    whole = stitch(steps, total, lambda n, ndim: ndim - 2, rooms={name: room})[name]
    assert whole.shape == (1, 2, total, total) and whole.is_contiguous()
    assert torch.equal(whole[..., :3, :3], torch.arange(18.0).reshape(1, 2, 3, 3))
    assert torch.all(whole[..., :3, 3:] == 0)  # keys that did not exist yet when the prompt was read: no weight
    for i, row in enumerate(later):
        assert torch.equal(whole[..., 3 + i, : 4 + i], row[..., 0, :])
        assert torch.all(whole[..., 3 + i, 4 + i :] == 0)
    assert (whole.data_ptr() == room.data_ptr()) == (total == 6)  # a full room is the result itself, not a copy


def test_decoding_with_room_records_what_decoding_without_it_does(monkeypatch):
    bundle = _bundle()
    names = [n for n in bundle.model.hook_names if n.endswith(("hook_pattern", "hook_mask", "hook_scores"))]
    given: list[int] = []
    real_stitch = recorded_decoding.stitch
    monkeypatch.setattr(recorded_decoding, "stitch", lambda *a: given.append(len(a[3])) or real_stitch(*a))
    with_room = decode_recording(bundle.model, None, PROMPT, 9, names, None)
    assert given == [len(names)]  # every decoder self-attention record of the prompt was made in its room
    monkeypatch.setattr(recorded_decoding, "ATTENTION_SHAPED", ())  # no name gets room
    without = decode_recording(bundle.model, None, PROMPT, 9, names, None)
    assert with_room is not None and without is not None
    assert torch.equal(with_room.tgt_in, without.tgt_in)
    for name in names:
        assert torch.equal(with_room.cache[name], without.cache[name]), name
        assert with_room.cache[name].is_contiguous()
