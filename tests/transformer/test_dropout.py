"""Dropout is the identity outside training and still drops (and rescales) in training."""

from __future__ import annotations

import torch

from transformer.dropout import Dropout


def test_dropout_hands_its_input_back_outside_training() -> None:
    dropout = Dropout(0.5).eval()
    x = torch.randn(4, 8)
    assert dropout(x) is x


def test_dropout_drops_in_training() -> None:
    torch.manual_seed(0)
    dropout = Dropout(0.5).train()
    y = dropout(torch.ones(1000))
    assert 300 < int((y == 0).sum()) < 700  # about half dropped
    assert set(y.unique().tolist()) == {0.0, 2.0}  # the rest scaled by 1 / (1 - p)
    assert Dropout(0.0).train()(y) is y
