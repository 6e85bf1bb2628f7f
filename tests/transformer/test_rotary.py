"""Rotary positions: a q·k score depends on the distance between the two tokens, not on where they stand."""

import torch

from transformer.rotary import apply_rotary, rotary_frequencies


def test_scores_depend_on_the_distance_only():
    torch.manual_seed(0)
    q, k = torch.randn(1, 1, 1, 16, dtype=torch.float64), torch.randn(1, 1, 1, 16, dtype=torch.float64)

    def score(m: int, n: int) -> float:
        return float((apply_rotary(q, m, 500.0) * apply_rotary(k, n, 500.0)).sum())

    assert abs(score(3, 7) - score(20, 24)) < 1e-9 and abs(score(0, 4) - score(3, 7)) < 1e-9
    assert abs(score(3, 7) - score(3, 8)) > 1e-3  # another distance, another score


def test_a_rotation_keeps_lengths_and_position_zero_is_no_rotation():
    x = torch.randn(2, 3, 5, 8, dtype=torch.float64)
    assert torch.allclose(apply_rotary(x, 0, 10000.0)[:, :, :1], x[:, :, :1])
    assert torch.allclose(apply_rotary(x, 9, 10000.0).norm(dim=-1), x.norm(dim=-1))


def test_frequencies_fall_geometrically_from_one_turn_a_radian():
    f = rotary_frequencies(8, 10000.0)
    assert torch.allclose(f, torch.tensor([1.0, 0.1, 0.01, 0.001], dtype=torch.float64))
