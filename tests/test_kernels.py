import numpy as np
import pytest

from lupikit.kernels import check_kernel, kernel_matrix, resolve_gamma


def test_rbf_matches_closed_form():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    K = kernel_matrix(X, Y, kernel="rbf", gamma=0.7)
    ref = np.array([[np.exp(-0.7 * np.sum((x - y) ** 2)) for y in Y] for x in X])
    np.testing.assert_allclose(K, ref, rtol=1e-12)


def test_linear_and_poly_closed_form():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6, 2))
    np.testing.assert_allclose(kernel_matrix(X, kernel="linear"), X @ X.T)
    K = kernel_matrix(X, kernel="poly", gamma=0.5, degree=2, coef0=1.0)
    np.testing.assert_allclose(K, (0.5 * X @ X.T + 1.0) ** 2)


def test_callable_kernel():
    X = np.arange(6.0).reshape(3, 2)
    K = kernel_matrix(X, kernel=lambda A, B: A @ B.T + 1)
    np.testing.assert_allclose(K, X @ X.T + 1)


def test_unknown_kernel_is_clear():
    with pytest.raises(ValueError, match=r"kernel='banana' is not a known kernel"):
        check_kernel("banana")


def test_resolve_gamma_like_svc():
    X = np.random.default_rng(2).normal(size=(50, 4))
    assert resolve_gamma("scale", X) == pytest.approx(1.0 / (4 * X.var()))
    assert resolve_gamma("auto", X) == 0.25
    assert resolve_gamma(2.0, X) == 2.0
    for bad in (0, -1.0, "wide", True):
        with pytest.raises(ValueError, match="gamma"):
            resolve_gamma(bad, X)


def test_gamma_scale_agrees_with_sklearn_svc():
    from sklearn.svm import SVC

    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 2, 40)
    svc = SVC(kernel="rbf", gamma="scale").fit(X, y)
    assert resolve_gamma("scale", X) == pytest.approx(svc._gamma)
