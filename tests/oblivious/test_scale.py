"""Badly scaled inputs: ObliviousRidge and ObliviousSVC finish (found by the property tests).

A column in the thousands makes the kernel's scale huge: the ridge system
``O + alpha I`` with a small ``alpha`` was numerically singular (Cholesky raised
``LinAlgError``), and libsvm's SMO needed about ``C * k(x, x)`` iterations
(minutes to hours).
"""

import warnings

import numpy as np
import pytest
from scipy import linalg
from sklearn.exceptions import ConvergenceWarning

import lupikit.oblivious._estimators as est_module
from lupikit.oblivious import ObliviousRidge, ObliviousSVC


def _badly_scaled(n=20, seed=0):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, 2, n).astype(float)
    X = rng.normal(size=(n, 3)) + S[:, None]
    X[:, 1] *= 3e3
    y = X[:, 0] + S + rng.normal(size=n)
    return X, S, y


def test_ridge_with_alpha_below_the_gram_rounding_error():
    # was: numpy.linalg.LinAlgError "A singular matrix detected" (found by
    # test_properties.py::test_oblivious_ridge_fits_or_raises_documented_error)
    X, S, y = _badly_scaled()
    m = ObliviousRidge(kernel="poly", gamma="auto", degree=3, alpha=1e-3,
                       estimation_fraction=1.0)
    with pytest.warns(linalg.LinAlgWarning, match="numerically singular"):
        m.fit(X, y, sensitive_features=S)
    pred = m.predict(X, sensitive_features=S)
    assert np.all(np.isfinite(pred))
    # a backward-stable solution of (O + alpha I) a = y (the dual coefficients
    # themselves are not determined better than that at this conditioning)
    O = m.kernel_.gram(X, S)
    a = m.dual_coef_
    residual = np.abs(O @ a + 1e-3 * a - y).max()
    assert residual <= 1e-10 * (np.abs(O).max() * np.abs(a).sum() + np.abs(y).max())
    # several targets at once, too (one eigendecomposition, column by column)
    m2 = ObliviousRidge(kernel="poly", gamma="auto", degree=3, alpha=1e-3,
                        estimation_fraction=1.0)
    with pytest.warns(linalg.LinAlgWarning):
        m2.fit(X, np.c_[y, 2 * y], sensitive_features=S)
    np.testing.assert_allclose(m2.dual_coef_[:, 1], 2 * m2.dual_coef_[:, 0], rtol=1e-12,
                               atol=0)


def test_ridge_well_conditioned_unchanged_and_silent():
    X, S, y = _badly_scaled()
    X[:, 1] /= 3e3
    m = ObliviousRidge(alpha=1.0, gamma=1.0, estimation_fraction=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.fit(X, y, sensitive_features=S)
    O = m.kernel_.gram(X, S)
    np.testing.assert_allclose(m.dual_coef_, np.linalg.solve(O + np.eye(len(y)), y), rtol=1e-10)


def test_svc_smo_is_bounded_with_a_convergence_warning(monkeypatch):
    # was: 3e8 SMO iterations (70 s) for a linear kernel with one column x 1e3 and
    # 200 rows, hours for a polynomial one; now at most max(10**7, 100 n) iterations
    X, S, y = _badly_scaled(200)
    y = (y > np.median(y)).astype(int)
    Xs = X / np.array([1.0, 3e3, 1.0])
    clf = ObliviousSVC(kernel="linear", random_state=0).fit(Xs, y, sensitive_features=S)
    assert clf.svc_.max_iter == 10**7 and clf.svc_.fit_status_ == 0
    monkeypatch.setattr(est_module, "_smo_max_iter", lambda n: 1000)
    with pytest.warns(ConvergenceWarning, match="max_iter=1000"):
        clf = ObliviousSVC(kernel="linear", random_state=0).fit(X, y, sensitive_features=S)
    assert set(clf.predict(X, sensitive_features=S)) <= {0, 1}
