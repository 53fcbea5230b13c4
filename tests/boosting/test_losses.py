"""Finite-difference checks of the KL-regularised objective."""

import numpy as np
import pytest

from lupikit.boosting import (
    privileged_hessian,
    privileged_loss,
    privileged_negative_gradient,
    raw_to_proba,
)


def _random_problem(rng, n, K):
    k_cols = 1 if K == 2 else K
    raw = rng.normal(scale=2.0, size=(n, k_cols))
    y = rng.randint(0, K, size=n)
    Q = rng.dirichlet(np.ones(K), size=n)
    return raw, y, Q


def _fd_gradient(raw, y, Q, alpha, h=1e-6):
    """Central differences of each example's loss w.r.t. its raw scores."""
    grad = np.zeros_like(raw)
    for k in range(raw.shape[1]):
        e = np.zeros_like(raw)
        e[:, k] = h
        grad[:, k] = (privileged_loss(raw + e, y, Q, alpha)
                      - privileged_loss(raw - e, y, Q, alpha)) / (2 * h)
    return grad


@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("alpha", [0.0, 0.3, 2.0])
def test_negative_gradient_matches_finite_differences(K, alpha):
    rng = np.random.RandomState(K * 10 + int(alpha * 10))
    raw, y, Q = _random_problem(rng, 200, K)
    g = privileged_negative_gradient(raw, y, Q, alpha)
    fd = -_fd_gradient(raw, y, Q, alpha)
    rel = np.linalg.norm(g - fd) / np.linalg.norm(fd)
    assert rel < 1e-6


@pytest.mark.parametrize("K", [2, 4])
def test_hessian_diagonal_matches_finite_differences(K):
    rng = np.random.RandomState(7)
    raw, y, Q = _random_problem(rng, 100, K)
    alpha, h = 1.5, 1e-5
    H = privileged_hessian(raw, alpha)
    fd = np.zeros_like(raw)
    for k in range(raw.shape[1]):
        e = np.zeros_like(raw)
        e[:, k] = h
        gp = privileged_negative_gradient(raw + e, y, Q, alpha)[:, k]
        gm = privileged_negative_gradient(raw - e, y, Q, alpha)[:, k]
        fd[:, k] = -(gp - gm) / (2 * h)
    assert np.linalg.norm(H - fd) / np.linalg.norm(fd) < 1e-6


def test_closed_forms_binary():
    raw = np.array([0.3, -1.2])
    y = np.array([1, 0])
    q = np.array([0.9, 0.4])
    alpha = 0.7
    p = 1 / (1 + np.exp(-raw))
    nll = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    kl = q * np.log(q / p) + (1 - q) * np.log((1 - q) / (1 - p))
    np.testing.assert_allclose(privileged_loss(raw, y, q, alpha), nll + alpha * kl)
    np.testing.assert_allclose(
        privileged_negative_gradient(raw, y, q, alpha)[:, 0],
        (y - p) - alpha * (p - q),
    )
    np.testing.assert_allclose(privileged_hessian(raw, alpha)[:, 0],
                               (1 + alpha) * p * (1 - p))


def test_alpha_zero_is_plain_log_loss():
    rng = np.random.RandomState(0)
    raw, y, Q = _random_problem(rng, 50, 3)
    np.testing.assert_array_equal(privileged_loss(raw, y, Q, 0.0),
                                  privileged_loss(raw, y, None))
    np.testing.assert_array_equal(privileged_negative_gradient(raw, y, Q, 0.0),
                                  np.eye(3)[y] - raw_to_proba(raw))


def test_kl_is_soft_label_cross_entropy_up_to_constant():
    # NLL + a KL(q||p) = (1 + a) CE(t, p) + const(q), t = (Y + a q) / (1 + a)
    rng = np.random.RandomState(3)
    raw, y, Q = _random_problem(rng, 40, 3)
    a = 0.8
    Y = np.eye(3)[y]
    T = (Y + a * Q) / (1 + a)
    ce = privileged_loss(raw, T, None)
    const = a * (Q * np.log(Q)).sum(axis=1)
    np.testing.assert_allclose(privileged_loss(raw, y, Q, a), (1 + a) * ce + const)


def test_bad_shapes():
    with pytest.raises(ValueError, match="teacher_proba"):
        privileged_loss(np.zeros(3), [0, 1, 0], np.ones((3, 3)) / 3)
    with pytest.raises(ValueError, match="Y must have shape"):
        privileged_loss(np.zeros((3, 3)), np.ones((3, 2)))
