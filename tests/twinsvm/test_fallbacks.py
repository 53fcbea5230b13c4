"""Issue 24: every fast route falls back to an exact one, and says so in ``fallbacks_``.

Each test forces one fast route to fail -- it raises, or returns garbage --
and checks that the fit still gives the exact answer (the primal optimum
solved directly by :func:`solve_primal`, and the decision values of the
reference fit) and that ``fallbacks_`` counts the fallback:

- SMO's interior-point phase with crossover (``"interior_point"``);
- SMO's active-set phase of Newton steps (``"active_set"``);
- the face-Newton steps of the polish (``"face_newton"``);
- cvxopt (``"cvxopt"``): it raised ``ZeroDivisionError`` on a badly scaled
  Pin-TWSVM of the issue's random search, and may stop with an ``"unknown"``
  status;
- the warm start of a polish (``"warm_start"``).
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import lupikit.twinsvm._qp as qp_module
import lupikit.twinsvm._smo as smo_module
from lupikit.datasets import make_lupi_classification
from lupikit.twinsvm import (
    PinballSVC,
    PinballTwinSVC,
    PrivilegedPinballTwinSVC,
    SVMPlus,
    smo_solve,
    solve_primal,
)

#: one estimator per shape of dual: a box, a box with one and with two equality
#: constraints, and the paired (alpha, beta) box of the privileged twin planes
ESTIMATORS = [
    PinballTwinSVC(C1=2.0, C2=0.5, tau=0.3),
    PrivilegedPinballTwinSVC(C1=2.0, C2=0.5, tau=0.3, correction_weight=0.5),
    PinballSVC(C=2.0, tau=0.3),
    SVMPlus(C=2.0, correction_weight=0.5),
]


def _id(est):
    return type(est).__name__


@pytest.fixture(scope="module")
def data():
    X, Xs, y = make_lupi_classification(50, n_features=4, n_privileged=3, random_state=3)
    return X, y, Xs


@pytest.fixture(scope="module")
def reference(data):
    """Per estimator: the primal optima solved directly and the decision
    values of an unforced fit."""
    X, y, Xs = data
    out = {}
    for est in ESTIMATORS:
        est = est.set_params(tol=1e-8)
        out[_id(est)] = (
            [p["objective"] for p in solve_primal(est, X, y, privileged_features=Xs)],
            est.fit(X, y, privileged_features=Xs).decision_function(X),
        )
    return out


def _fit_exact(est, data, reference):
    """Fit (no ConvergenceWarning allowed) and compare with the reference."""
    X, y, Xs = data
    est = est.set_params(tol=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est.fit(X, y, privileged_features=Xs)
    objectives, decision = reference[_id(est)]
    for plane, obj in zip(est.primal_, objectives):
        assert plane["primal_objective"] == pytest.approx(obj, rel=1e-7, abs=1e-9)
        assert plane["dual_objective"] == pytest.approx(obj, rel=1e-7, abs=1e-9)
    assert abs(est.duality_gap_) <= 1e-8
    np.testing.assert_allclose(est.decision_function(X), decision, atol=1e-5)
    return est


# ------------------------------------------------------------ interior point
@pytest.fixture
def ipm_now(monkeypatch):
    """The interior-point phase runs at SMO's first iteration (its work share
    is reached at once)."""
    monkeypatch.setattr(smo_module, "_IPM_SHARE", 0.0)


def _raise(*args, **kwargs):
    raise np.linalg.LinAlgError("forced failure")


@pytest.mark.parametrize("est", ESTIMATORS, ids=_id)
def test_interior_point_phase_that_raises_falls_back_to_smo(est, data, reference, ipm_now,
                                                             monkeypatch):
    monkeypatch.setattr(smo_module, "interior_point", _raise)
    est = _fit_exact(est, data, reference)
    assert est.fallbacks_["interior_point"] == len(est.dual_problems_)


@pytest.mark.parametrize("est, garbage", [
    *((est, g) for est in ESTIMATORS for g in ("nan", "far")),
    # equality constraints only: a crossover that cannot meet them
    *((est, "infeasible") for est in ESTIMATORS[2:]),
], ids=lambda v: v if isinstance(v, str) else _id(v))
def test_interior_point_phase_returning_garbage_falls_back_to_smo(est, garbage, data,
                                                                  reference, ipm_now,
                                                                  monkeypatch):
    true_ipm = smo_module.interior_point

    def garbage_ipm(P, q, lo, hi, A, b, **kwargs):
        z, sl, wl, su, wu, it = true_ipm(P, q, lo, hi, A, b, **kwargs)
        rng = np.random.default_rng(0)
        if garbage == "nan":
            z = np.full_like(z, np.nan)
        elif garbage == "far":  # a point of the box far from the optimum
            z = np.where(np.isfinite(hi), hi, lo + 10.0 * (1.0 + np.abs(z)))
            wl, wu = np.zeros_like(wl), np.zeros_like(wu)
        else:  # multipliers that put every variable on a bound: crossover lands off A z = b
            wl, wu = sl + 1.0, np.where(np.isfinite(hi), su + 1.0, 0.0)
            wl = wl * rng.integers(0, 2, wl.size)
        return z, sl, wl, su, wu, it

    monkeypatch.setattr(smo_module, "interior_point", garbage_ipm)
    est = _fit_exact(est, data, reference)
    assert est.fallbacks_["interior_point"] >= 1


# ------------------------------------------------------------- active set
@pytest.mark.parametrize("est", ESTIMATORS, ids=_id)
def test_active_set_phase_that_raises_falls_back_to_plain_smo(est, data, reference,
                                                              monkeypatch):
    monkeypatch.setattr(smo_module._SMOState, "subspace_step", _raise)
    est = _fit_exact(est, data, reference)
    assert est.fallbacks_["active_set"] >= 1


@pytest.mark.parametrize("est", ESTIMATORS, ids=_id)
def test_active_set_phase_returning_garbage_falls_back_to_plain_smo(est, data, reference,
                                                                    monkeypatch):
    def corrupt(self, F, prune=False):
        # moves x without updating the gradient, off the equality constraints
        self.x[F] = np.minimum(self.x[F] + 1.0, self.hi[F])
        return True, True, None

    monkeypatch.setattr(smo_module._SMOState, "subspace_step", corrupt)
    est = _fit_exact(est, data, reference)
    assert est.fallbacks_["active_set"] >= 1


def test_smo_result_counts_its_fallbacks(monkeypatch):
    rng = np.random.default_rng(0)
    F = rng.normal(size=(30, 5))
    P, q = F @ F.T, rng.normal(size=30)
    ref = smo_solve(P, q, 0.0, 1.0, tol=1e-10)
    assert ref.fallbacks == {"interior_point": 0, "active_set": 0}
    monkeypatch.setattr(smo_module, "_IPM_SHARE", 0.0)
    monkeypatch.setattr(smo_module, "interior_point", _raise)
    monkeypatch.setattr(smo_module._SMOState, "subspace_step", _raise)
    res = smo_solve(P, q, 0.0, 1.0, tol=1e-10)
    assert res.fallbacks == {"interior_point": 1, "active_set": 1}
    assert res.converged and res.objective == pytest.approx(ref.objective, rel=1e-10)


# ------------------------------------------------------------------ cvxopt
@pytest.mark.parametrize("error", [ZeroDivisionError, ArithmeticError, ValueError])
@pytest.mark.parametrize("est", ESTIMATORS, ids=_id)
def test_cvxopt_that_raises_falls_back_to_smo(est, error, data, reference, monkeypatch):
    def broken(*args, **kwargs):
        raise error("forced failure")

    monkeypatch.setattr(qp_module, "cvxopt_solve", broken)
    est = _fit_exact(est.set_params(solver="cvxopt"), data, reference)
    assert est.fallbacks_["cvxopt"] == len(est.dual_problems_)
    assert all(qp["solver"] == "smo" for qp in est.dual_problems_)


@pytest.mark.parametrize("est", ESTIMATORS, ids=_id)
def test_cvxopt_without_an_optimal_status_falls_back_to_smo(est, data, reference,
                                                            monkeypatch):
    true_cvxopt = qp_module.cvxopt_solve

    def stalled(*args, **kwargs):
        x, n_iter, duals = true_cvxopt(*args, **kwargs)
        duals["status"] = "unknown"
        return x + 0.1, n_iter, duals  # a wrong point: SMO starts from it (projected)

    monkeypatch.setattr(qp_module, "cvxopt_solve", stalled)
    est = _fit_exact(est.set_params(solver="cvxopt"), data, reference)
    assert est.fallbacks_["cvxopt"] == len(est.dual_problems_)


def test_cvxopt_capped_by_the_callers_max_iter_warns_instead(data):
    # a status other than "optimal" at the caller's max_iter is the cap, not a stall
    X, y, Xs = data
    with pytest.warns(ConvergenceWarning, match="cvxopt stopped with status"):
        est = SVMPlus(solver="cvxopt", max_iter=2).fit(X, y, privileged_features=Xs)
    assert est.fallbacks_["cvxopt"] == 0


# ---------------------------------------------------------------- polishing
def _loose_cvxopt(monkeypatch):
    """cvxopt at a loose tolerance: every solution needs the polish."""
    true_cvxopt = qp_module.cvxopt_solve

    def loose(*args, **kwargs):
        kwargs["tol"] = 1e-3
        return true_cvxopt(*args, **kwargs)

    monkeypatch.setattr(qp_module, "cvxopt_solve", loose)


@pytest.mark.parametrize("est", [ESTIMATORS[2], ESTIMATORS[3]], ids=_id)
def test_failed_warm_start_of_the_polish_starts_smo_cold(est, data, reference, monkeypatch):
    # with equality constraints the start is projected onto A z = b: make that fail
    _loose_cvxopt(monkeypatch)
    monkeypatch.setattr(qp_module, "_project_affine_box", lambda *a, **k: None)
    est = _fit_exact(est.set_params(solver="cvxopt"), data, reference)
    assert est.fallbacks_["polish"] >= 1
    assert est.fallbacks_["warm_start"] >= 1


@pytest.mark.parametrize("garbage", ["raise", "outside", "worse"])
@pytest.mark.parametrize("est", ESTIMATORS, ids=_id)
def test_failed_face_newton_step_keeps_the_smo_point(est, garbage, data, reference,
                                                     monkeypatch):
    _loose_cvxopt(monkeypatch)

    def broken(qp, x, **kwargs):
        if garbage == "raise":
            raise np.linalg.LinAlgError("forced failure")
        if garbage == "outside":
            return x - 1.0 - np.abs(x)  # below every lower bound
        return np.where(np.isfinite(qp["hi"]), 0.5 * (qp["lo"] + qp["hi"]), qp["lo"] + 1.0)

    monkeypatch.setattr(qp_module, "_face_newton", broken)
    est = _fit_exact(est.set_params(solver="cvxopt"), data, reference)
    assert est.fallbacks_["face_newton"] >= 1
