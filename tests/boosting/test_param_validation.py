"""Hyperparameter validation of Part I: scikit-learn's ``_parameter_constraints``.

Every bad hyperparameter raises scikit-learn's ``InvalidParameterError`` (a
``ValueError`` and a ``TypeError``) naming the parameter, NaN and infinity
included, before any data are looked at.
"""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation

from lupikit.boosting import PrivilegedBoostingClassifier, SoftLabelBoostingClassifier

PBC = PrivilegedBoostingClassifier
SLB = SoftLabelBoostingClassifier

#: The numeric hyperparameters of both estimators, and which of them take -1.
COMMON_NUMERIC = ["n_estimators", "learning_rate", "max_depth", "min_samples_split",
                  "min_samples_leaf", "validation_fraction", "n_iter_no_change", "tol",
                  "n_jobs", "max_bins"]
NUMERIC = {PBC: ["alpha", *COMMON_NUMERIC], SLB: ["soft_weight", "teacher_cv", *COMMON_NUMERIC]}
NEGATIVE_IS_VALID = {"n_jobs"}  # -1: all cores


def _bad_values(param):
    values = [np.nan, np.inf, -np.inf, "1"]
    if param not in NEGATIVE_IS_VALID:
        values.append(-1)
    else:
        values.append(0)  # joblib has no n_jobs=0
    return values


CASES = [(cls, param, bad) for cls, params in NUMERIC.items() for param in params
         for bad in _bad_values(param)]


@pytest.mark.parametrize("cls, param, bad", CASES,
                         ids=[f"{c.__name__}-{p}-{b!r}" for c, p, b in CASES])
def test_bad_numeric_hyperparameter_is_named(data, cls, param, bad):
    X, Xs, y = data
    est = cls(n_estimators=3).set_params(**{param: bad})
    match = f"'{param}' parameter of {cls.__name__} must be"
    with pytest.raises(InvalidParameterError, match=match):
        est.fit(X, y, privileged_features=Xs)


@pytest.mark.parametrize("cls", [PBC, SLB])
def test_sklearn_check_param_validation(cls):
    # every parameter has a constraint, and a bad type or value of each is named
    check_param_validation(cls.__name__, cls(n_estimators=3))


@pytest.mark.parametrize("engine", ["hist", "exact"])
@pytest.mark.parametrize("teacher", [object(), "probabilities", 3.0, {"q": 0.5},
                                     LinearRegression(),
                                     make_pipeline(StandardScaler(), LinearRegression())],
                         ids=["object", "str", "float", "dict", "regressor", "pipeline"])
def test_teacher_without_fit_and_predict_proba_is_named(data, teacher, engine):
    # was: object() reached numpy (or a TypeError of its own); now the parameter is named
    X, Xs, y = data
    with pytest.raises(InvalidParameterError, match="'teacher' parameter of "
                       "PrivilegedBoostingClassifier must be None, an .*predict_proba"):
        PBC(teacher=teacher, n_estimators=3, engine=engine).fit(X, y, privileged_features=Xs)


@pytest.mark.parametrize("engine", ["hist", "exact"])
@pytest.mark.parametrize("teacher", [object(), np.full(400, 0.5), LinearRegression()],
                         ids=["object", "array", "regressor"])
def test_soft_label_teacher_must_be_an_estimator(data, teacher, engine):
    X, Xs, y = data
    with pytest.raises(InvalidParameterError, match="'teacher' parameter of "
                       "SoftLabelBoostingClassifier must be None or an object implementing"):
        SLB(teacher=teacher, n_estimators=3, engine=engine).fit(X, y, privileged_features=Xs)


@pytest.mark.parametrize("cls", [PBC, SLB])
def test_a_teachers_own_parameters_are_validated(data, cls):
    # fit runs with prefer_skip_nested_validation=False: the teacher is the user's
    X, Xs, y = data
    with pytest.raises(InvalidParameterError, match="'C' parameter of LogisticRegression"):
        cls(teacher=LogisticRegression(C=-1.0), n_estimators=3).fit(
            X, y, privileged_features=Xs)


@pytest.mark.parametrize("params, match", [
    (dict(mode="kbpib "), "'mode' parameter"),
    (dict(leaf_values=None), "'leaf_values' parameter"),
    (dict(engine="xgboost"), "'engine' parameter"),
    (dict(max_bins=2.5), "'max_bins' parameter"),
    (dict(n_estimators=2.0), "'n_estimators' parameter"),
    (dict(random_state="seed"), "'random_state' parameter"),
])
def test_other_bad_hyperparameters_are_named(data, params, match):
    X, Xs, y = data
    with pytest.raises(InvalidParameterError, match=match):
        PBC(**{"n_estimators": 3, **params}).fit(X, y, privileged_features=Xs)


def test_parameters_are_validated_before_the_data(data):
    X, Xs, y = data
    with pytest.raises(InvalidParameterError, match="'alpha'"):
        PBC(alpha=np.nan).fit(X[:, :0], y)  # empty X would be an error of its own


def test_checks_between_parameters_keep_naming_them(data):
    # what one parameter's constraint cannot say is still a ValueError naming both
    X, Xs, y = data
    with pytest.raises(ValueError, match="teacher is only used with mode='kbpib'"):
        PBC(mode="jpib", teacher=LogisticRegression()).fit(X, y, privileged_features=Xs)
    with pytest.raises(ValueError, match="leaf_values='gradient' needs engine='exact'"):
        SLB(leaf_values="gradient", n_estimators=3).fit(X, y, privileged_features=Xs)


def test_valid_boundary_values_are_accepted(data):
    X, Xs, y = data
    PBC(alpha=0.0, tol=0.0, max_bins=2, max_depth=None, n_estimators=2, n_jobs=1,
        n_iter_no_change=1, validation_fraction=0.5, random_state=0).fit(
        X, y, privileged_features=Xs)
    # (the exact engine runs on one thread whatever n_jobs says)
    PBC(n_jobs=-1, n_estimators=2, engine="exact").fit(X, y, privileged_features=Xs)
    SLB(soft_weight=0.0, teacher_cv=2, n_estimators=2, engine="exact",
        min_samples_split=2, min_samples_leaf=1, random_state=np.random.RandomState(0)).fit(
        X, y, privileged_features=Xs)
