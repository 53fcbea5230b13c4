"""The experiment protocol of Section 5.1: tuning on a held-out set, then k-fold CV."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score
from sklearn.model_selection import ParameterGrid, StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler

from lupikit.datasets import load_haberman
from lupikit.twinsvm import DegeneratePlaneWarning, PinballTwinSVC, PrivilegedPinballTwinSVC
from lupikit.twinsvm.experiments import cross_validate_lupi, holdout_tune


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
    np.testing.assert_array_equal(a["n_convergence_warnings"], [0] * 5)


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


def _convergence_warnings(caught):
    return [w for w in caught if issubclass(w.category, ConvergenceWarning)]


@pytest.mark.parametrize("solver", ["smo", "cvxopt"])
@pytest.mark.parametrize("n_jobs", [None, 2])
def test_non_converging_folds_are_counted_and_reported_once(iris, solver, n_jobs):
    """A tiny max_iter: every fold stops early, and the protocol says so (it used to hide it)."""
    X, y = iris
    est = PinballTwinSVC(kernel="linear", solver=solver, max_iter=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = cross_validate_lupi(est, X, y, n_jobs=n_jobs)
    # counted fold by fold, also in joblib workers (whose warnings never reach us)
    counts = res["n_convergence_warnings"]
    assert counts.shape == (5,) and counts.dtype.kind == "i" and (counts > 0).all()
    # a one-vs-one fit on 3 classes solves 3 pairs x 2 planes: one warning each
    assert counts.tolist() == [6] * 5
    # one summarising warning, naming the estimator and the folds, at the caller's line
    (w,) = _convergence_warnings(caught)
    assert "PinballTwinSVC: 5 of 5 folds did not converge (30 ConvergenceWarnings" in str(w.message)
    assert w.filename == __file__


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_non_converging_candidates_are_reported_by_holdout_tune(iris, n_jobs):
    X, y = iris
    grid = {"C1": [0.1, 1.0], "max_iter": [1, None], "tau": [0.5]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        best = holdout_tune(PrivilegedPinballTwinSVC(kernel="linear"), grid, X, y, n_jobs=n_jobs)
    assert set(best) == {"C1", "max_iter", "tau"}
    (w,) = _convergence_warnings(caught)
    msg = str(w.message)
    assert msg.startswith("PrivilegedPinballTwinSVC: 2 of 4 candidate fits on the tuning split")
    assert "'max_iter': 1" in msg and "'max_iter': None" not in msg
    assert w.filename == __file__


def test_converging_runs_warn_nothing_and_other_warnings_pass(iris):
    X, y = iris
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        holdout_tune(PinballTwinSVC(kernel="linear"), {"C1": [0.1, 1.0]}, X, y)
        res = cross_validate_lupi(PinballTwinSVC(kernel="linear"), X, y)
    assert res["n_convergence_warnings"].sum() == 0
    # recording the ConvergenceWarnings does not swallow the others: the collapsed
    # planes of the Haberman case below still warn from the folds
    Xh, yh = load_haberman(return_X_y=True)
    est = PrivilegedPinballTwinSVC(kernel="linear", C1=10.0, C2=10.0, tau=0.5)
    with pytest.warns(DegeneratePlaneWarning, match="majority"):
        cross_validate_lupi(est, Xh, yh)
