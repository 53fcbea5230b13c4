"""Every fast path of the relevance solver falls back to its exact route.

Each test forces one fast path to fail (or takes a problem on which it fails
by itself) and checks that the fit still finishes with the exact route's
answer, and that ``fallbacks_`` counts the failure.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import OptimizeResult

from lupikit.datasets import make_lupi_ordinal, make_ordinal_relevance
from lupikit.relevance import FeatureRelevanceBounds, LinearProgramError, select_C, solve_lp
from lupikit.relevance import _cv, _dual_path, _highs, _primal
from lupikit.relevance._engine import FALLBACKS


def _fit(X, y, **params):
    kw = dict(C=1.0, n_permutations=8, random_state=0)
    kw.update(params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return FeatureRelevanceBounds(**kw).fit(X, y)


def _assert_same_fit(got, ref, atol=1e-7):
    np.testing.assert_allclose(got.interval_, ref.interval_, atol=atol)
    np.testing.assert_allclose(got.probe_values_["max"], ref.probe_values_["max"], atol=atol)
    assert got.relevance_classes_.tolist() == ref.relevance_classes_.tolist()


@pytest.fixture(scope="module")
def dual_data():
    # 200 samples of 3 labels: 400 margin rows, so "auto" takes the dual route
    X, y, _ = make_ordinal_relevance(n_samples=200, n_strong=2, n_weak=2, n_irrelevant=3,
                                     random_state=0)
    return X, y


@pytest.fixture(scope="module")
def reference(dual_data):
    return _fit(*dual_data)


def test_an_ordinary_fit_counts_no_fallback(reference):
    assert reference.fallbacks_ == {key: 0 for key in FALLBACKS}
    assert reference.n_probes_failed_ == 0


def _separable_folds():
    # d = 100 > a training fold's 160 samples: the folds are separable, and at large C
    # the path of fold 1 on the whole data's dual ends with a certificate gap of 1e-7
    # (relative 1.5e-8: HiGHS' tolerances, not a wrong answer), which failed the fit
    rng = np.random.default_rng(17)
    X = rng.standard_normal((200, 100))
    s = X[:, :3] @ rng.normal(size=3)
    return X, np.digitize(s, np.quantile(s, [0.25, 0.5, 0.75]))


def test_a_failed_fold_path_is_solved_as_the_folds_own_lp(monkeypatch):
    X, y = _separable_folds()
    counts = _cv.Counter()
    C, scores = _cv._select_C(X, y, None, list(_cv.C_GRID), "explicit", 1.0, 5, 0, None,
                              "auto", None, counts)
    assert counts["fold_path"] >= 1
    # the exact route: every fold as its own LP
    monkeypatch.setattr(_cv, "_whole_data_lp", lambda *args: None)
    C_own, own = select_C(X, y, cv=5, random_state=0)
    assert C == C_own
    # (at C = 0.01 the optimum is not unique, w = 0 with a range of thresholds: its
    # score depends on the vertex a solver stops at)
    unique = np.asarray(_cv.C_GRID) >= 0.03
    np.testing.assert_allclose(scores[unique], own[unique], atol=1e-9)


def test_every_fold_path_forced_to_fail(dual_data, monkeypatch):
    X, y = dual_data
    ref = _fit(X, y, C=None, C_grid=[0.1, 1.0, 10.0], cv=3)
    path = _dual_path.DualPath.model_path
    monkeypatch.setattr(_dual_path.DualPath, "model_path",
                        lambda self, Cs, samples=None: None if samples is not None
                        else path(self, Cs))
    got = _fit(X, y, C=None, C_grid=[0.1, 1.0, 10.0], cv=3)
    assert got.fallbacks_["fold_path"] == 3
    np.testing.assert_allclose(got.cv_scores_, ref.cv_scores_, atol=1e-9)
    assert got.C_ == ref.C_
    _assert_same_fit(got, ref)


def test_a_failed_model_path_is_solved_by_the_primal(dual_data, monkeypatch):
    X, y = dual_data
    ref = _cv._cv_errors(X, y, None, [(0.1, 1.0), (1.0, 1.0)], "explicit", 3, 0, None)
    monkeypatch.setattr(_cv, "_whole_data_lp", lambda *args: None)  # paths of own LPs
    monkeypatch.setattr(_dual_path.DualPath, "model_path", lambda self, Cs, samples=None: None)
    counts = _cv.Counter()
    got = _cv._cv_errors(X, y, None, [(0.1, 1.0), (1.0, 1.0)], "explicit", 3, 0, None,
                         fallbacks=counts)
    assert counts["model_path"] == 3
    np.testing.assert_allclose(got, ref, atol=1e-9)


def test_dual_searches_forced_to_fail_are_solved_by_the_primal(dual_data, reference,
                                                               monkeypatch):
    monkeypatch.setattr(_dual_path.DualPath, "_search",
                        lambda self, *args, **kwargs: (None, False))
    got = _fit(*dual_data)
    assert got.fallbacks_["dual_search"] > 0
    _assert_same_fit(got, reference)


def test_screening_forced_to_fail_runs_the_exact_search(dual_data, reference, monkeypatch):
    monkeypatch.setattr(_dual_path.DualPath, "screen_signed",
                        lambda self, *args: (None, False))
    got = _fit(*dual_data, screening=True)
    assert got.fallbacks_["screening"] == dual_data[0].shape[1]
    assert got.n_screened_ == 0
    _assert_same_fit(got, reference)


def test_warm_starts_forced_to_fail_are_solved_cold(monkeypatch):
    X, y, _ = make_ordinal_relevance(n_samples=80, n_strong=2, n_weak=2, n_irrelevant=2,
                                     random_state=1)
    ref = _fit(X, y, solver="primal")
    monkeypatch.setattr(_primal.WarmPrimal, "run_checked", lambda self, *args: None)
    got = _fit(X, y, solver="primal")
    assert got.fallbacks_["warm_start"] > 0
    _assert_same_fit(got, ref)


def test_lupi_warm_starts_forced_to_fail_are_solved_cold(monkeypatch):
    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=80, n_strong=2, n_weak=2, n_irrelevant=1,
                                       n_privileged_irrelevant=1, random_state=0)
    kw = dict(C=1.0, gamma=1.0, n_permutations=6, random_state=0)
    ref = FeatureRelevanceBounds(**kw).fit(X, y, privileged_features=Xs)
    monkeypatch.setattr(_primal.WarmPrimal, "run_checked", lambda self, *args: None)
    got = FeatureRelevanceBounds(**kw).fit(X, y, privileged_features=Xs)
    assert got.fallbacks_["warm_start"] > 0
    np.testing.assert_allclose(got.interval_, ref.interval_, atol=1e-7)
    np.testing.assert_allclose(got.interval_privileged_, ref.interval_privileged_, atol=1e-7)


def test_dual_solves_failing_their_check_are_repeated_at_tight_tolerances(
        dual_data, reference, monkeypatch):
    certifies = _dual_path.DualPath._certifies

    def every_loose_solve_fails(self, *args):
        return self._tight and certifies(self, *args)

    monkeypatch.setattr(_dual_path.DualPath, "_certifies", every_loose_solve_fails)
    got = _fit(*dual_data)
    assert got.fallbacks_["tight_retry"] > 0
    _assert_same_fit(got, reference)


# ---------------------------------------------------------------- cold solves
def _small_lp():
    c = np.array([-1.0, -2.0, 0.5])
    A = sp.csc_array([[1.0, 1.0, 0.0], [0.0, 1.0, -1.0], [1.0, 0.0, 1.0]])
    b = np.array([4.0, 1.0, 3.0])
    bounds = np.array([[0.0, np.inf], [0.0, 3.0], [-1.0, 2.0]])
    return c, A, b, bounds


def test_an_undecided_cold_solve_is_decided_by_interior_point(monkeypatch):
    c, A, b, bounds = _small_lp()
    ref = solve_lp(c, A, b, bounds)
    linprog = _highs.linprog
    methods = []

    def undecided_simplex(*args, method, **kwargs):
        methods.append(method)
        if method == "highs":
            return OptimizeResult(status=4, message="model_status is Unknown")
        return linprog(*args, method=method, **kwargs)

    monkeypatch.setattr(_highs, "linprog", undecided_simplex)
    res = solve_lp(c, A, b, bounds)
    assert methods == ["highs", "highs-ipm"] and res.retries == 1
    np.testing.assert_allclose(res.fun, ref.fun, atol=1e-9)
    np.testing.assert_allclose(res.x, ref.x, atol=1e-8)
    methods.clear()
    assert solve_lp(c, A, b, bounds, ipm_first=True).retries == 0
    assert methods == ["highs-ipm"]


def test_a_cold_solve_that_no_route_decides_raises_with_its_count(monkeypatch):
    c, A, b, bounds = _small_lp()
    monkeypatch.setattr(_highs, "linprog", lambda *args, **kwargs: OptimizeResult(
        status=4, message="model_status is Unknown"))
    with pytest.raises(LinearProgramError, match="interior point") as info:
        solve_lp(c, A, b, bounds, what="test LP")
    assert info.value.status == 4 and info.value.retries == len(_highs.RETRIES)


def test_undecided_probes_are_dropped_counted_and_reported(monkeypatch):
    X, y, _ = make_ordinal_relevance(n_samples=80, n_strong=2, n_weak=2, n_irrelevant=2,
                                     random_state=1)
    ref = _fit(X, y, solver="primal", probes="replace", delta=0.3)
    solve = _primal.WarmPrimal.solve

    def probe_0_undecided(self, c, bounds, budget, *, probe=None, what="LP"):
        if probe is not None and probe.index == 0:
            raise LinearProgramError("numerical difficulties", 4)
        return solve(self, c, bounds, budget, probe=probe, what=what)

    monkeypatch.setattr(_primal.WarmPrimal, "solve", probe_0_undecided)
    with pytest.warns(UserWarning, match="could not decide their LP"):
        got = FeatureRelevanceBounds(C=1.0, n_permutations=8, random_state=0, solver="primal",
                                     probes="replace", delta=0.3).fit(X, y)
    assert got.n_probes_failed_ == 1
    assert np.isnan(got.probe_values_["max"][0])
    np.testing.assert_allclose(got.probe_values_["max"][1:], ref.probe_values_["max"][1:],
                               atol=1e-7)
    np.testing.assert_allclose(got.interval_, ref.interval_, atol=1e-7)


def test_a_features_own_undecided_lp_still_raises(monkeypatch):
    # a probe is a sample of the noise threshold and may be dropped; a feature's own
    # bound may not: if no route decides it, the fit says so
    X, y, _ = make_ordinal_relevance(n_samples=60, n_strong=1, n_weak=0, n_irrelevant=2,
                                     random_state=1)

    def undecided(self, c, bounds, budget, *, probe=None, what="LP"):
        raise LinearProgramError(f"The {what} ran into numerical difficulties", 4)

    monkeypatch.setattr(_primal.WarmPrimal, "solve", undecided)
    with pytest.raises(LinearProgramError, match="relevance LP"):
        _fit(X, y, solver="primal")


def test_infeasibility_certificates():
    # x0 + x1 <= -1 with x >= 0 is infeasible; HiGHS' ray may come with either sign
    A = sp.csr_array([[1.0, 1.0], [1.0, -1.0]])
    b = np.array([-1.0, 5.0])
    bounds = np.array([[0.0, np.inf], [0.0, np.inf]])
    assert _highs._infeasible(A, b, bounds, np.array([1.0, 0.0]))
    assert _highs._infeasible(A, b, bounds, np.array([-2.0, 0.0]))
    # a feasible system has no certificate, whatever the multipliers
    b_ok = np.array([1.0, 5.0])
    rng = np.random.default_rng(0)
    for _ in range(200):
        assert not _highs._infeasible(A, b_ok, bounds, rng.normal(size=2))
    # an unbounded column with a non-zero coefficient voids the certificate
    free = np.array([[-np.inf, np.inf], [0.0, np.inf]])
    assert not _highs._infeasible(A, b, free, np.array([1.0, 0.0]))


@pytest.mark.parametrize("solver", ["auto", "primal"])
def test_runs_stopped_by_the_iteration_limit_are_settled_exactly(dual_data, reference, solver,
                                                                 monkeypatch):
    # a stalling warm-started run is bounded by its iteration limit; here every run is
    # stopped after one pivot, and the exact routes (cold solves, the primal LP) answer
    ref = reference if solver == "auto" else _fit(*dual_data, solver=solver)
    monkeypatch.setattr(_highs, "ITERATION_FLOOR", 1)
    monkeypatch.setattr(_highs, "ITERATIONS_PER_ROW_AND_COLUMN", 0)
    got = _fit(*dual_data, solver=solver)
    assert got.fallbacks_["warm_start"] > 0
    if solver == "auto":
        assert got.fallbacks_["dual_search"] > 0
    _assert_same_fit(got, ref)
