"""Hyperparameter validation of Part III, and inputs the LP solver cannot take.

Every bad hyperparameter raises scikit-learn's ``InvalidParameterError`` (a
``ValueError``) naming the parameter, NaN and infinity included; grids are
checked to be non-empty lists of finite positive numbers. Features out of the
LP solver's range are named as such (never reported as an infeasible LP), and
a scale at which its tolerances decide the relevance classes gives a warning.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation

from lupikit.datasets import make_lupi_ordinal, make_ordinal_relevance
from lupikit.relevance import (
    FeatureRelevanceBounds,
    LinearProgramError,
    OrdinalRegressionLP,
    select_C,
    select_C_gamma,
    solve_lp,
)

FRB = FeatureRelevanceBounds


@pytest.fixture(scope="module")
def data():
    return make_ordinal_relevance(n_samples=150, n_strong=2, n_weak=2, n_irrelevant=3,
                                  random_state=0)


@pytest.fixture(scope="module")
def small():
    X, y, _ = make_ordinal_relevance(n_samples=40, n_bins=3, random_state=0)
    return X, y


#: The numeric hyperparameters, and those for which a negative value is valid.
NUMERIC = {
    OrdinalRegressionLP: ["C", "gamma"],
    FRB: ["C", "delta", "n_permutations", "p", "gamma", "cv", "n_jobs"],
}
NEGATIVE_IS_VALID = {"n_jobs"}  # -1: all cores


def _bad_values(param):
    return [np.nan, np.inf, -np.inf, "1", 0 if param in NEGATIVE_IS_VALID else -1]


CASES = [(cls, param, bad) for cls, params in NUMERIC.items() for param in params
         for bad in _bad_values(param)]


@pytest.mark.parametrize("cls, param, bad", CASES,
                         ids=[f"{c.__name__}-{p}-{b!r}" for c, p, b in CASES])
def test_bad_numeric_hyperparameter_is_named(small, cls, param, bad):
    X, y = small
    est = cls().set_params(**{param: bad})
    match = f"'{param}' parameter of {cls.__name__} must be"
    with pytest.raises(InvalidParameterError, match=match):
        est.fit(X, y)


@pytest.mark.parametrize("cls", [OrdinalRegressionLP, FRB])
def test_sklearn_check_param_validation(cls):
    # every parameter has a constraint, and a bad type or value of each is named
    check_param_validation(cls.__name__, cls())


GRIDS = [[], [np.nan], [1.0, np.inf], [0.1, -1.0], [0.0], ["a"], [[0.1, 1.0]], "0.1"]


@pytest.mark.parametrize("grid", GRIDS, ids=[repr(g) for g in GRIDS])
@pytest.mark.parametrize("name", ["C_grid", "gamma_grid"])
def test_bad_grid_is_named(small, grid, name):
    # was: C_grid=[] failed in min() ("min() arg is an empty sequence"), NaN was solved
    X, y = small
    Xs = X[:, :2] ** 2
    with pytest.raises(InvalidParameterError, match=name):
        FRB(**{name: grid}, n_permutations=2, cv=2).fit(X, y, privileged_features=Xs)


@pytest.mark.parametrize("grid", GRIDS[:5], ids=[repr(g) for g in GRIDS[:5]])
def test_bad_grid_of_the_selection_functions_is_named(small, grid):
    X, y = small
    Xs = X[:, :2] ** 2
    with pytest.raises(InvalidParameterError, match="C_grid"):
        select_C(X, y, C_grid=grid, cv=2)
    with pytest.raises(InvalidParameterError, match="gamma_grid"):
        select_C_gamma(X, y, Xs, gamma_grid=grid, cv=2)


@pytest.mark.parametrize("kwargs, name", [
    (dict(gamma=np.nan), "gamma"),
    (dict(cv=1), "cv"),
    (dict(constraints="both"), "constraints"),
    (dict(solver="simplex"), "solver"),
    (dict(n_jobs=0), "n_jobs"),
])
def test_bad_parameters_of_select_C_are_named(small, kwargs, name):
    X, y = small
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of select_C must be"):
        select_C(X, y, C_grid=[1.0], **kwargs)


def test_valid_grids_are_used_as_given(small):
    X, y = small
    frb = FRB(C_grid=np.array([0.5, 2.0]), n_permutations=2, cv=2, random_state=0).fit(X, y)
    assert frb.C_ in (0.5, 2.0) and frb.cv_scores_.shape == (2,)
    C, scores = select_C(X, y, C_grid=(0.5, 2), cv=2, random_state=0)
    assert isinstance(C, float) and scores.shape == (2,)


# ------------------------------------------------------- the LP solver's range
@pytest.mark.parametrize("scale", [1e15, 1e30])
def test_features_out_of_the_solvers_range_are_named_not_infeasible(small, scale):
    # was: "The ordinal regression LP is infeasible" for what HiGHS rejected as a
    # model error (matrix coefficients of 1e15 or more)
    X, y = small
    for est in (OrdinalRegressionLP(), FRB(C=1.0, n_permutations=2)):
        with pytest.raises(ValueError, match="X has values of magnitude .* out of the range "
                           "of the LP solver") as info:
            est.fit(X * scale, y)
        assert "infeasible" not in str(info.value)
        assert not isinstance(info.value, LinearProgramError)
        with pytest.raises(ValueError, match="privileged_features has values of magnitude"):
            est.fit(X, y, privileged_features=X[:, :2] * scale)


def test_a_model_error_is_never_reported_as_infeasible():
    A = sp.csc_array(np.array([[1e16, 2.0]]))  # HiGHS rejects the coefficient
    with pytest.raises(LinearProgramError, match="model error") as info:
        solve_lp(np.array([-1.0, -1.0]), A, np.array([4.0]), np.array([[0, np.inf], [0, 1.0]]))
    assert info.value.status == 4
    assert "infeasible" not in str(info.value)


def test_large_but_accepted_scale_still_fits(small):
    X, y = small
    m = OrdinalRegressionLP().fit(X * 1e12, y)
    assert np.isfinite(m.objective_) and m.score(X * 1e12, y) > 0.5


# ------------------------------------------------- the LP solver's tolerances
def _tolerance_warnings(record):
    return [w for w in record if "tolerances" in str(w.message)]


def test_scale_beyond_the_solvers_tolerances_warns(data):
    # was: X * 1e12 gave other relevance classes without a warning (or failed inside
    # the dual search with "'NoneType' object is not subscriptable")
    X, y, _ = data
    with pytest.warns(UserWarning, match="outside what the LP solver's tolerances .* handle"
                      ".*Standardise the features"):
        frb = FRB(C=1.0, n_permutations=20, random_state=0).fit(X * 1e12, y)
    assert frb.relevance_classes_.shape == (X.shape[1],)


@pytest.mark.parametrize("scale, C", [(1.0, 1.0), (100.0, 1.0), (1.0, 100.0), (1e-1, 1.0)])
def test_moderate_scales_do_not_warn(data, scale, C):
    X, y, _ = data
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        FRB(C=C, n_permutations=10, random_state=0).fit(X * scale, y)
    assert not _tolerance_warnings(record)


def test_large_C_beyond_the_solvers_tolerances_warns(data):
    # the same problem as a large scale: the L1 penalty vanishes next to the loss
    X, y, _ = data
    with pytest.warns(UserWarning, match="C=1e\\+08 is outside what the LP solver's"):
        FRB(C=1e8, n_permutations=10, random_state=0).fit(X, y)


def test_lupi_scale_beyond_the_solvers_tolerances_warns():
    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=90, random_state=0)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        FRB(C=1.0, gamma=1.0, n_permutations=5, random_state=0).fit(
            X, y, privileged_features=Xs)
    assert not _tolerance_warnings(record)
    # a separable problem: the objective is the penalty alone, and vanishes with 1 / scale
    with pytest.warns(UserWarning, match="tolerances"):
        FRB(C=1.0, gamma=1.0, n_permutations=5, random_state=0).fit(
            X * 1e10, y, privileged_features=Xs)
