"""The √d_k experiment measures what the theory says, from a live seeded sample."""

import numpy as np
import pytest

from viz.scaling import (
    D_K_OPTIONS,
    entropy,
    jacobian_norm,
    scaling_demo,
    softmax,
    softmax_figure,
    variance_curve,
    variance_figure,
)

N = 4000


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_variance_of_q_dot_k_is_d_k_within_sampling_error(seed):
    d_ks = (4, 64, 512)
    variances = variance_curve(d_ks, N, seed)
    for d_k, var in zip(d_ks, variances, strict=True):
        assert abs(var - d_k) < 5 * d_k * np.sqrt(2 / N), (d_k, var)


def test_the_sample_is_live_not_hard_coded():
    a, b = variance_curve((64,), 500, seed=0), variance_curve((64,), 500, seed=1)
    assert a[0] != b[0]
    np.testing.assert_array_equal(a, variance_curve((64,), 500, seed=0))  # but reproducible per seed


def test_scaled_softmax_stays_soft_while_unscaled_saturates():
    demo = scaling_demo(512, seed=0)
    assert demo.scaled.entropy_bits > demo.unscaled.entropy_bits + 1.0
    assert demo.unscaled.max_weight > 0.9 > demo.scaled.max_weight
    assert demo.unscaled.grad_norm < demo.scaled.grad_norm / 3


def test_at_d_k_one_scaling_changes_nothing():
    demo = scaling_demo(1, seed=5)
    assert demo.scaled == demo.unscaled


def test_demo_reports_the_chosen_d_k():
    demo = scaling_demo(64, seed=0, n_samples=1000)
    assert demo.d_ks == D_K_OPTIONS and demo.variances.shape == (len(D_K_OPTIONS),)
    assert demo.variance == demo.variances[D_K_OPTIONS.index(64)]
    assert scaling_demo(48, seed=0, n_samples=200).d_ks.count(48) == 1  # an off-grid d_k is added


def test_entropy_and_gradient_limits():
    uniform, onehot = np.full(8, 1 / 8), np.eye(8)[3]
    assert entropy(uniform) == pytest.approx(3.0)
    assert entropy(onehot) == 0.0 and jacobian_norm(onehot) == pytest.approx(0.0)
    assert jacobian_norm(uniform) > 0.3
    np.testing.assert_allclose(softmax(np.array([1000.0, 0.0])), [1.0, 0.0])  # no overflow


def test_figures_carry_the_sample():
    demo = scaling_demo(256, seed=2, n_samples=500)
    fig = variance_figure(demo)
    np.testing.assert_allclose(np.asarray(fig.data[1].y), demo.variances)
    bars = softmax_figure(demo)
    assert len(bars.data) == 2 and max(bars.data[0].y) > max(bars.data[1].y)
