"""Hyperparameter validation and the conformance findings of Part IV.

Every bad hyperparameter raises scikit-learn's ``InvalidParameterError`` (a
``ValueError``) naming it; the other tests each pin one finding: FERM on
badly scaled ``X``, ``NotFittedError`` before ``fit``, the oblivious SVM's
split keeping every class, NaN/inf ``gamma``, copies of the kept ``X`` and
FERM's undefined constraint.
"""

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import InvalidParameterError

from lupikit.oblivious import CellPartition, FERM, ObliviousKernel, ObliviousRidge, ObliviousSVC
from lupikit.oblivious import _ferm


def _clf_data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, 2, n).astype(float)
    X = np.c_[rng.normal(size=n) + S, rng.normal(size=n)]
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=n) > 0.7).astype(int)
    return X, y, S


def _fit(est, X, y, S):
    """Fit any estimator of the part (ObliviousKernel has no y)."""
    if isinstance(est, ObliviousKernel):
        return est.fit(X, S)
    return est.fit(X, y, sensitive_features=S)


def _ferm_primal(clf, X, ys, C):
    """Primal objective 1/2 |w|^2 + C sum(hinge) of a linear FERM."""
    w = X.T @ clf.dual_coef_
    f = X @ w + clf.intercept_
    return 0.5 * w @ w + C * np.maximum(0.0, 1.0 - ys * f).sum()


def _eo_gap(f, y, S):
    pos = y == 1
    return f[pos & (S == 0)].mean() - f[pos & (S == 1)].mean()


# ---------------------------------------------------------------------------
# FERM on any scale
# ---------------------------------------------------------------------------
def test_ferm_fit_on_unscaled_X_is_fast_and_exact(tmp_path):
    """FERM().fit(X * 1e4) used to run libsvm's SMO for hours (C k(x, x) ~ 1e8)."""
    X, y, S = _clf_data()
    np.savez(tmp_path / "data.npz", X=X, y=y, S=S)
    code = textwrap.dedent(f"""
        import time
        import numpy as np
        from lupikit.oblivious import FERM
        d = np.load({str(tmp_path / "data.npz")!r})
        t = time.perf_counter()
        clf = FERM().fit(d["X"] * 1e4, d["y"], sensitive_features=d["S"])
        print(time.perf_counter() - t)
        np.save({str(tmp_path / "f.npy")!r}, clf.decision_function(d["X"] * 1e4))
        np.save({str(tmp_path / "theta.npy")!r}, np.r_[clf.dual_coef_, clf.intercept_])
    """)
    try:  # in a child process: the old code never returns
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("FERM().fit(X * 1e4, ...) did not finish in 60 s")
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout.split()[0]) < 10.0
    f = np.load(tmp_path / "f.npy")
    theta = np.load(tmp_path / "theta.npy")
    # the equal-opportunity constraint holds, up to rounding (K ~ 1e8)
    assert abs(_eo_gap(f, y, S)) <= 1e-6 * np.abs(f).max()
    # it predicts like the fit on X (the projected problem is 1-D here, so the
    # much larger effective C mostly moves the intercept)
    ref = FERM().fit(X, y, sensitive_features=S)
    assert np.mean((f > 0) == (ref.decision_function(X) > 0)) >= 0.95
    # and it is optimal: no worse than the fit on X carried over to 1e4 * X
    # (w / 1e4, same intercept: also fair), the primal objective of the same problem
    ys = np.where(y == 1, 1.0, -1.0)
    clf = FERM()
    clf.dual_coef_, clf.intercept_ = theta[:-1], theta[-1]
    moved = FERM()
    moved.dual_coef_, moved.intercept_ = ref.dual_coef_ / 1e8, ref.intercept_
    assert _ferm_primal(clf, X * 1e4, ys, 1.0) <= _ferm_primal(moved, X * 1e4, ys, 1.0) + 1e-6


@pytest.mark.parametrize("solver", ["auto", "cvxopt"])
@pytest.mark.parametrize("scale", [1e-4, 1e4])
def test_ferm_is_scale_equivariant(solver, scale):
    """scale * X with C / scale**2 is the same problem as X with C: same scores.

    The cvxopt route used to solve it with absolute tolerances on an unscaled
    problem (scores off by up to 1.2 at scale 1e-4).
    """
    X, y, S = _clf_data()
    ref = FERM(solver=solver).fit(X, y, sensitive_features=S).decision_function(X)
    clf = FERM(C=1.0 / scale**2, solver=solver).fit(X * scale, y, sensitive_features=S)
    np.testing.assert_allclose(clf.decision_function(X * scale), ref,
                               atol=5e-3 * np.abs(ref).max())


