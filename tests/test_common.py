"""Every public estimator of lupikit passes scikit-learn's ``check_estimator``.

The cases live in ``tests/conformance/<part>.py`` (a list ``ESTIMATORS`` of ``(estimator, expected_failed_checks)`` pairs, with
the small wrappers that derive privileged or sensitive features per sample
for the estimators that need them); this module runs them all and checks
that no public estimator is left out. ``expected_failed_checks`` names only
checks that cannot apply, each with its reason.
"""

import inspect

import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import check_estimator

import lupikit.boosting
import lupikit.oblivious
import lupikit.relevance
import lupikit.twinsvm
import conformance.boosting  # tests/ is on pytest's pythonpath
import conformance.oblivious
import conformance.relevance
import conformance.twinsvm
PARTS = {"boosting": lupikit.boosting, "twinsvm": lupikit.twinsvm,
         "relevance": lupikit.relevance, "oblivious": lupikit.oblivious}


CASES = [(part, est, xfail) for part in PARTS for est, xfail in getattr(conformance, part).ESTIMATORS]


def _label(estimator):
    inner = [v for k, v in estimator.get_params(deep=False).items()
             if isinstance(v, BaseEstimator)]
    name = type(estimator).__name__
    return f"{name}({', '.join(type(i).__name__ for i in inner)})" if inner else name


def _classes_checked(estimator):
    """The estimator's class and the classes of the estimators it wraps."""
    out = {type(estimator)}
    for value in estimator.get_params(deep=False).values():
        if isinstance(value, BaseEstimator):
            out |= _classes_checked(value)
    return out


@pytest.mark.parametrize("part, estimator, expected_failed_checks", CASES,
                         ids=[f"{p}-{_label(e)}-{i}" for i, (p, e, _) in enumerate(CASES)])
def test_check_estimator(part, estimator, expected_failed_checks):
    for check, reason in expected_failed_checks.items():
        assert isinstance(reason, str) and len(reason) > 10, f"{check} needs a reason"
    check_estimator(estimator, expected_failed_checks=expected_failed_checks)


@pytest.mark.parametrize("part", PARTS)
def test_every_public_estimator_is_checked(part):
    module = PARTS[part]
    public = {obj for name in module.__all__
              if inspect.isclass(obj := getattr(module, name)) and issubclass(obj, BaseEstimator)}
    assert public, part
    checked = set().union(*(_classes_checked(e) for p, e, _ in CASES if p == part))
    # a test wrapper that subclasses an estimator (to pass S or X*) checks it
    missing = sorted(c.__name__ for c in public if not any(issubclass(k, c) for k in checked))
    assert missing == [], f"{part}: public estimators without a check_estimator case: {missing}"


def _public_classes():
    return {obj for module in PARTS.values() for name in module.__all__
            if inspect.isclass(obj := getattr(module, name)) and issubclass(obj, BaseEstimator)}


def _fitted_inside(estimator, public, seen=None):
    """The fitted public estimators in ``estimator`` and in what it holds (itself included)."""
    seen = set() if seen is None else seen
    if id(estimator) in seen:
        return []
    seen.add(id(estimator))
    cls = next((c for c in type(estimator).__mro__ if c in public), None)  # (a test wrapper: its public base)
    out = [(cls, estimator)] if cls is not None else []
    for value in vars(estimator).values():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(item, BaseEstimator):
                out += _fitted_inside(item, public, seen)
    return out


@pytest.mark.parametrize("part, estimator, expected_failed_checks", CASES,
                         ids=[f"{p}-{_label(e)}-{i}" for i, (p, e, _) in enumerate(CASES)])
def test_every_fitted_attribute_is_documented(part, estimator, expected_failed_checks):
    """What ``fit`` leaves on a public estimator (a name ending in ``_``) is listed under Attributes."""
    import warnings

    import numpy as np
    from sklearn.base import clone, is_regressor

    from test_book import _documented_attributes

    rng = np.random.default_rng(np.random.SeedSequence(20261206))
    X = rng.normal(size=(60, 4))
    y = X[:, 0] + 0.5 * rng.normal(size=60)
    if not is_regressor(estimator):
        y = (y > np.median(y)).astype(int)
    est = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    undocumented, found = [], _fitted_inside(est, _public_classes())
    assert found, "no fitted public estimator"
    for cls, fitted in found:
        names = set(_documented_attributes(cls))
        undocumented += [f"{cls.__name__}.{k}" for k in vars(fitted)
                         if k.endswith("_") and not k.startswith("_") and k not in names]
    assert not undocumented, f"fitted attributes missing under Attributes: {sorted(set(undocumented))}"
