"""Primal optimum = dual optimum, KKT, solver agreement, and the dual algebra."""

import numpy as np
import pytest

from lupikit.datasets import make_lupi_classification
from lupikit.twinsvm import (
    PinballSVC,
    PinballTwinSVC,
    PrivilegedPinballTwinSVC,
    PrivilegedTwinSVC,
    SVMPlus,
    TwinSVC,
    solve_primal,
)
from lupikit.twinsvm._core import PlaneGram, split_kernel


@pytest.fixture(scope="module")
def data():
    X, Xs, y = make_lupi_classification(60, n_features=4, n_privileged=3, random_state=1)
    return X, Xs, y


def _estimators(kernel, tau):
    return [
        PinballTwinSVC(tau=tau, C1=2.0, C2=0.5, kernel=kernel),
        PrivilegedPinballTwinSVC(tau=tau, C1=2.0, C2=0.5, correction_weight=0.5,
                                 kernel=kernel),
        PinballSVC(tau=tau, C=2.0, kernel=kernel),
    ]


# some linear Pin-TWSVMPI planes collapse to w = 0 here; primal and dual still agree
@pytest.mark.filterwarnings("ignore::lupikit.twinsvm.DegeneratePlaneWarning")
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("tau", [0.0, 0.3, 1.0])
def test_primal_equals_dual(data, kernel, tau):
    X, Xs, y = data
    for est in _estimators(kernel, tau):
        est.set_params(tol=1e-9)
        est.fit(X, y, privileged_features=Xs)
        direct = solve_primal(est, X, y, privileged_features=Xs)
        for plane, ref in zip(est.primal_, direct):
            assert ref["status"] in ("optimal", "unknown")
            # optimum of the primal solved directly = dual optimum
            assert plane["dual_objective"] == pytest.approx(ref["objective"], rel=1e-6, abs=1e-8)
            assert plane["primal_objective"] == pytest.approx(ref["objective"], rel=1e-6, abs=1e-8)
        assert abs(est.duality_gap_) < 1e-6
        assert max(est.kkt_residuals_.values()) < 1e-6
        # the primal recovered from the dual is the directly solved primal
        model = est.models_[0]
        if hasattr(model, "plane_values"):
            values = model.plane_values(X)
        else:
            values = [model.decision_function(X)]
        for f, ref in zip(values, direct):
            np.testing.assert_allclose(f, ref["decision"], atol=1e-4)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_hinge_models_primal_equals_dual(data, kernel):
    X, Xs, y = data
    for est in (TwinSVC(kernel=kernel, C1=3.0), PrivilegedTwinSVC(kernel=kernel, C2=3.0),
                SVMPlus(kernel=kernel, C=2.0, correction_weight=0.3)):
        est.set_params(tol=1e-9)
        est.fit(X, y, privileged_features=Xs)
        direct = solve_primal(est, X, y, privileged_features=Xs)
        for plane, ref in zip(est.primal_, direct):
            assert plane["dual_objective"] == pytest.approx(ref["objective"], rel=1e-6, abs=1e-8)
        assert abs(est.duality_gap_) < 1e-6
        assert max(est.kkt_residuals_.values()) < 1e-6


