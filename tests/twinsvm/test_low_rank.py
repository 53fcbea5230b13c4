"""The interior-point phase on low-rank duals (Woodbury solves with a checked fallback).

A linear-kernel dual has ``P = F F'`` of rank at most the number of features
plus one; :func:`~lupikit.twinsvm._interior_point.interior_point` then
factorises ``F F' + diag(d)`` by the Woodbury identity instead of a dense
Cholesky. These tests check it against the dense path and against cvxopt
(an independent solver), that a solve it cannot make accurate is refused
rather than used, and that the SMO estimators give the same models with and
without it.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lupikit.twinsvm import _interior_point as ipm
from lupikit.twinsvm import _smo as smo_module
from lupikit.twinsvm._qp import cvxopt_solve


def _objective(P, q, z):
    return 0.5 * float(z @ P @ z) + float(q @ z)


def _problem(rng, n, rank, bounds, n_eq):
    F = rng.normal(size=(n, rank)) * rng.uniform(0.1, 3.0, size=rank)
    P = F @ F.T
    if bounds == "box":
        lo, hi = np.full(n, -0.3), np.full(n, 1.0)
        q = rng.normal(size=n)
    else:  # one-sided, as the privileged duals: q = -F u + s with s >= 0 is
        # nonnegative on every ray z >= 0 along which P is flat (F'z = 0), so
        # the problem is bounded below, and -F u makes its solution nonzero
        lo, hi = np.zeros(n), np.full(n, np.inf)
        q = -F @ rng.normal(size=rank) + rng.uniform(0.0, 0.1, size=n)
    A = np.sign(rng.normal(size=(n_eq, n)))
    b = A @ np.where(np.isfinite(hi), 0.5 * (lo + hi), lo + 0.1)
    return P, q, lo, hi, A, b


def test_low_rank_factor_finds_the_rank_and_gives_up_on_full_rank():
    rng = np.random.default_rng(0)
    F = rng.normal(size=(500, 7))
    P = F @ F.T
    G = ipm.low_rank_factor(P)
    assert G.shape == (500, 7)
    assert np.abs(G @ G.T - P).max() <= 1e-12 * np.abs(P).max()
    assert ipm.low_rank_factor(P + np.eye(500)) is None  # full rank
    assert ipm.low_rank_factor(P[:100, :100]) is None  # too small to pay off


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(400, 520), rank=st.integers(1, 30),
       bounds=st.sampled_from(["box", "one-sided"]), n_eq=st.integers(0, 1))
def test_woodbury_path_matches_dense_path_and_cvxopt(seed, n, rank, bounds, n_eq):
    rng = np.random.default_rng(seed)
    P, q, lo, hi, A, b = _problem(rng, n, rank, bounds, n_eq)
    assert ipm.low_rank_factor(P) is not None
    dense = ipm.interior_point(P, q, lo, hi, A, b, low_rank=None)
    real, accepted = ipm._WoodburySolver.solve, []
    ipm._WoodburySolver.solve = lambda self, R: accepted.append(real(self, R)) or accepted[-1]
    try:
        fast = ipm.interior_point(P, q, lo, hi, A, b)
    finally:
        ipm._WoodburySolver.solve = real
    assert any(x is not None for x in accepted)  # the identity solved Newton systems
    z_d, z_f = dense[0], fast[0]
    scale = max(1.0, abs(_objective(P, q, z_d)))
    assert abs(_objective(P, q, z_f) - _objective(P, q, z_d)) <= 1e-8 * scale
    z_ref = cvxopt_solve(P, q, lo, hi, A if n_eq else None, b if n_eq else None, warn=False)[0]
    assert _objective(P, q, z_f) <= _objective(P, q, z_ref) + 1e-6 * scale
    assert np.all(z_f >= lo - 1e-9) and np.all(z_f <= hi + 1e-9)
    if n_eq:
        assert np.abs(A @ z_f - b).max() <= 1e-8 * max(1.0, np.abs(b).max())


def test_the_woodbury_path_runs_on_a_linear_kernel_dual():
    # a rank-6 box dual: every Newton system is solved by the identity, none falls back
    rng = np.random.default_rng(1)
    F = rng.normal(size=(800, 6))
    P, q = F @ F.T, -np.ones(800)
    lo, hi = np.full(800, -0.1), np.ones(800)
    A, b = np.zeros((0, 800)), np.zeros(0)
    state = ipm._IPMState(P, q, lo, hi, A, b)
    assert state.F is not None and state.F.shape[1] == 6
    for _ in range(80):
        res = state.residuals()
        if state.converged(res, 1e-11):
            break
        assert state.iterate(res)
    assert state.converged(state.residuals(), 1e-11)
    assert state.low_rank_fallbacks == 0
    z_dense = ipm.interior_point(P, q, lo, hi, A, b, low_rank=None)[0]
    assert _objective(P, q, state.z) == pytest.approx(_objective(P, q, z_dense), rel=1e-10, abs=1e-10)


def test_an_inaccurate_woodbury_solve_is_refused_and_the_dense_path_takes_over():
    # a factor that misses part of P (P = F F' + 10 I, the solver given F alone)
    # with a diagonal below the missing part: the identity solves another system,
    # refinement against the exact P diverges, and the solver must say so (None),
    # not return it
    rng = np.random.default_rng(2)
    n = 400
    F = rng.normal(size=(n, 5))
    P = F @ F.T + 10.0 * np.eye(n)
    solver = ipm._WoodburySolver(P, F, np.full(n, 1e-3), np.abs(P).sum(axis=1))
    assert solver.solve(rng.normal(size=n)) is None
    # an interior-point run given that factor falls back at its first solve, before
    # any move, and ends exactly as the dense run
    q, lo, hi = -np.ones(n), np.zeros(n), np.ones(n)
    A, b = np.zeros((0, n)), np.zeros(0)
    state = ipm._IPMState(P, q, lo, hi, A, b, low_rank=F)
    assert state.iterate(state.residuals())
    assert state.low_rank_fallbacks == 1 and state.F is None
    z = ipm.interior_point(P, q, lo, hi, A, b, low_rank=F)[0]
    z_dense = ipm.interior_point(P, q, lo, hi, A, b, low_rank=None)[0]
    assert np.array_equal(z, z_dense)


def _count_woodbury_solves(monkeypatch):
    """Count the Woodbury solves that were accepted."""
    accepted = []
    real = ipm._WoodburySolver.solve

    def counted(self, R):
        X = real(self, R)
        accepted.append(X is not None)
        return X

    monkeypatch.setattr(ipm._WoodburySolver, "solve", counted)
    return accepted


def test_smo_estimators_give_the_same_model_with_and_without_the_woodbury_path(monkeypatch):
    from sklearn.datasets import make_classification

    from lupikit.twinsvm import PinballTwinSVC, PrivilegedPinballTwinSVC

    X, y = make_classification(n_samples=900, n_features=6, n_informative=4, random_state=0)
    Xs = X[:, :3] + np.random.default_rng(0).normal(scale=0.3, size=(900, 3))
    fits = {}
    for mode in ("dense", "low-rank"):
        if mode == "dense":
            monkeypatch.setattr(smo_module, "low_rank_factor", lambda P: None)
        else:
            monkeypatch.undo()
            accepted = _count_woodbury_solves(monkeypatch)
        fits[mode] = [
            PinballTwinSVC(kernel="linear", C1=1.0, C2=1.0, tau=0.5).fit(X, y),
            PrivilegedPinballTwinSVC(kernel="linear", C1=1.0, C2=1.0, tau=0.5)
            .fit(X, y, privileged_features=Xs),
        ]
    assert sum(accepted) > 0  # the interior-point phases ran on the identity
    for dense, fast in zip(fits["dense"], fits["low-rank"]):
        agree = np.mean(dense.predict(X) == fast.predict(X))
        assert agree >= 0.999
        np.testing.assert_allclose(fast.decision_function(X), dense.decision_function(X),
                                   rtol=1e-3, atol=1e-3)
