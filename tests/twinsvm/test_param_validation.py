"""Hyperparameter validation of the twin SVMs: scikit-learn's ``_parameter_constraints``.

Every bad hyperparameter raises
:class:`~sklearn.utils._param_validation.InvalidParameterError` naming the
parameter when ``fit`` is called, before any solver runs (NaN and infinity
included); a kernel callable's output is checked where it is used.
"""

import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation

from lupikit.twinsvm import (
    PCAPrivileged,
    PCAPrivilegedClassifier,
    PinballSVC,
    PinballTwinSVC,
    PrivilegedPinballTwinSVC,
    PrivilegedTwinSVC,
    SVMPlus,
    TwinSVC,
)

TWINS = [TwinSVC, PinballTwinSVC, PrivilegedTwinSVC, PrivilegedPinballTwinSVC]
SINGLE_PLANE = [PinballSVC, SVMPlus]
PRIVILEGED = [PrivilegedTwinSVC, PrivilegedPinballTwinSVC, SVMPlus]

ESTIMATORS = [
    TwinSVC(),
    PinballTwinSVC(),
    PrivilegedTwinSVC(),
    PrivilegedPinballTwinSVC(),
    PinballSVC(),
    SVMPlus(),
    PCAPrivileged(),
    PCAPrivilegedClassifier(PrivilegedTwinSVC()),
]

#: the numeric hyperparameters of this part
NUMERIC = ("C1", "C2", "C", "tau", "reg", "correction_weight", "gamma", "privileged_gamma",
           "degree", "coef0", "tol", "max_iter", "n_components")
#: bad values: NaN, infinity, a negative number, a string
BAD_VALUES = {"nan": np.nan, "inf": np.inf, "negative": -1.0, "string": "bad"}
#: (parameter, kind of bad value) pairs where that value is in fact valid
VALID = {("coef0", "negative")}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=40, n_features=4, random_state=0)
    Xs = X[:, :2] + 0.1
    return X, y, Xs


def _fit(est, data):
    X, y, Xs = data
    inner = getattr(est, "estimator", est)
    if isinstance(est, PCAPrivilegedClassifier):
        return est.fit(X, y)
    if isinstance(est, PCAPrivileged):
        return est.fit(X)
    kw = {"privileged_features": Xs} if type(inner) in PRIVILEGED else {}
    return est.fit(X, y, **kw)


def _raises_naming(name):
    return pytest.raises(InvalidParameterError, match=re.escape(f"'{name}' parameter"))


def _cases():
    for est in ESTIMATORS:
        for name in NUMERIC:
            if name not in est.get_params(deep=False):
                continue
            for kind, value in BAD_VALUES.items():
                if (name, kind) in VALID:
                    continue
                yield pytest.param(est, name, value,
                                   id=f"{type(est).__name__}-{name}-{kind}")


@pytest.mark.parametrize("est, name, value", list(_cases()))
def test_bad_numeric_hyperparameter_raises_invalid_parameter_error(data, est, name, value):
    est = clone(est).set_params(**{name: value})
    with _raises_naming(name):
        _fit(est, data)


@pytest.mark.parametrize("cls", TWINS + SINGLE_PLANE)
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 0.0])
def test_gamma_nan_inf_is_rejected(data, cls, value):
    # the twin SVMs used to run 100 000 SMO iterations with a NaN kernel and
    # predict one class; SVM+ and Pin-SVM failed inside linprog
    with _raises_naming("gamma"):
        _fit(cls(gamma=value), data)
    if cls in PRIVILEGED:
        with _raises_naming("privileged_gamma"):
            _fit(cls(privileged_gamma=value), data)


@pytest.mark.parametrize("cls", TWINS + SINGLE_PLANE)
def test_degree_coef0_tol_are_validated(data, cls):
    for value in (-1, 2.5, np.nan, "3", None):
        with _raises_naming("degree"):
            _fit(cls(degree=value), data)
    for value in (np.nan, np.inf, -np.inf, "1"):
        with _raises_naming("coef0"):
            _fit(cls(coef0=value), data)
    for value in (-1e-6, 0.0, np.nan, np.inf, "1e-6"):
        with _raises_naming("tol"):
            _fit(cls(tol=value), data)
    for value in (0, -1, 1.5, np.inf):
        with _raises_naming("max_iter"):
            _fit(cls(max_iter=value), data)


# degree 0 makes the kernel constant: the twin planes collapse (and say so)
@pytest.mark.filterwarnings("ignore::lupikit.twinsvm.DegeneratePlaneWarning")
@pytest.mark.parametrize("cls", TWINS + SINGLE_PLANE)
def test_valid_edge_values_are_accepted(data, cls):
    # coef0 may be negative (a PSD kernel only with degree 0), gamma may be a
    # number or a rule, max_iter None
    _fit(cls(kernel="poly", degree=0, coef0=-1.0, gamma="auto", max_iter=None), data)
    _fit(cls(kernel="poly", degree=2, coef0=0.5, gamma=0.5, tol=1e-3), data)


def test_wrapped_estimator_hyperparameters_are_validated(data):
    # the wrapper validates the wrapped estimator's hyperparameters as well
    with _raises_naming("gamma"):
        _fit(PCAPrivilegedClassifier(PrivilegedTwinSVC(gamma=np.nan)), data)
    with _raises_naming("estimator"):
        _fit(PCAPrivilegedClassifier("PrivilegedTwinSVC"), data)


@pytest.mark.parametrize("cls", [TwinSVC, PrivilegedTwinSVC, SVMPlus, PinballSVC])
def test_kernel_callable_output_is_checked(data, cls):
    # a callable returning the wrong shape failed inside LAPACK; one
    # returning NaN ran 100 000 SMO iterations and predicted one class
    wrong_shape = lambda A, B: np.ones((A.shape[0], 2))  # noqa: E731
    not_finite = lambda A, B: np.full((A.shape[0], B.shape[0]), np.nan)  # noqa: E731
    with pytest.raises(ValueError, match=r"kernel returned an array of shape \(40, 2\)"):
        _fit(cls(kernel=wrong_shape), data)
    with pytest.raises(ValueError, match="kernel returned non-finite values"):
        _fit(cls(kernel=not_finite), data)
    if cls in PRIVILEGED:
        with pytest.raises(ValueError, match="privileged_kernel returned non-finite"):
            _fit(cls(kernel="linear", privileged_kernel=not_finite), data)
    # a valid callable gives the model of the named kernel
    X, _, _ = data
    linear = lambda A, B: A @ B.T  # noqa: E731
    a = _fit(cls(kernel=linear), data).decision_function(X)
    b = _fit(cls(kernel="linear"), data).decision_function(X)
    np.testing.assert_allclose(a, b, atol=1e-8)


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_sklearn_check_param_validation(est):
    # every parameter has a constraint, and invalid types and values raise
    # InvalidParameterError in fit (scikit-learn's own check of its estimators)
    check_param_validation(type(est).__name__, est)