@pytest.mark.parametrize(
    "est",
    [
        PrivilegedPinballTwinSVC(tau=0.4),
        PinballTwinSVC(tau=0.4, kernel="poly", degree=2),
        PinballSVC(tau=0.2),
        SVMPlus(C=3.0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_smo_and_cvxopt_reach_the_same_objective(data, est):
    X, Xs, y = data
    a = est.set_params(solver="smo", tol=1e-8).fit(X, y, privileged_features=Xs)
    objs_smo = [qp["objective"] for qp in a.dual_problems_]
    b = est.set_params(solver="cvxopt").fit(X, y, privileged_features=Xs)
    objs_cvx = [qp["objective"] for qp in b.dual_problems_]
    np.testing.assert_allclose(objs_smo, objs_cvx, rtol=1e-6, atol=1e-8)


def test_tau_to_zero_recovers_hinge_twin(data):
    X, Xs, y = data
    # C = 1 (the former default): with a small C the correcting functions absorb
    # every constraint on this data and the tau-dependence vanishes
    hinge = PrivilegedTwinSVC(C1=1.0, C2=1.0, tol=1e-10).fit(X, y, privileged_features=Xs)
    base = np.array([p["primal_objective"] for p in hinge.primal_])
    errs = []
    for tau in (1e-1, 1e-2, 1e-3):
        pin = PrivilegedPinballTwinSVC(C1=1.0, C2=1.0, tau=tau, tol=1e-10).fit(
            X, y, privileged_features=Xs)
        errs.append(np.abs(np.array([p["primal_objective"] for p in pin.primal_]) - base).max())
    assert errs[0] > errs[1] > errs[2] and errs[2] < 1e-2 * max(1.0, base.max())
    pin0 = PrivilegedPinballTwinSVC(C1=1.0, C2=1.0, tau=0.0).fit(X, y, privileged_features=Xs)
    np.testing.assert_allclose(pin0.decision_function(X), hinge.decision_function(X), atol=1e-5)
    tw = TwinSVC().fit(X, y)
    ptw = PinballTwinSVC(tau=0.0).fit(X, y)
    np.testing.assert_allclose(tw.decision_function(X), ptw.decision_function(X), atol=1e-6)


def test_plane_gram_equals_paper_matrix_form():
    # Q = G (diag(rho I, 0) + H'H)^{-1} G'  with H = [A e], G = [B e] (linear kernel)
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(12, 3)), rng.normal(size=(9, 3)) + 1
    rho = 0.7
    Xall = np.r_[A, B]
    K = Xall @ Xall.T
    own, other = np.arange(12), np.arange(12, 21)
    gram = PlaneGram(*split_kernel(K, own, other), rho)
    H = np.c_[A, np.ones(12)]
    G = np.c_[B, np.ones(9)]
    S = H.T @ H
    S[:3, :3] += rho * np.eye(3)
    np.testing.assert_allclose(gram.Q, G @ np.linalg.solve(S, G.T), rtol=1e-9, atol=1e-10)
    # recovery: u = -S^{-1} G' lam  gives  w = A'a + B'c and b
    lam = rng.uniform(size=9)
    a, c, b = gram.recover(lam)
    u = -np.linalg.solve(S, G.T @ lam)
    np.testing.assert_allclose(A.T @ a + B.T @ c, u[:3], atol=1e-10)
    assert b == pytest.approx(u[3], abs=1e-10)


def test_dual_problem_standard_form(data):
    X, Xs, y = data
    est = PrivilegedPinballTwinSVC(tau=0.5).fit(X, y, privileged_features=Xs)
    qp1, qp2 = est.dual_problems_
    n_neg = int((y == 0).sum())
    assert qp1["P"].shape == (2 * n_neg, 2 * n_neg)
    assert qp1["A"].shape == (0, 2 * n_neg)
    np.testing.assert_allclose(qp1["P"], qp1["P"].T)
    assert np.linalg.eigvalsh(qp1["P"]).min() > -1e-8  # convex
    # objective by finite differences of the stored value function
    z = qp2["x"] + 0.01
    eps = 1e-6
    grad_fd = np.array([(qp2.value(z + eps * ei) - qp2.value(z - eps * ei)) / (2 * eps)
                        for ei in np.eye(z.size)[:5]])
    np.testing.assert_allclose(grad_fd, qp2.gradient(z)[:5], rtol=1e-5, atol=1e-6)
    svmp = SVMPlus().fit(X, y, privileged_features=Xs)
    (qp,) = svmp.dual_problems_
    assert qp["A"].shape == (2, 2 * X.shape[0])
    np.testing.assert_allclose(qp["A"] @ qp["x"], qp["b"], atol=1e-8)


def test_linear_kernel_exposes_w(data):
    X, Xs, y = data
    est = PrivilegedPinballTwinSVC(kernel="linear", privileged_kernel="linear").fit(
        X, y, privileged_features=Xs)
    for p in est.primal_:
        np.testing.assert_allclose(X @ p["w"] + p["intercept"],
                                   X @ (X.T @ p["coef"]) + p["intercept"])
        assert p["w_privileged"].shape == (Xs.shape[1],)


def test_class_sorting_inside_fit_is_invisible(data):
    # the twin models sort the points by class to slice kernel blocks; the
    # coefficients must come back in the order of X
    X, Xs, y = data
    perm = np.random.default_rng(3).permutation(y.size)
    for est in (PinballTwinSVC(tau=0.3), PrivilegedPinballTwinSVC(tau=0.3)):
        a = est.fit(X, y, privileged_features=Xs)
        da, coef_a = a.decision_function(X), a.primal_[0]["coef"].copy()
        b = est.fit(X[perm], y[perm], privileged_features=Xs[perm])
        np.testing.assert_allclose(b.decision_function(X), da, atol=1e-6)
        np.testing.assert_allclose(b.primal_[0]["coef"], coef_a[perm], atol=1e-6)
    gram_sorted = PlaneGram(*split_kernel(np.eye(4) + 0.5, [0, 1], [2, 3]), 1.0)
    gram_fancy = PlaneGram(*split_kernel(np.eye(4) + 0.5, np.array([1, 0]), np.array([3, 2])), 1.0)
    np.testing.assert_allclose(gram_fancy.Q, gram_sorted.Q[::-1, ::-1], atol=1e-14)
