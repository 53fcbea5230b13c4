"""FERM: the cvxopt dual against the exact projection route, constraint checks."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils._param_validation import InvalidParameterError

from lupikit.oblivious import FERM


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, 2, n).astype(float)
    X = np.c_[rng.normal(size=n) + S, rng.normal(size=n)]
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=n) > 0.7).astype(int)
    return X, y, S


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_cvxopt_dual_equals_projection(kernel):
    X, y, S = _data()
    a = FERM(C=1.0, kernel=kernel, gamma=0.5, solver="cvxopt", tol=1e-9).fit(
        X, y, sensitive_features=S)
    b = FERM(C=1.0, kernel=kernel, gamma=0.5, solver="projection").fit(
        X, y, sensitive_features=S)
    fa, fb = a.decision_function(X), b.decision_function(X)
    np.testing.assert_allclose(fa, fb, atol=5e-3 * np.abs(fb).max())
    for clf, f in ((a, fa), (b, fb)):
        pos = y == 1
        # equal opportunity constraint on the training set: <w, u> = 0
        gap = f[pos & (S == 0)].mean() - f[pos & (S == 1)].mean()
        assert abs(gap) < 1e-5


def test_epsilon_constraint_active_and_relaxed():
    X, y, S = _data(100, seed=1)
    free = FERM(C=1.0, epsilon=1e6, solver="cvxopt", tol=1e-9).fit(X, y, sensitive_features=S)
    # a huge epsilon gives back the plain linear SVM (primal via the dual)
    from sklearn.svm import SVC

    svc = SVC(C=1.0, kernel="linear").fit(X, y)
    np.testing.assert_allclose(free.decision_function(X), svc.decision_function(X),
                               atol=1e-3 * np.abs(svc.decision_function(X)).max())
    eps = 0.05
    c = FERM(C=1.0, epsilon=eps, solver="cvxopt", tol=1e-9).fit(X, y, sensitive_features=S)
    w = X.T @ c.dual_coef_
    u = X[(y == 1) & (S == 0)].mean(axis=0) - X[(y == 1) & (S == 1)].mean(axis=0)
    assert abs(w @ u) <= eps + 1e-5
    w_free = X.T @ free.dual_coef_
    assert abs(w_free @ u) > eps  # the constraint binds for this data


def test_ferm_linear_projection_equals_feature_projection():
    # Donini et al.: for the linear kernel and eps = 0, FERM = SVM on the
    # features projected orthogonally to u
    from sklearn.svm import SVC

    X, y, S = _data(150, seed=2)
    u = X[(y == 1) & (S == 0)].mean(axis=0) - X[(y == 1) & (S == 1)].mean(axis=0)
    P = np.eye(2) - np.outer(u, u) / (u @ u)
    ref = SVC(C=0.7, kernel="linear").fit(X @ P, y)
    clf = FERM(C=0.7).fit(X, y, sensitive_features=S)
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X @ P),
                               atol=1e-6)
    assert rbf_kernel(X[:1], gamma=1.0)[0, 0] == 1.0


def test_ferm_bad_inputs():
    X, y, S = _data(60)
    with pytest.raises(ValueError, match="binary sensitive"):
        FERM().fit(X, y, sensitive_features=np.arange(60) % 3)
    with pytest.raises(InvalidParameterError, match="'solver' parameter"):
        FERM(solver="smo").fit(X, y, sensitive_features=S)
    with pytest.raises(InvalidParameterError, match="requires epsilon=0"):
        FERM(solver="projection", epsilon=0.1).fit(X, y, sensitive_features=S)
    with pytest.raises(ValueError, match="sensitive_features has 59 rows"):
        FERM().fit(X, y, sensitive_features=S[:-1])
    with pytest.raises(InvalidParameterError, match="'C' parameter"):
        FERM(C=-1).fit(X, y, sensitive_features=S)


@pytest.mark.parametrize("scale", [1e3, 1e4])
def test_projection_is_scale_equivariant_and_finishes_on_unscaled_features(scale):
    # FERM on s * X (linear kernel) is FERM on X with C s^2. An explicit
    # solver="projection" used libsvm whatever C k(x, x) was: on 1e3 * X it
    # took 2 s and stopped at a different solution than "auto"; on 1e4 * X it
    # would run for hours. It now falls back to cvxopt on the normalised
    # projected kernel like "auto" (a deterministic choice: qp_solver_)
    X, y, S = _data()
    big = FERM(solver="projection").fit(scale * X, y, sensitive_features=S)
    small = FERM(C=scale**2, solver="projection").fit(X, y, sensitive_features=S)
    auto = FERM().fit(scale * X, y, sensitive_features=S)
    assert big.qp_solver_ == small.qp_solver_ == auto.qp_solver_ == "cvxopt"
    f_big, f_small = big.decision_function(scale * X), small.decision_function(X)
    np.testing.assert_allclose(f_big, f_small, atol=1e-6 * np.abs(f_small).max())
    np.testing.assert_array_equal(big.predict(scale * X), small.predict(X))
    np.testing.assert_array_equal(big.predict(scale * X), auto.predict(scale * X))
    pos = y == 1
    assert abs(f_big[pos & (S == 0)].mean() - f_big[pos & (S == 1)].mean()) < 1e-5
    # and on a well-scaled X the explicit projection still uses libsvm
    assert FERM(solver="projection").fit(X, y, sensitive_features=S).qp_solver_ == "libsvm"
