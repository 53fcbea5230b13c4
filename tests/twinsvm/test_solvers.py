"""SMO against cvxopt and closed forms on random dual-shaped QPs."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from lupikit.twinsvm import cvxopt_solve, smo_solve
from lupikit.twinsvm._qp import equality_multipliers, make_qp, solve_dual


def _psd(n, rank, rng):
    F = rng.normal(size=(n, rank))
    return F @ F.T


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_box_qp_matches_cvxopt(seed):
    rng = np.random.default_rng(seed)
    n = 40
    P = _psd(n, 15, rng) + 0.01 * np.eye(n)
    q = rng.normal(size=n)
    lo, hi = np.full(n, -0.5), np.full(n, 1.0)
    res = smo_solve(P, q, lo, hi, tol=1e-9)
    x_ref, _ = cvxopt_solve(P, q, lo, hi, tol=1e-10)
    f = lambda z: 0.5 * z @ P @ z + q @ z  # noqa: E731
    assert res.converged
    assert abs(res.objective - f(x_ref)) <= 1e-7 * max(1.0, abs(f(x_ref)))
    np.testing.assert_allclose(res.x, x_ref, atol=1e-4)


def test_diagonal_box_qp_closed_form():
    # separable: x_i = clip(-q_i / p_i, lo, hi)
    rng = np.random.default_rng(3)
    p = rng.uniform(0.5, 2.0, size=30)
    q = rng.normal(scale=2.0, size=30)
    res = smo_solve(np.diag(p), q, 0.0, 1.0, tol=1e-12)
    np.testing.assert_allclose(res.x, np.clip(-q / p, 0.0, 1.0), atol=1e-12)


def test_one_equality_constraint_matches_cvxopt():
    rng = np.random.default_rng(4)
    n = 50
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    X = rng.normal(size=(n, 3))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    P = np.outer(y, y) * K
    q = -np.ones(n)
    A, b = y[None, :], np.zeros(1)
    res = smo_solve(P, q, -0.3, 1.0, A, b, tol=1e-9)
    x_ref, _ = cvxopt_solve(P, q, np.full(n, -0.3), np.full(n, 1.0), A, b, tol=1e-10)
    f = lambda z: 0.5 * z @ P @ z + q @ z  # noqa: E731
    assert abs(y @ res.x) < 1e-10
    assert abs(res.objective - f(x_ref)) <= 1e-7 * abs(f(x_ref))


def test_two_equality_constraints_matches_cvxopt():
    # the shape of the SVM+ dual: groups alpha(y=+1), alpha(y=-1), beta
    rng = np.random.default_rng(5)
    m = 25
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    K = np.exp(-0.5 * ((rng.normal(size=(m, 2))[:, None] - rng.normal(size=(m, 2))[None]) ** 2).sum(-1))
    K = K @ K.T / m
    Ks = _psd(m, 5, rng) / 5
    C, gam = 1.0, 0.5
    e = np.ones(m)
    P = np.block([[np.outer(y, y) * K + Ks / gam, Ks / gam], [Ks / gam, Ks / gam]])
    q = np.r_[-e - C / gam * Ks @ e, -C / gam * Ks @ e]
    A = np.vstack([np.r_[y, np.zeros(m)], np.ones(2 * m)])
    b = np.array([0.0, m * C])
    x0 = np.r_[np.zeros(m), C * e]
    res = smo_solve(P, q, 0.0, np.inf, A, b, x0=x0, tol=1e-9)
    x_ref, _ = cvxopt_solve(P, q, np.zeros(2 * m), np.full(2 * m, np.inf), A, b, tol=1e-10)
    f = lambda z: 0.5 * z @ P @ z + q @ z  # noqa: E731
    np.testing.assert_allclose(A @ res.x, b, atol=1e-9)
    assert abs(res.objective - f(x_ref)) <= 1e-7 * max(1.0, abs(f(x_ref)))


def test_pure_smo_without_polishing_converges():
    rng = np.random.default_rng(6)
    n = 30
    P = _psd(n, 30, rng) + np.eye(n)
    q = rng.normal(size=n)
    res = smo_solve(P, q, 0.0, 2.0, tol=1e-8, polish_every=0, trace_every=1)
    x_ref, _ = cvxopt_solve(P, q, np.zeros(n), np.full(n, 2.0), tol=1e-11)
    np.testing.assert_allclose(res.x, x_ref, atol=1e-5)
    objs = [t[1] for t in res.trace]
    assert all(b <= a + 1e-12 for a, b in zip(objs, objs[1:]))  # monotone descent


def test_max_iter_gives_convergence_warning():
    rng = np.random.default_rng(7)
    P = _psd(20, 20, rng)
    q = rng.normal(size=20) * 10
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        res = smo_solve(P, q, 0.0, 1.0, max_iter=2, polish_every=0)
    assert not res.converged and res.n_iter == 2


def test_infeasible_start_is_rejected():
    with pytest.raises(ValueError, match="x0"):
        smo_solve(np.eye(2), np.zeros(2), 0.0, 1.0, x0=np.array([2.0, 0.0]))
    with pytest.raises(ValueError, match="x0"):
        smo_solve(np.eye(2), np.zeros(2), 0.0, 1.0, np.ones((1, 2)), np.ones(1))


def test_equality_multipliers_recover_intercept():
    # 1-D SVM: points at -1 and +1; the multiplier of y'a = 0 is b = 0 by symmetry,
    # and shifting both points by s gives b = -s.
    for s in (0.0, 0.7):
        X = np.array([-1.0, 1.0]) + s
        y = np.array([-1.0, 1.0])
        P = np.outer(y, y) * np.outer(X, X)
        qp = make_qp(P, -np.ones(2), 0.0, 10.0, A=y[None, :], b=[0.0])
        solve_dual(qp, "cvxopt")
        nu, viol = equality_multipliers(qp, qp["x"])
        assert viol < 1e-6
        assert nu[0] == pytest.approx(-s, abs=1e-6)


def test_unknown_solver():
    qp = make_qp(np.eye(2), np.zeros(2), 0.0, 1.0)
    with pytest.raises(ValueError, match="solver"):
        solve_dual(qp, "newton")


def _duplicated_lupi(seed=0, n_distinct=15, copies=5):
    # a tiny data set in which every point appears `copies` times and the
    # privileged features are one-dimensional: singular, very degenerate duals
    rng = np.random.default_rng(seed)
    X0 = rng.normal(size=(n_distinct, 2))
    y0 = (X0[:, 0] + 0.5 * rng.normal(size=n_distinct) > 0).astype(int)
    y0[:2] = [0, 1]
    X = np.repeat(X0, copies, axis=0)
    y = np.repeat(y0, copies)
    Xs = X[:, :1] + X[:, 1:]
    return X, Xs, y


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_smo_matches_cvxopt_on_degenerate_duals_with_duplicate_points(kernel):
    from lupikit.twinsvm import (PinballSVC, PinballTwinSVC, PrivilegedPinballTwinSVC,
                                 PrivilegedTwinSVC, SVMPlus)

    X, Xs, y = _duplicated_lupi()
    for est in (PinballTwinSVC(tau=0.5, kernel=kernel), PrivilegedTwinSVC(kernel=kernel),
                PrivilegedPinballTwinSVC(tau=0.3, kernel=kernel), PinballSVC(kernel=kernel),
                SVMPlus(kernel=kernel)):
        smo = est.set_params(solver="smo", tol=1e-8).fit(X, y, privileged_features=Xs)
        objs = [qp["objective"] for qp in smo.dual_problems_]
        assert all(qp["converged"] for qp in smo.dual_problems_), type(est).__name__
        # the active-set phase finishes these in few SMO iterations
        assert smo.n_iter_.max() <= 20 * max(qp["q"].size for qp in smo.dual_problems_)
        ref = est.set_params(solver="cvxopt").fit(X, y, privileged_features=Xs)
        objs_ref = [qp["objective"] for qp in ref.dual_problems_]
        np.testing.assert_allclose(objs, objs_ref, rtol=1e-6, atol=1e-8,
                                   err_msg=type(est).__name__)


def test_singular_box_qp_of_duplicates_is_solved_exactly():
    # P = F F' with F of rank 2 and every row repeated: the Newton systems are
    # singular; the ridge-regularised active-set phase still reaches cvxopt's optimum
    rng = np.random.default_rng(8)
    F = np.repeat(rng.normal(size=(10, 2)), 6, axis=0)
    P = F @ F.T
    q = rng.normal(size=60)
    res = smo_solve(P, q, -0.5, 1.0, tol=1e-9)
    x_ref, _ = cvxopt_solve(P, q, np.full(60, -0.5), np.full(60, 1.0), tol=1e-11)
    f = lambda z: 0.5 * z @ P @ z + q @ z  # noqa: E731
    assert res.converged
    assert res.objective == pytest.approx(f(x_ref), rel=1e-8, abs=1e-9)


# ------------------------------------------------------------------------------
# duals on which SMO alone needs a very long path: the interior-point phase
# (a deterministic work count: SMO iterations, not seconds; timings side by
# side in benchmarks/bench_twinsvm.py)


def _standardised(X):
    from sklearn.preprocessing import StandardScaler

    X = StandardScaler().fit_transform(X)
    return X[:, X.std(axis=0) > 0]


def _breast_cancer(n=None):
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = _standardised(X)
    return (X, y) if n is None else (X[:n], y[:n])


def _agree_with_cvxopt(est, X, y, **fit):
    smo = est.set_params(solver="smo").fit(X, y, **fit)
    qp = smo.dual_problems_[0]
    f_smo, size = smo.decision_function(X), qp["q"].size
    ref = est.set_params(solver="cvxopt").fit(X, y, **fit)
    qr = ref.dual_problems_[0]
    assert qp["converged"]
    # as low as cvxopt's (which is the less accurate of the two on the
    # degenerate duals below, by up to ~3e-7 relative)
    assert qp["objective"] == pytest.approx(qr["objective"], rel=1e-6)
    assert qp["objective"] <= qr["objective"] + 1e-9 * abs(qr["objective"])
    np.testing.assert_allclose(f_smo, ref.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(f_smo > 0, ref.decision_function(X) > 0)
    return qp["n_iter"], size


def test_linear_svmplus_low_rank_dual_needs_few_smo_iterations():
    # linear kernel and PCA privileged features: P has rank ~40 for 600
    # variables and the solution concentrates a large mass on few variables,
    # in SMO steps limited by each coordinate's curvature |x_i|^2. SMO with
    # its active-set phase needed 7053 iterations (11.8 x 600; 17070 on all
    # 569 points, 15 x 1138, 4-6 s against cvxopt's 1 s); the interior-point
    # phase now finishes it
    from lupikit.twinsvm import PCAPrivileged, SVMPlus

    X, y = _breast_cancer(300)
    Xs = PCAPrivileged().fit_transform(X)
    n_iter, size = _agree_with_cvxopt(SVMPlus(kernel="linear"), X, y, privileged_features=Xs)
    assert n_iter <= size


def test_linear_pinball_dual_on_breast_cancer_needs_few_smo_iterations():
    # was 2556 iterations (4.5 x 569); now 285
    from lupikit.twinsvm import PinballSVC

    X, y = _breast_cancer()
    n_iter, size = _agree_with_cvxopt(PinballSVC(kernel="linear"), X, y)
    assert n_iter <= size


def test_svmplus_with_duplicated_discrete_privileged_features_converges():
    # digits 1 vs 7 with three pixel columns as X*: the privileged points are
    # heavily duplicated, the optimal face (~450 free variables) is singular
    # and ill-conditioned: SMO and its Newton steps crept (no convergence in
    # max_iter = 100 000 iterations, 27 s); now a few hundred iterations
    from sklearn.datasets import load_digits

    from lupikit.twinsvm import SVMPlus

    X, y = load_digits(return_X_y=True)
    keep = (y == 1) | (y == 7)
    X, y = _standardised(X[keep]), y[keep]
    n_iter, size = _agree_with_cvxopt(SVMPlus(), X, y, privileged_features=X[:, :3])
    assert n_iter <= size


def test_interior_point_phase_is_exact_on_bounds_and_constraints():
    # the SVM+ dual of the test above through smo_solve: the interior-point
    # phase ran, its crossover put the bound variables exactly on their
    # bounds, and A z = b holds to rounding
    from lupikit.twinsvm import PCAPrivileged, SVMPlus

    X, y = _breast_cancer(300)
    est = SVMPlus(kernel="linear", solver="cvxopt").fit(
        X, y, privileged_features=PCAPrivileged().fit_transform(X))
    qp = est.dual_problems_[0]
    res = smo_solve(qp["P"], qp["q"], qp["lo"], qp["hi"], qp["A"], qp["b"], x0=qp["x0"])
    assert res.converged and res.n_ipm_iter > 0
    assert np.count_nonzero(res.x == 0.0) > res.x.size // 2
    np.testing.assert_allclose(qp["A"] @ res.x, qp["b"], rtol=1e-12, atol=1e-10)
    assert res.objective + qp["constant"] <= qp["objective"] + 1e-9 * abs(qp["objective"])
    # pure SMO has no interior-point phase
    pure = smo_solve(qp["P"], qp["q"], qp["lo"], qp["hi"], qp["A"], qp["b"], x0=qp["x0"],
                     polish_every=0, max_iter=50, warn=False)
    assert pure.n_ipm_iter == 0


@pytest.mark.parametrize("lo, hi, what", [
    (-np.inf, 1.0, "lo must be finite"),
    (np.nan, 1.0, "lo must be finite"),
    (0.0, np.nan, "hi must be at least lo"),
    (1.0, 0.0, "hi must be at least lo"),
])
def test_smo_rejects_bounds_it_cannot_handle(lo, hi, what):
    # an infinite lower bound used to give a "converged" wrong answer (its bound
    # tolerance became NaN)
    with pytest.raises(ValueError, match=what):
        smo_solve(np.eye(2), -np.ones(2), lo, hi)