def test_ferm_well_scaled_auto_uses_libsvm_unchanged():
    # the route (and the numbers) of well-scaled data are those of before
    X, y, S = _clf_data()
    clf = FERM().fit(X, y, sensitive_features=S)
    assert (clf.solver_, clf.qp_solver_) == ("projection", "libsvm")
    assert FERM(epsilon=0.1).fit(X, y, sensitive_features=S).qp_solver_ == "cvxopt"


def test_ferm_fallback_qp_matches_libsvm(monkeypatch):
    """The projected SVM solved by cvxopt (the fallback) equals libsvm's."""
    X, y, S = _clf_data(150, seed=3)
    ref = FERM(solver="projection").fit(X * 30, y, sensitive_features=S)
    monkeypatch.setattr(_ferm, "_SMO_MAX_BOX", 0.0)  # always judged ill-conditioned
    clf = FERM().fit(X * 30, y, sensitive_features=S)
    assert (clf.solver_, clf.qp_solver_) == ("projection", "cvxopt")
    f, fr = clf.decision_function(X * 30), ref.decision_function(X * 30)
    np.testing.assert_allclose(f, fr, atol=5e-3 * np.abs(fr).max())
    assert abs(_eo_gap(f, y, S)) < 1e-8 * np.abs(f).max()
    # SMO stopped at its iteration limit: the same fallback, without a warning
    monkeypatch.setattr(_ferm, "_SMO_MAX_BOX", np.inf)
    monkeypatch.setattr(_ferm, "_smo_max_iter", lambda n: 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = FERM().fit(X * 30, y, sensitive_features=S)
    assert clf.qp_solver_ == "cvxopt"
    np.testing.assert_allclose(clf.decision_function(X * 30), fr, atol=5e-3 * np.abs(fr).max())


def test_ferm_cvxopt_warns_when_constraint_is_violated():
    # near hard margin the (alpha, delta) dual meets <w, u> = 0 only loosely
    X, y, S = _clf_data()
    with pytest.warns(ConvergenceWarning, match="violates the fairness constraint"):
        FERM(C=1e8, solver="cvxopt").fit(X, y, sensitive_features=S)


# ---------------------------------------------------------------------------
# NotFittedError before fit, for every public method
# ---------------------------------------------------------------------------
_X3 = np.zeros((3, 2))
_S3 = np.array([0.0, 1.0, 0.0])
_Y3 = np.array([0, 1, 0])
UNFITTED_CALLS = [
    (ObliviousKernel, "cells", (_S3,)),
    (ObliviousKernel, "gram", (_X3, _S3)),
    (ObliviousKernel, "cross", (_X3, _S3, _X3, _S3)),
    (ObliviousKernel, "diag", (_X3, _S3)),
    (ObliviousRidge, "predict", (_X3, _S3)),
    (ObliviousRidge, "score", (_X3, _Y3, _S3)),
    (ObliviousSVC, "predict", (_X3, _S3)),
    (ObliviousSVC, "decision_function", (_X3, _S3)),
    (ObliviousSVC, "score", (_X3, _Y3, _S3)),
    (FERM, "predict", (_X3,)),
    (FERM, "decision_function", (_X3,)),
    (FERM, "score", (_X3, _Y3)),
]


@pytest.mark.parametrize("cls, method, args", UNFITTED_CALLS,
                         ids=[f"{c.__name__}.{m}" for c, m, _ in UNFITTED_CALLS])
def test_methods_before_fit_raise_not_fitted_error(cls, method, args):
    with pytest.raises(NotFittedError):
        getattr(cls(), method)(*args)


def test_unfitted_calls_cover_every_public_method():
    for cls in (ObliviousKernel, ObliviousRidge, ObliviousSVC, FERM):
        public = {m for m in dir(cls) if not m.startswith("_") and callable(getattr(cls, m))
                  and m not in {"fit", "get_params", "set_params", "get_metadata_routing"}
                  and not m.startswith("set_") and m != "clone"}
        listed = {m for c, m, _ in UNFITTED_CALLS if c is cls}
        assert public == listed, cls.__name__


# ---------------------------------------------------------------------------
# ObliviousSVC keeps every class in the fitting part
# ---------------------------------------------------------------------------
def _rare_class_data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, 2, n).astype(float)
    X = np.c_[rng.normal(size=n) + S, rng.normal(size=n)]
    y = (X[:, 0] > 0.5).astype(int)
    return X, y, S


