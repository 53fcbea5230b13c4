"""The experiment protocol of Section 5.1: tuning on a held-out set, then k-fold CV."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.metrics import accuracy_score
from sklearn.model_selection import ParameterGrid, StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler

from lupikit.twinsvm import PinballTwinSVC, PrivilegedPinballTwinSVC, cross_validate_lupi, holdout_tune


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def test_holdout_tune_equals_a_plain_loop(iris):
    X, y = iris
    grid = {"C1": [0.01, 0.1, 1.0], "tau": [0.1, 0.5]}
    est = PinballTwinSVC(kernel="linear")
    X_tr, X_tu, y_tr, y_tu = train_test_split(X, y, test_size=0.1, stratify=y, random_state=3)
    scores = []
    for params in ParameterGrid(grid):
        sc = StandardScaler().fit(X_tr)
        m = clone(est).set_params(**params).fit(sc.transform(X_tr), y_tr)
        scores.append(accuracy_score(y_tu, m.predict(sc.transform(X_tu))))
    expected = list(ParameterGrid(grid))[int(np.argmax(scores))]  # first best, in grid order
    assert holdout_tune(est, grid, X, y, random_state=3) == expected


@pytest.mark.parametrize("est", [PinballTwinSVC(kernel="linear"),
                                 PrivilegedPinballTwinSVC(kernel="linear")])
def test_parallel_equals_sequential(iris, est):
    X, y = iris
    grid = {"C1": [0.1, 1.0], "tau": [0.5]}
    assert holdout_tune(est, grid, X, y, n_jobs=2) == holdout_tune(est, grid, X, y)
    a = cross_validate_lupi(est, X, y, n_jobs=2)
    b = cross_validate_lupi(est, X, y)
    np.testing.assert_array_equal(a["accuracy"], b["accuracy"])
    np.testing.assert_array_equal(a["f1"], b["f1"])
    assert a["fit_time"].shape == (5,)


def test_cross_validate_matches_manual_folds(iris):
    X, y = iris
    est = PinballTwinSVC(kernel="linear")
    res = cross_validate_lupi(est, X, y, n_splits=4, random_state=1)
    cv = StratifiedKFold(4, shuffle=True, random_state=1)
    acc = []
    for tr, te in cv.split(X, y):
        sc = StandardScaler().fit(X[tr])
        m = clone(est).fit(sc.transform(X[tr]), y[tr])
        acc.append(accuracy_score(y[te], m.predict(sc.transform(X[te]))))
    np.testing.assert_allclose(res["accuracy"], acc)


def test_collapsed_planes_warn_and_predict_a_class_not_noise():
    """Haberman, linear Pin-TWSVMPI with C=10: both planes collapse to w = 0.

    Their 'distances' were ratios of rounding errors (about 1e12, of either sign,
    depending on the solver); now the model says so and predicts the majority.
    """
    from sklearn.model_selection import StratifiedKFold

    from lupikit.datasets import load_haberman
    from lupikit.twinsvm import DegeneratePlaneWarning, PCAPrivileged

    X, y = load_haberman(return_X_y=True)
    tr = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))[0]
    sc = StandardScaler().fit(X[tr])
    Xs = PCAPrivileged(n_components=0.95).fit_transform(X[tr])
    preds = []
    for solver in ("smo", "cvxopt"):
        est = PrivilegedPinballTwinSVC(kernel="linear", solver=solver, C1=10.0, C2=10.0, tau=0.5)
        with pytest.warns(DegeneratePlaneWarning, match="majority"):
            est.fit(sc.transform(X[tr]), y[tr], privileged_features=Xs)
        preds.append(est.predict(sc.transform(X)))
    majority = np.bincount(y[tr]).argmax()
    assert all((p == majority).all() for p in preds)
    # a usable C gives planes with a finite norm and no warning
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", DegeneratePlaneWarning)
        PrivilegedPinballTwinSVC(kernel="linear", C1=1.0, C2=1.0, tau=0.5).fit(
            sc.transform(X[tr]), y[tr], privileged_features=Xs)
