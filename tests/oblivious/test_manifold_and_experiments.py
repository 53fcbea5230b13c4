"""Manifold projection (Appendix E.3), data generators, beta-dependence."""

import numpy as np
import pytest

from lupikit.datasets import make_oblivious_regression, make_student_grades
from lupikit.metrics import beta_dependence
from lupikit.oblivious import ObliviousKernel, manifold_distance, manifold_projection
from lupikit.oblivious.experiments import best_constant_mse, embedding_error


def test_projection_linear_kernel_brute_force():
    # linear kernel on R^2: phi(x) = x, Z is explicit, the projection onto a
    # candidate set is the nearest candidate in Euclidean distance
    rng = np.random.default_rng(0)
    Se = rng.integers(0, 2, 80).astype(float)
    Xe = rng.normal(size=(80, 2)) + Se[:, None]
    ok = ObliviousKernel(kernel="linear").fit(Xe, Se)
    X = rng.normal(size=(15, 2))
    S = rng.integers(0, 2, 15).astype(float)
    Z = np.array([x - Xe[Se == s].mean(0) + Xe.mean(0) for x, s in zip(X, S)])
    cand = rng.normal(size=(300, 2)) * 2
    shift_pts, shift_w = rng.normal(size=(2, 2)), np.array([0.5, -0.2])
    h = shift_w @ shift_pts
    for shift, hv in ((None, 0.0), ((shift_pts, shift_w), h)):
        W, d = manifold_projection(ok, X, S, cand, shift=shift)
        D = np.linalg.norm((Z + hv)[:, None, :] - cand[None, :, :], axis=2)
        np.testing.assert_allclose(d, D.min(axis=1), atol=1e-7)
        np.testing.assert_array_equal(W, cand[D.argmin(axis=1)])
        assert manifold_distance(ok, X, S, cand, shift=shift) == pytest.approx(D.min(1).mean())


def test_distance_zero_when_independent_single_cell():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 1))
    S = np.zeros(40)
    ok = ObliviousKernel(gamma=1.0).fit(X, S)
    assert manifold_distance(ok, X[:10], S[:10], X[:10]) < 1e-6


def test_best_constant_mse_monte_carlo():
    X, S, y = make_oblivious_regression(400_000, 0.0, experiment=1, random_state=0)
    assert np.var(y) == pytest.approx(best_constant_mse(1), rel=0.01)
    X, S, y = make_oblivious_regression(400_000, 0.0, experiment=2, random_state=0)
    assert np.var(y) == pytest.approx(best_constant_mse(2), rel=0.01)


def test_student_grades_and_beta_dependence():
    X, S, y, yt = make_student_grades(4000, random_state=0)
    assert set(np.unique(S)) == {0.0, 1.0}
    assert X.min() >= 0.0 and X.max() <= 5.0
    # observed labels depend on S much more than the fair ones
    assert beta_dependence(y, S) > 2 * beta_dependence(yt, S)
    # beta_dependence against a brute-force loop of Eq. (14)
    rng = np.random.default_rng(2)
    yp = rng.integers(0, 2, 300)
    s = rng.integers(0, 3, 300)
    ref = 0.0
    for a in np.unique(yp):
        for b in np.unique(s):
            ref += abs(np.mean((yp == a) & (s == b)) - np.mean(yp == a) * np.mean(s == b))
    assert beta_dependence(yp, s) == pytest.approx(ref / 2)


def test_embedding_error_closed_form_terms():
    # the closed-form Gaussian convolution used by embedding_error, checked by
    # Monte Carlo: E k(x, m + U) with U ~ N(0, tau^2), k = exp(-g (x-y)^2)
    rng = np.random.default_rng(3)
    g, tau, x, m = 1.0, 0.5, 0.3, 1.1
    U = rng.normal(scale=tau, size=2_000_000)
    mc = np.exp(-g * (x - m - U) ** 2).mean()
    cf = (1 + 2 * g * tau**2) ** -0.5 * np.exp(-g * (x - m) ** 2 / (1 + 2 * g * tau**2))
    assert mc == pytest.approx(cf, rel=2e-3)
    U2 = rng.normal(scale=tau, size=2_000_000)
    assert np.exp(-g * (U - U2) ** 2).mean() == pytest.approx(
        (1 + 4 * g * tau**2) ** -0.5, rel=2e-3)
    # the error decreases with n for finite and continuous S
    assert embedding_error(4000, random_state=0) < embedding_error(100, random_state=0)
    assert embedding_error(4000, s_dim=1, random_state=0) < embedding_error(
        100, s_dim=1, random_state=0)


def test_fairness_metrics_brute_force():
    from lupikit.metrics import demographic_parity_difference, deo

    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 500)
    p = rng.integers(0, 2, 500)
    s = rng.integers(0, 2, 500)
    tpr = [np.sum((p == 1) & (y == 1) & (s == g)) / np.sum((y == 1) & (s == g)) for g in (0, 1)]
    assert deo(y, p, s) == pytest.approx(abs(tpr[0] - tpr[1]))
    rate = [np.sum((p == 1) & (s == g)) / np.sum(s == g) for g in (0, 1)]
    assert demographic_parity_difference(p, s) == pytest.approx(abs(rate[0] - rate[1]))