@pytest.mark.parametrize("seed", range(12))
def test_svc_split_keeps_a_rare_class(seed):
    X, y, S = _rare_class_data()
    y3 = y.copy()
    y3[[3, 17]] = 2  # a third class with two members
    clf = ObliviousSVC(kernel="linear", random_state=seed).fit(X, y3, sensitive_features=S)
    np.testing.assert_array_equal(clf.classes_, [0, 1, 2])
    assert set(y3[clf.fit_indices_]) == {0, 1, 2}
    assert len(clf.fit_indices_) == len(clf.estimation_indices_) == 20
    assert not set(clf.fit_indices_) & set(clf.estimation_indices_)
    assert set(S[clf.estimation_indices_]) == {0.0, 1.0}
    # a class with a single member (was: "got 1 class" when it fell in the estimation part)
    y2 = np.zeros(40, dtype=int)
    y2[5] = 1
    clf = ObliviousSVC(kernel="linear", random_state=seed).fit(X, y2, sensitive_features=S)
    np.testing.assert_array_equal(clf.classes_, [0, 1])
    assert 5 in clf.fit_indices_


def test_svc_split_repair_keeps_group_counts_and_leaves_good_splits_alone():
    X, y, S = _rare_class_data()
    y3 = y.copy()
    y3[[3, 17]] = 2
    for seed in range(12):
        clf = ObliviousSVC(kernel="linear", random_state=seed).fit(X, y3, sensitive_features=S)
        # the ridge (no classes) draws the same split without any repair
        ridge = ObliviousRidge(kernel="linear", random_state=seed).fit(
            X, y3.astype(float), sensitive_features=S)
        if set(y3[ridge.fit_indices_]) == {0, 1, 2}:
            np.testing.assert_array_equal(clf.fit_indices_, ridge.fit_indices_)
        else:  # repaired by swaps within a sensitive group: same group counts
            assert np.sum(S[clf.estimation_indices_]) == np.sum(S[ridge.estimation_indices_])
            assert len(set(clf.fit_indices_) ^ set(ridge.fit_indices_)) <= 4


def test_svc_split_raises_when_classes_cannot_be_kept():
    X, y, S = _rare_class_data()
    y_sorted = (np.arange(40) >= 30).astype(int)  # class 1 only in the last rows
    with pytest.raises(ValueError, match=r"split='ordered' fits on the first 20 rows.*\[1\]"):
        ObliviousSVC(kernel="linear", split="ordered").fit(X, y_sorted, sensitive_features=S)
    y5 = np.arange(40) % 5  # 5 classes, 4 fitting points
    with pytest.raises(ValueError, match="fewer than the 5 classes"):
        ObliviousSVC(kernel="linear", estimation_fraction=0.9, random_state=0).fit(
            X, y5, sensitive_features=S)


