"""Fitted models keep their dual QPs without the quadratic matrix ``P``.

A fitted model used to keep every dual QP whole: ``pickle.dumps(SVMPlus()
.fit(...))`` was 1.9 MB at 240 rows and 29.7 MB at 960 (issue 26). It now
keeps what prediction and the documented attributes need (the training
rows of the expansions, the multipliers, the primal, the linear parts of
the QPs); ``P`` is rebuilt from the training data when read.
"""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from lupikit.datasets import make_lupi_classification
from lupikit.twinsvm import (PCAPrivilegedClassifier, PinballSVC, PinballTwinSVC,
                             PrivilegedPinballTwinSVC, PrivilegedTwinSVC, SVMPlus, TwinSVC)

ESTIMATORS = [
    SVMPlus(),
    PinballSVC(),
    TwinSVC(),
    PinballTwinSVC(),
    PrivilegedTwinSVC(),
    PrivilegedPinballTwinSVC(),
]

#: pickle size bound ``A + B * n_SV``: a fixed part (class names, kernel
#: specs, dict keys) and at most B bytes (60 float64) per training row kept in
#: an expansion. The dropped P alone is 8 * (2 n)^2 bytes for SVM+ (7.4 MB at
#: n = 480), far above the bound.
A_BYTES = 40_000
B_BYTES = 480


def _fit(est, n, n_classes=2):
    X, Xs, y = make_lupi_classification(n, n_classes=n_classes, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate planes etc. are not the point here
        return est.fit(X, y, privileged_features=Xs), X, Xs, y


def _n_support(est):
    """Training rows (over all binary models) with a nonzero coefficient in
    an expansion of the decision or correcting functions."""
    total = 0
    for m in est.models_:
        used = np.zeros(m.X.shape[0], dtype=bool)
        for p in m.primal:
            used |= p["coef"] != 0
            if "coef_privileged" in p:
                used |= p["coef_privileged"] != 0
        total += int(used.sum())
    return total


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_pickle_size_linear_in_support_vectors(est):
    sizes = {}
    for n in (120, 480):
        fitted, X, Xs, y = _fit(est, n)
        blob = pickle.dumps(fitted)
        n_sv = _n_support(fitted)
        assert 0 < n_sv <= n
        assert len(blob) <= A_BYTES + B_BYTES * n_sv, (n, n_sv, len(blob))
        sizes[n] = len(blob)
        loaded = pickle.loads(blob)
        np.testing.assert_array_equal(loaded.predict(X), fitted.predict(X))
        np.testing.assert_array_equal(loaded.decision_function(X), fitted.decision_function(X))
        # reading P does not put it into later pickles
        for qp in fitted.dual_problems_:
            assert qp["P"].shape == (qp["q"].size,) * 2
        assert len(pickle.dumps(fitted)) == len(blob)
    # four times the rows: at most about four times the bytes (P alone: 16 times)
    assert sizes[480] <= 4.5 * sizes[120]


def test_pickle_size_multiclass_and_wrapper():
    est, X, _, y = _fit(PrivilegedPinballTwinSVC(), 480, n_classes=3)
    blob = pickle.dumps(est)
    assert len(est.models_) == 3
    assert len(blob) <= 3 * A_BYTES + B_BYTES * _n_support(est)
    np.testing.assert_array_equal(pickle.loads(blob).predict(X), est.predict(X))
    wrapped = PCAPrivilegedClassifier(SVMPlus(), n_components=2).fit(X, y)
    blob = pickle.dumps(wrapped)
    assert len(blob) <= A_BYTES + B_BYTES * _n_support(wrapped.estimator_) + 20_000
    np.testing.assert_array_equal(pickle.loads(blob).predict(X), wrapped.predict(X))


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_rebuilt_dual_matrix_is_the_solved_one(est):
    # the rebuilt P gives back the optimum the solver reached with the
    # original one (to the last bits), before and after a pickle round trip
    fitted, *_ = _fit(est, 120)
    loaded = pickle.loads(pickle.dumps(fitted))
    for qp, qp2 in zip(fitted.dual_problems_, loaded.dual_problems_):
        assert "P" in qp and "P" not in dict(qp)  # not stored, yet readable
        obj = qp["objective"]
        assert qp.value(qp["x"]) == pytest.approx(obj, rel=1e-12, abs=1e-12)
        np.testing.assert_array_equal(qp2["P"], qp["P"])
        np.testing.assert_allclose(qp["P"], qp["P"].T)


def test_rebuilt_matrices_against_direct_formulas():
    # independent references: Pin-SVM's P = yy' o K and SVM+'s block matrix
    X, Xs, y = make_lupi_classification(100, random_state=3)
    s = 2.0 * y - 1.0
    K = rbf_kernel(X, gamma=1.0 / (X.shape[1] * X.var()))
    Ks = rbf_kernel(Xs, gamma=1.0 / (Xs.shape[1] * Xs.var()))
    (qp,) = PinballSVC().fit(X, y).dual_problems_
    np.testing.assert_allclose(qp["P"], np.outer(s, s) * K, rtol=1e-12, atol=1e-14)
    gam = 0.5
    (qp,) = SVMPlus(correction_weight=gam).fit(X, y, privileged_features=Xs).dual_problems_
    ref = np.block([[np.outer(s, s) * K + Ks / gam, Ks / gam], [Ks / gam, Ks / gam]])
    np.testing.assert_allclose(qp["P"], ref, rtol=1e-12, atol=1e-13)
    with pytest.raises(KeyError):
        qp["no such key"]
    with pytest.raises(AttributeError):
        qp.no_such_key