# ---------------------------------------------------------------------------
# gamma = NaN / inf, and the parameters that were not validated
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("gamma", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("cls", [ObliviousKernel, ObliviousRidge, ObliviousSVC, FERM])
def test_gamma_nan_inf_raise_invalid_parameter(cls, gamma):
    X, y, S = _clf_data(40)
    with pytest.raises(InvalidParameterError, match="'gamma' parameter"):
        _fit(cls(kernel="rbf", gamma=gamma), X, y, S)


@pytest.mark.parametrize("cls", [ObliviousKernel, ObliviousRidge, ObliviousSVC])
@pytest.mark.parametrize("grid_range", [5, "ab", np.nan, (1,), (1, 2, 3), (3, 1), (0, np.nan),
                                        (-np.inf, 1), ("a", "b")])
def test_grid_range_validated(cls, grid_range):
    X, y, S = _clf_data(40)
    with pytest.raises(InvalidParameterError, match="'grid_range' parameter"):
        _fit(cls(partition="grid", grid_range=grid_range), X, y, S)


@pytest.mark.parametrize("grid_range", [5, (1,), (3, 1), (0, np.nan)])
def test_cell_partition_params_validated(grid_range):
    S = np.arange(6.0)[:, None]
    with pytest.raises(ValueError, match="'grid_range' parameter of CellPartition"):
        CellPartition("grid", grid_range=grid_range).fit(S)
    for kw, name in (({"n_bins": 0}, "n_bins"), ({"n_bins": 2.5}, "n_bins"),
                     ({"partition": "dyadic"}, "partition"),
                     ({"handle_unknown": "ignore"}, "handle_unknown")):
        with pytest.raises(ValueError, match=f"'{name}' parameter of CellPartition"):
            CellPartition(**kw).fit(S)
    assert CellPartition("grid", grid_range=[0, 5], n_bins=5).fit(S).n_cells_ == 5


def test_kernel_callable_output_checked():
    X, y, S = _clf_data(40)
    with pytest.raises(ValueError, match=r"kernel returned an array of shape \(2, 2\)"):
        ObliviousKernel(kernel=lambda A, B: np.ones((2, 2))).fit(X, S)
    with pytest.raises(ValueError, match="kernel returned non-finite"):
        FERM(kernel=lambda A, B: np.full((len(A), len(B)), np.nan)).fit(
            X, y, sensitive_features=S)
    # a valid callable is the same as the named kernel
    lin = FERM(kernel=lambda A, B: A @ B.T).fit(X, y, sensitive_features=S)
    np.testing.assert_allclose(lin.decision_function(X),
                               FERM().fit(X, y, sensitive_features=S).decision_function(X))


# every numeric hyperparameter of every estimator; values valid for it are left out
NUMERIC_PARAMS = {
    ObliviousKernel: ["gamma", "degree", "coef0", "n_bins"],
    ObliviousRidge: ["alpha", "gamma", "degree", "coef0", "n_bins", "estimation_fraction"],
    ObliviousSVC: ["C", "gamma", "degree", "coef0", "n_bins", "estimation_fraction", "tol"],
    FERM: ["C", "gamma", "degree", "coef0", "epsilon", "tol"],
}
BAD_VALUES = {"nan": np.nan, "inf": np.inf, "negative": -1.0, "string": "1.0"}
VALID = {("coef0", "negative")}  # a negative coef0 is a valid kernel offset
CASES = [(cls, p, kind) for cls, params in NUMERIC_PARAMS.items() for p in params
         for kind in BAD_VALUES if (p, kind) not in VALID]


@pytest.mark.parametrize("cls, param, kind", CASES,
                         ids=[f"{c.__name__}-{p}-{k}" for c, p, k in CASES])
def test_bad_numeric_hyperparameter_raises_invalid_parameter(cls, param, kind):
    X, y, S = _clf_data(40)
    est = cls(kernel="rbf", **{param: BAD_VALUES[kind]})
    with pytest.raises(InvalidParameterError, match=f"'{param}' parameter of {cls.__name__}"):
        _fit(est, X, y, S)


def test_numeric_params_table_is_complete():
    from sklearn.utils._param_validation import Interval, make_constraint

    for cls, params in NUMERIC_PARAMS.items():
        numeric = {name for name, cons in cls._parameter_constraints.items()
                   if any(isinstance(make_constraint(c), Interval) for c in cons)}
        assert numeric == set(params), cls.__name__


def test_negative_coef0_still_valid():
    X, y, S = _clf_data(40)
    FERM(kernel="poly", coef0=-1.0).fit(X, y, sensitive_features=S)
    ObliviousKernel(kernel="sigmoid", coef0=-0.5).fit(X, S)


# ---------------------------------------------------------------------------
# No reference to the caller's X
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [ObliviousKernel, FERM, ObliviousRidge, ObliviousSVC])
def test_fitted_estimator_does_not_follow_callers_X(cls):
    X, y, S = _clf_data(60)
    Xc = X.copy()
    kw = {} if cls in (ObliviousKernel, FERM) else {"estimation_fraction": 1.0}
    est = _fit(cls(**kw), Xc, y, S)
    Xt, St = X[:10] + 0.1, S[:10]
    if cls is ObliviousKernel:
        before = est.gram(Xt, St)
    elif cls is FERM:
        before = est.decision_function(Xt)
    else:
        before = est.predict(Xt, sensitive_features=St)
    Xc[:] = 0.0  # the caller reuses its buffer
    if cls is ObliviousKernel:
        after = est.gram(Xt, St)
    elif cls is FERM:
        after = est.decision_function(Xt)
    else:
        after = est.predict(Xt, sensitive_features=St)
    np.testing.assert_array_equal(after, before)


# ---------------------------------------------------------------------------
# FERM: a sensitive group without a positive example
# ---------------------------------------------------------------------------
def test_ferm_group_without_positive_example_raises():
    X, y, S = _clf_data()
    y_bad = np.where(S == 1, 0, y)
    with pytest.raises(ValueError, match=r"sensitive_features: the group 1 has no positive "
                                         r"example \(y == 1\)"):
        FERM().fit(X, y_bad, sensitive_features=S)
    # string labels: the positive class is classes_[1]
    labels = np.array(["lo", "hi"])[1 - y_bad]
    with pytest.raises(ValueError, match=r"no positive example \(y == 'lo'\)"):
        FERM().fit(X, labels, sensitive_features=S)
    # the split of train_test_split can do it too: the message names the argument
    Xtr, _, ytr, _, Str, _ = train_test_split(X, y_bad, S, test_size=0.5, random_state=0)
    with pytest.raises(ValueError, match="sensitive_features"):
        FERM().fit(Xtr, ytr, sensitive_features=Str)
