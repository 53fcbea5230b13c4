import numpy as np
import pytest
import scipy.sparse as sp

from lupikit.datasets import make_lupi_ordinal, make_ordinal_relevance
from lupikit.metrics import mean_absolute_error, mean_zero_one_error
from lupikit.relevance import _dual_path
from lupikit.relevance._highs import _highs_api
from lupikit.relevance import (
    LinearProgramError,
    OrdinalLP,
    OrdinalRegressionLP,
    Probe,
    RelevanceTask,
    check_ordinal_labels,
    solve_lp,
)


def as_tasks(tuples):
    """``RelevanceTask`` s from ``(kind, column, probe values or None, zero_feature)``:
    tasks that share a values array and a replaced feature share a probe."""
    probes, out = {}, []
    for kind, j, values, zero in tuples:
        probe = None
        if values is not None:
            key = (id(values), zero)
            if key not in probes:
                probes[key] = Probe(len(probes), kind in ("pmin", "pmax"), values,
                                    None if zero is None else zero[1])
            probe = probes[key]
        out.append(RelevanceTask(kind, j, probe))
    return out


def _hinge_objective(model, X, yb, C, constraints):
    """Objective recomputed from (w, thresholds) with the hinge formula."""
    f = X @ model.coef_
    b = model.thresholds_
    K = b.size
    loss = 0.0
    for i in range(X.shape[0]):
        ks = range(K) if constraints == "implicit" else [k for k in (yb[i] - 1, yb[i]) if 0 <= k < K]
        for k in ks:
            if yb[i] <= k:
                loss += max(0.0, 1 + f[i] - b[k])
            else:
                loss += max(0.0, 1 - f[i] + b[k])
    return 0.5 * np.abs(model.coef_).sum() + C * loss


@pytest.fixture(scope="module")
def small():
    X, y, truth = make_ordinal_relevance(n_samples=40, n_strong=2, n_weak=2, n_irrelevant=1,
                                         n_bins=3, noise=1.0, random_state=1)
    return X, y


@pytest.mark.parametrize("constraints", ["explicit", "implicit"])
@pytest.mark.parametrize("C", [0.1, 1.0])
def test_optimum_matches_cvxopt(small, reference_lp, constraints, C):
    X, y = small
    model = OrdinalRegressionLP(C=C, constraints=constraints).fit(X, y)
    ref, _, _ = reference_lp(X, y, 3, C, constraints)
    assert model.objective_ == pytest.approx(ref, rel=1e-6, abs=1e-7)
    assert abs(model.duality_gap_) < 1e-6
    # the returned (w, thresholds) attain the optimum: recompute by the hinge formula
    assert _hinge_objective(model, X, y, C, constraints) == pytest.approx(ref, rel=1e-6, abs=1e-7)
    assert np.all(np.diff(model.thresholds_) >= 0)


def test_closed_form_separable():
    # w x - b <= -1 for x = -1 and >= 1 for x = 1 force w >= 1; optimum w = 1, b = 0
    X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    y = np.array([0, 0, 1, 1])
    model = OrdinalRegressionLP(C=1.0).fit(X, y)
    assert model.objective_ == pytest.approx(0.5)
    assert model.coef_[0] == pytest.approx(1.0)
    assert model.thresholds_[0] == pytest.approx(0.0, abs=1e-9)
    assert model.predict(X).tolist() == [0, 0, 1, 1]


def test_lupi_optimum_matches_cvxopt(reference_lp):
    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=40, n_strong=2, n_weak=2, n_irrelevant=1,
                                       n_privileged_irrelevant=1, n_bins=3, random_state=0)
    model = OrdinalRegressionLP(C=1.0, gamma=0.5).fit(X, y, privileged_features=Xs)
    ref, x, idx = reference_lp(X, y, 3, 1.0, "explicit", X_star=Xs, gamma=0.5)
    assert model.objective_ == pytest.approx(ref, rel=1e-6, abs=1e-7)
    assert model.coef_privileged_.shape == (Xs.shape[1], 2)
    # correcting functions are non-negative where they are used
    chi = Xs[y < 2] @ model.coef_privileged_[:, 0] + model.intercept_privileged_[0]
    xi = Xs[y > 0] @ model.coef_privileged_[:, 1] + model.intercept_privileged_[1]
    assert chi.min() >= -1e-7 and xi.min() >= -1e-7


def test_implicit_sorting_keeps_optimum():
    X, y, _ = make_ordinal_relevance(n_samples=60, n_bins=5, noise=2.0, random_state=3)
    model = OrdinalRegressionLP(C=0.5, constraints="implicit").fit(X, y)
    assert np.all(np.diff(model.thresholds_) >= 0)
    assert _hinge_objective(model, X, y, 0.5, "implicit") == pytest.approx(model.objective_, rel=1e-7)


def test_binary_is_two_bin_case(small):
    X, y = small
    yy = (y > 0).astype(int) + 5  # labels 5, 6
    model = OrdinalRegressionLP(C=1.0).fit(X, yy)
    assert model.thresholds_.shape == (1,)
    assert set(model.predict(X)) <= {5, 6}
    assert mean_zero_one_error(yy, model.predict(X)) < 0.3


def test_predict_learns(small):
    X, y, _ = make_ordinal_relevance(n_samples=200, random_state=0)
    model = OrdinalRegressionLP(C=1.0).fit(X[:150], y[:150])
    assert mean_absolute_error(y[150:], model.predict(X[150:])) < 0.5


def test_label_gap_warns_and_never_predicts_missing():
    X, y, _ = make_ordinal_relevance(n_samples=60, n_bins=4, random_state=0)
    y = np.where(y >= 2, y + 1, y)  # labels 0, 1, 3, 4: gap at 2
    with pytest.warns(UserWarning, match=r"gap.*\[2\]"):
        model = OrdinalRegressionLP().fit(X, y)
    assert model.classes_.tolist() == [0, 1, 3, 4]
    assert 2 not in set(model.predict(X))


@pytest.mark.parametrize("y, match", [
    ([1, 1, 1, 1], "only one class"),
    ([1.0, 1.5, 2.0, 2.0], "integer ordinal labels"),
    (["a", "b", "a", "b"], "integer ordinal labels"),
    ([1, np.nan, 2, 2], "NaN"),
])
def test_bad_labels(y, match):
    X = np.arange(8.0).reshape(4, 2)
    with pytest.raises(ValueError, match=match):
        OrdinalRegressionLP().fit(X, y)


def test_bad_inputs():
    X = np.arange(8.0).reshape(4, 2)
    y = [0, 0, 1, 1]
    with pytest.raises(ValueError, match="'C' parameter of OrdinalRegressionLP must"):
        OrdinalRegressionLP(C=0).fit(X, y)
    with pytest.raises(ValueError, match="'constraints' parameter"):
        OrdinalRegressionLP(constraints="both").fit(X, y)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        OrdinalRegressionLP().fit(Xn, y)
    with pytest.raises(ValueError, match="privileged_features has 3 rows"):
        OrdinalRegressionLP().fit(X, y, privileged_features=np.ones((3, 1)))
    with pytest.raises(ValueError, match="explicit"):
        OrdinalRegressionLP(constraints="implicit").fit(X, y, privileged_features=np.ones((4, 1)))
    with pytest.raises(ValueError, match="labels but X has"):
        OrdinalRegressionLP().fit(X, [0, 1, 1])


def test_check_ordinal_labels_maps_bins():
    from sklearn.exceptions import DataConversionWarning

    with pytest.warns(UserWarning, match="gap"), pytest.warns(DataConversionWarning):
        classes, yb = check_ordinal_labels(np.array([[7.0], [3.0], [5.0]]))
    assert classes.tolist() == [3, 5, 7] and yb.tolist() == [2, 0, 1]


def test_infeasible_and_unbounded_raise():
    X, y, _ = make_ordinal_relevance(n_samples=30, n_bins=3, random_state=0)
    lp = OrdinalLP(X, y, 3, 1.0)
    mu = lp.solve_model().fun
    with pytest.raises(LinearProgramError, match="infeasible") as info:
        lp.solve_relevance("max", 0, 0.5 * mu)  # budget below the optimum
    assert info.value.status == 2
    A = sp.csc_array(np.array([[1.0, -1.0]]))
    with pytest.raises(LinearProgramError, match="unbounded") as info:
        solve_lp(np.array([-1.0, 0.0]), A, np.array([1.0]), np.array([[0, np.inf], [0, np.inf]]))
    assert info.value.status == 3


def test_relevance_lp_matches_cvxopt(small, reference_lp):
    X, y = small
    C, delta = 1.0, 0.2
    lp = OrdinalLP(X, y, 3, C)
    mu = lp.solve_model().fun
    budget = (1 + delta) * mu
    for j in range(X.shape[1]):
        lo = lp.solve_relevance("min", j, budget)
        hi = lp.solve_relevance("max", j, budget)

        def obj(sign, kind):
            def f(idx, nv):
                c = np.zeros(nv)
                if kind == "min":
                    c[idx["t"][j]] = 1.0
                else:
                    c[idx["w"][j]] = -sign
                return c
            return f

        ref_lo = reference_lp(X, y, 3, C, budget=budget, objective=obj(1, "min"))[0]
        ref_hi = max(-reference_lp(X, y, 3, C, budget=budget, objective=obj(s, "max"))[0]
                     for s in (1, -1))
        assert lo == pytest.approx(max(ref_lo, 0), abs=1e-6)
        assert hi == pytest.approx(ref_hi, rel=1e-6, abs=1e-6)
        assert lo <= hi + 1e-9


def test_warm_started_tasks_equal_cold_solves(small):
    X, y = small
    lp = OrdinalLP(X, y, 3, 1.0, probe=True)
    mu = lp.solve_model().fun
    budget = 1.1 * mu
    tasks = [(k, j, None, None) for j in range(X.shape[1]) for k in ("min", "max")]
    warm = lp.run_tasks(as_tasks(tasks), budget)
    cold = OrdinalLP(X, y, 3, 1.0)
    ref = [cold.solve_relevance(k, j, budget) for k, j, _, _ in tasks]
    np.testing.assert_allclose(warm, ref, atol=1e-7)


@pytest.mark.parametrize("delta", [0.02, 0.1, 1.0])
def test_warm_started_probe_tasks_equal_cold_solves(small, delta):
    # appended and replacing probes; with a small delta, replacing a strongly relevant
    # feature makes the model's basis infeasible (or the whole LP infeasible), which the
    # warm path must settle like a cold solve (a value, or nan for an infeasible probe)
    from lupikit.relevance import LinearProgramError

    X, y = small
    d = X.shape[1]
    lp = OrdinalLP(X, y, 3, 1.0, probe=True)
    budget = (1 + delta) * lp.solve_model().fun
    rng = np.random.default_rng(0)
    tasks, refs = [], []
    for f in (0, 1, d - 1):
        vals = X[rng.permutation(X.shape[0]), f]
        tasks.append(("max", lp.D - 1, vals, None))
        refs.append(OrdinalLP(np.c_[X, vals], y, 3, 1.0).solve_relevance("max", d, budget))
        tasks.append(("max", lp.D - 1, vals, ("regular", f)))
        X2 = X.copy()
        X2[:, f] = vals
        try:
            refs.append(OrdinalLP(X2, y, 3, 1.0).solve_relevance("max", f, budget))
        except LinearProgramError as exc:
            assert exc.status == 2
            refs.append(np.nan)
    warm = lp.run_tasks(as_tasks(tasks), budget)
    np.testing.assert_allclose(warm, refs, atol=1e-7)


@pytest.fixture
def dual_path(monkeypatch):
    """Use the parametric dual search for every plain model, whatever its size."""
    from lupikit.relevance import _dual_path

    monkeypatch.setattr(_dual_path, "MIN_MARGIN_ROWS", 0)
    return _dual_path


@pytest.mark.parametrize("constraints", ["explicit", "implicit"])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_dual_path_bounds_equal_cold_solves(dual_path, C, constraints):
    # regular features (minrel read off the two upper bounds) and appended probes,
    # against the primal LP solved from scratch
    X, y, _ = make_ordinal_relevance(n_samples=80, n_strong=2, n_weak=2, n_irrelevant=2,
                                     n_bins=4, random_state=3)
    d = X.shape[1]
    lp = OrdinalLP(X, y, 4, C, constraints, probe=True)
    budget = 1.1 * lp.solve_model().fun
    rng = np.random.default_rng(1)
    probes = [X[rng.permutation(X.shape[0]), f] for f in (0, 2, 5)]
    tasks = [(k, j, None, None) for j in range(d) for k in ("min", "max")]
    tasks += [(k, lp.D - 1, v, None) for v in probes for k in ("min", "max")]
    # probes first, then the features: the probe slot is switched off again in between
    values = lp.run_tasks(as_tasks(tasks[2 * d:]), budget)
    values = lp.run_tasks(as_tasks(tasks[:2 * d]), budget) + values
    assert lp.engine.dual() is not None
    cold = OrdinalLP(X, y, 4, C, constraints)
    ref = [cold.solve_relevance(k, j, budget) for k, j, _, _ in tasks[:2 * d]]
    for v in probes:
        with_probe = OrdinalLP(np.c_[X, v], y, 4, C, constraints)
        ref += [0.0, with_probe.solve_relevance("max", d, budget)]
    np.testing.assert_allclose(values, ref, atol=1e-7)
    assert max(values[1:2 * d:2]) > 0.1  # not a trivial all-zero check


def test_dual_path_keeps_the_threshold_order(dual_path):
    # explicit thresholds are kept ordered by extra rows b_k <= b_{k+1}; with a lone
    # sample in the middle bin they bind at some extreme models, and the dual search
    # must carry their multipliers (without them it overstated maxrel here)
    rng = np.random.default_rng(0)
    binding = 0
    for _ in range(60):
        X = rng.normal(size=(40, 3))
        y = np.where(X[:, 0] + 0.5 * rng.normal(size=40) > 0, 2, 0)
        y[rng.integers(40)] = 1
        lp = OrdinalLP(X, y, 3, 1.0)
        budget = 1.5 * lp.solve_model().fun
        tasks = [(k, j, None, None) for j in range(3) for k in ("min", "max")]
        cold = OrdinalLP(X, y, 3, 1.0)
        ref = [cold.solve_relevance(k, j, budget) for k, j, _, _ in tasks]
        np.testing.assert_allclose(lp.run_tasks(as_tasks(tasks), budget), ref, atol=1e-7)
        # the same upper bounds without the order rows
        keep = np.r_[np.arange(cold.r_order), np.arange(cold.r_budget, cold.n_rows)]
        b = cold.b.copy()
        b[cold.r_budget] = budget
        loose = [max(-solve_lp(c, cold.A[keep], b[keep], cold.bounds).fun for c, _ in
                     cold.relevance_objectives("max", j)) for j in range(3)]
        binding += not np.allclose(loose, ref[1::2], atol=1e-7)
    assert binding > 0  # the order rows mattered for some data sets


def test_dual_path_agrees_with_the_primal_on_random_problems(dual_path):
    # random sizes, label counts, C, delta, both threshold forms, appended probes:
    # the dual search (or its fallback to the primal LP) gives the primal's bounds
    from lupikit.relevance import _dual_path

    rng = np.random.default_rng(123)
    for _ in range(30):
        n, n_bins = int(rng.integers(20, 100)), int(rng.integers(2, 6))
        C, delta = float(10 ** rng.uniform(-2, 2)), float(rng.choice([0.0, 0.01, 0.1, 0.5, 2.0]))
        constraints = str(rng.choice(["explicit", "implicit"]))
        X = rng.normal(size=(n, int(rng.integers(1, 6))))
        score = X[:, 0] + rng.uniform(0, 2) * rng.normal(size=n)
        y = np.unique(np.digitize(score, np.quantile(score, np.linspace(0, 1, n_bins + 1)[1:-1])),
                      return_inverse=True)[1]
        d = X.shape[1]
        tasks = [(k, j, None, None) for j in range(d) for k in ("min", "max")]
        tasks += [(k, d, X[rng.permutation(n), f], None) for f in rng.integers(d, size=2)
                  for k in ("min", "max")]
        values = []
        for rows in (0, 10**9):  # dual search, then the primal simplex only
            _dual_path.MIN_MARGIN_ROWS = rows
            lp = OrdinalLP(X, y, y.max() + 1, C, constraints, probe=True)
            mu = lp.solve_model().fun
            values.append(lp.run_tasks(as_tasks(tasks), (1 + delta) * mu + 1e-7 * max(1.0, mu)))
        np.testing.assert_allclose(values[0], values[1], atol=1e-6 * max(1.0, max(values[1])))


def test_dual_path_second_sign_stops_at_a_certificate(dual_path, monkeypatch):
    # max |w_j| needs only the larger signed maximum, and min |w_j| the smaller one
    # only if it is negative: the second search may stop once weak duality puts its
    # maximum below the first and a feasible point puts it at >= 0. Each early value
    # must lie in [0, exact maximum], with the exact maximum below the first sign's,
    # and the bounds must still equal the primal route's
    from lupikit.relevance._dual_path import DualPath

    X, y, _ = make_ordinal_relevance(n_samples=120, n_strong=2, n_weak=2, n_irrelevant=4,
                                     random_state=0)
    n, d = X.shape
    rng = np.random.default_rng(0)
    tasks = [(k, j, None, None) for j in range(d) for k in ("min", "max")]
    tasks += [(k, d, X[rng.permutation(n), f], None) for f in rng.integers(d, size=12)
              for k in ("min", "max")]
    seen = []
    search = DualPath.max_signed

    def recording(self, j, s, budget, beat=None):
        out = search(self, j, s, budget, beat)
        if beat is not None:
            seen.append((out, search(self, j, s, budget), beat))  # and the full search
        return out

    monkeypatch.setattr(DualPath, "max_signed", recording)
    lp = OrdinalLP(X, y, 5, 1.0, probe=True)
    budget = 1.1 * lp.solve_model().fun
    values = lp.run_tasks(as_tasks(tasks), budget)
    assert len(seen) == d + 12  # one second search per column
    early = [(out, exact, beat) for out, exact, beat in seen if abs(out - exact) > 1e-9]
    assert len(early) >= len(seen) // 2  # measured: 17 of 20
    for out, exact, beat in early:
        assert -1e-12 <= out <= exact + 1e-9 and exact < beat
    monkeypatch.setattr(dual_path, "MIN_MARGIN_ROWS", 10**9)
    ref = OrdinalLP(X, y, 5, 1.0, probe=True).run_tasks(as_tasks(tasks), budget)
    np.testing.assert_allclose(values, ref, atol=1e-7)


def test_dual_path_cheaper_sign_usually_has_the_larger_maximum(dual_path):
    # for a probe (weight 0 in the optimal model) the side where the hinge loss rises
    # least should usually allow the larger weight: compared with both exact maxima
    X, y, _ = make_ordinal_relevance(n_samples=120, n_strong=2, n_weak=2, n_irrelevant=4,
                                     random_state=1)
    n, d = X.shape
    lp = OrdinalLP(X, y, 5, 1.0, probe=True)
    budget = 1.1 * lp.solve_model().fun
    dual = lp.engine.dual()
    rng = np.random.default_rng(1)
    right = 0
    for _ in range(30):
        dual.load_probe(X[rng.permutation(n), rng.integers(d)])
        s = dual.cheaper_sign(d)
        right += dual.max_signed(d, s, budget) >= dual.max_signed(d, -s, budget)
    assert right >= 21  # measured: 26 of 30 (a coin would give 15)


def test_lupi_certifier_bounds_every_relevance_lp():
    # weak duality: for every tilt, objective (regular or privileged, with a probe
    # loaded in either slot) the certifier's bound is at least the LP's exact maximum,
    # solved cold by scipy; and near the right tilt it is tight
    from lupikit.relevance._highs import _highs_api
    from lupikit.relevance._lupi_dual import LupiCertifier

    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=80, n_strong=2, n_weak=2, n_irrelevant=2,
                                       n_privileged_irrelevant=2, random_state=2)
    lp = OrdinalLP(X, y, np.unique(y).size, 1.0, X_star=Xs, probe=True)
    budget = 1.2 * lp.solve_model().fun
    cert = LupiCertifier(lp, _highs_api())
    rng = np.random.default_rng(0)
    b = lp.b.copy()
    b[lp.r_budget] = budget
    gaps = []
    for kind, j, probe in [("max", 0, None), ("max", 3, None), ("pmax", 0, None),
                           ("max", lp.D - 1, "regular"), ("pmax", lp.P - 1, "privileged")]:
        loaded = None
        lp.set_probe_bounds(False, False)
        if probe is not None:
            values = (X if probe == "regular" else Xs)[rng.permutation(X.shape[0]), 0]
            loaded = Probe(0, probe == "privileged", values)
            lp.set_probe(values, privileged=probe == "privileged")
            lp.set_probe_bounds(regular=probe == "regular", privileged=probe == "privileged")
        cert.sync_probe(loaded)
        for c, _ in lp.relevance_objectives(kind, j):
            res = solve_lp(c, lp.A, b, lp.bounds)
            exact = -res.fun
            tau = -1.0 / min(res.ineqlin.marginals[lp.r_budget], -1e-12)
            for t in (tau / 3, tau, 3 * tau):
                upper, point = cert.bound(c, t, budget)
                assert upper >= exact - 1e-7
            gaps.append(cert.bound(c, tau, budget)[0] - exact)
    assert np.median(gaps) < 1e-6  # at the LP's own multiplier the bound is its value

    # a wrong answer from HiGHS (column values that do not satisfy the dual) must not
    # give a bound: the certifier checks them itself
    from types import SimpleNamespace

    class Wrong:
        def __init__(self, h):
            self._h = h

        def __getattr__(self, name):
            return getattr(self._h, name)

        def getSolution(self):
            sol = self._h.getSolution()
            return SimpleNamespace(col_value=list(3.0 * np.asarray(sol.col_value)),
                                   row_dual=sol.row_dual)

    cert.h = Wrong(cert.h)
    c, _ = lp.relevance_objectives("pmax", lp.P - 1)[0]
    res = solve_lp(c, lp.A, b, lp.bounds)
    assert cert.bound(c, -1.0 / res.ineqlin.marginals[lp.r_budget], budget)[0] >= -res.fun - 1e-7


def test_lupi_certificates_agree_with_the_primal_on_random_problems():
    # random sizes, C, gamma, delta and probes: run_tasks with certificates gives the
    # values of solving every LP
    rng = np.random.default_rng(7)
    for _ in range(12):
        n, p = int(rng.integers(30, 90)), int(rng.integers(1, 4))
        X = rng.normal(size=(n, int(rng.integers(1, 5))))
        Xs = X[:, :1] + rng.normal(size=(n, p))
        score = X[:, 0] + rng.uniform(0, 2) * rng.normal(size=n)
        n_bins = int(rng.integers(2, 5))
        y = np.unique(np.digitize(score, np.quantile(score, np.linspace(0, 1, n_bins + 1)[1:-1])),
                      return_inverse=True)[1]
        C, gamma = float(10 ** rng.uniform(-1, 1.5)), float(10 ** rng.uniform(-1, 1))
        delta = float(rng.choice([0.01, 0.1, 0.5]))
        d = X.shape[1]
        tasks = [(k, j, None, None) for j in range(d) for k in ("min", "max")]
        tasks += [(k, j, None, None) for j in range(p) for k in ("pmin", "pmax")]
        tasks += [(k, d, X[rng.permutation(n), 0], None) for k in ("min", "max")]
        tasks += [(k, p, Xs[rng.permutation(n), 0], None) for k in ("pmin", "pmax")]
        values = []
        for solver in ("auto", "primal"):
            lp = OrdinalLP(X, y, y.max() + 1, C, X_star=Xs, gamma=gamma, probe=True,
                           solver=solver)
            mu = lp.solve_model().fun
            values.append(lp.run_tasks(as_tasks(tasks), (1 + delta) * mu + 1e-7 * max(1.0, mu)))
        np.testing.assert_allclose(values[0], values[1], atol=1e-6 * max(1.0, max(values[1])))


@pytest.mark.parametrize("constraints", ["explicit", "implicit"])
def test_path_over_C_on_the_dual_reaches_the_primal_optimum(small, constraints):
    # the cross-validation path over C: the dual route's solution vectors are feasible
    # and as good as the primal simplex's, for every C (optima need not be unique)
    X, y = small
    Cs = [0.01, 0.1, 1.0, 10.0, 100.0]
    dual = OrdinalLP(X, y, 3, 1.0, constraints).solve_path(Cs)
    primal_lp = OrdinalLP(X, y, 3, 1.0, constraints, solver="primal")
    primal = primal_lp.solve_path(Cs)
    A, b = primal_lp.A[: primal_lp.r_budget], primal_lp.b[: primal_lp.r_budget]
    c_reg, c_loss = primal_lp.cost_parts()
    for C, xd, xp in zip(Cs, dual, primal):
        assert np.all(A @ xd <= b + 1e-7) and np.all(xd >= primal_lp.bounds[:, 0] - 1e-12)
        assert c_reg @ xd + C * (c_loss @ xd) == pytest.approx(
            c_reg @ xp + C * (c_loss @ xp), rel=1e-8, abs=1e-9)


def _assert_fold_optimal(whole, own, Cs, path):
    """Each (w, b) of ``path`` (solutions of ``whole`` restricted to a fold) reaches the
    optimum of the fold's own LP ``own`` at its C (an independent solve with scipy's
    HiGHS), with the fold's order rows satisfied."""
    c_reg, c_loss = own.cost_parts()
    A, b = own.A[: own.r_budget], own.b[: own.r_budget]
    for C, x in zip(Cs, path):
        parts = whole.split(x)
        point = own.point(parts["w"], parts["b"])
        ref = solve_lp(c_reg + C * c_loss, A, b, own.bounds)
        assert np.all(A @ point <= b + 1e-7)
        assert c_reg @ point + C * (c_loss @ point) == pytest.approx(ref.fun, rel=1e-8, abs=1e-9)


@pytest.mark.parametrize("problem", ["ordinal", "regression"])
def test_path_of_a_fold_on_the_whole_lp_is_the_folds_own_optimum(small, problem):
    # the cross-validation's fold path: the whole data's dual with the other samples'
    # margin columns held at 0 is the dual of the fold's own model, so its solutions
    # reach the optimum of an LP built on the fold alone (an independent solve with
    # scipy's HiGHS), for every C, and do not depend on the folds solved before
    # (beyond rounding)
    X, y = small
    rng = np.random.default_rng(0)
    if problem == "regression":
        y = X @ rng.normal(size=X.shape[1]) + 0.3 * rng.normal(size=X.shape[0])
        kw, n_bins = dict(epsilon=0.1), 2
    else:
        kw, n_bins = {}, 3
    Cs = [0.01, 0.1, 1.0, 10.0]
    whole = OrdinalLP(X, y, n_bins, 1.0, **kw)
    folds = [np.sort(rng.choice(X.shape[0], X.shape[0] * 2 // 3, replace=False))
             for _ in range(3)]
    paths = [whole.solve_path(Cs, samples=tr) for tr in folds]
    again = whole.solve_path(Cs, samples=folds[0])
    for x1, x2 in zip(paths[0], again):  # the same vertex (up to rounding)
        np.testing.assert_allclose(x1, x2, atol=1e-10)
    for tr, path in zip(folds, paths):
        _assert_fold_optimal(whole, OrdinalLP(X[tr], y[tr], n_bins, 1.0, **kw), Cs, path)


class _CountingHighs:
    """A HiGHS instance that records its calls of clearSolver."""

    def __init__(self, h, calls):
        self._h, self._calls = h, calls

    def clearSolver(self):
        self._calls.append(1)
        return self._h.clearSolver()

    def __getattr__(self, name):
        return getattr(self._h, name)


def test_path_of_a_fold_with_row_generation_starts_from_the_same_point():
    # with more than ROW_GENERATION_MIN_WEIGHTS weights HiGHS holds only the rows a
    # solve needs and adds rows along a path; a later fold must still start from the
    # whole model's optimum (its rows and basis) and reach its own LP's optimum
    X, y, _ = make_ordinal_relevance(n_samples=60, n_strong=2, n_weak=2, n_irrelevant=106,
                                     n_bins=3, random_state=0)
    assert X.shape[1] > _dual_path.ROW_GENERATION_MIN_WEIGHTS
    Cs = [0.1, 1.0, 10.0]
    whole = OrdinalLP(X, y, 3, 1.0)
    rng = np.random.default_rng(1)
    folds = [np.sort(rng.choice(60, 40, replace=False)) for _ in range(2)]
    first = whole.solve_path(Cs, samples=folds[0])
    dual = whole.engine._fold_dual
    assert dual.generate_rows
    cleared = []
    dual.h = _CountingHighs(dual.h, cleared)
    whole.solve_path(Cs, samples=folds[1])
    assert len(dual.rows) > len(dual._fold_start[2])  # rows were added along the path
    again = whole.solve_path(Cs, samples=folds[0])
    assert cleared == []  # each fold restarted from the saved rows and basis
    for x1, x2 in zip(first, again):
        np.testing.assert_allclose(x1, x2, atol=1e-9)
    _assert_fold_optimal(whole, OrdinalLP(X[folds[0]], y[folds[0]], 3, 1.0), Cs, again)


def test_check_of_a_fold_rejects_multipliers_of_held_out_samples(small):
    # a fold's dual holds the other samples' margin columns at 0: multipliers that
    # are feasible for the whole data's dual but not for the fold's must fail the check
    X, y = small
    dual = _dual_path.DualPath(OrdinalLP(X, y, 3, 1.0), _highs_api())
    f0, w0 = dual.model
    u = dual._u.copy()
    held_out = np.unique(dual.lp.row_i[: dual.R][u[: dual.R] > 1e-6])[:3]
    active = ~np.isin(dual.lp.row_i, held_out)
    hinge = np.maximum(-dual.margin_rhs + dual.sign * (dual.XR @ w0 - dual.model_thresholds[dual.k]), 0.0)
    f_fold = 0.5 * np.abs(w0).sum() + 1.0 * hinge[active].sum()
    assert dual._certifies(None, 0.0, f0, w0, 1.0, u)  # the whole model's own check
    dual._active = active
    try:
        assert not dual._certifies(None, 0.0, f_fold, w0, 1.0, u)
    finally:
        dual._active = None


def test_path_of_a_fold_takes_indices(small):
    X, y = small
    with pytest.raises(TypeError, match="samples must be indices"):
        OrdinalLP(X, y, 3, 1.0).solve_path([1.0], samples=np.ones(len(y), dtype=bool))


def test_path_of_a_fold_needs_the_dual_route(small):
    X, y = small
    with pytest.raises(ValueError, match="samples= needs the route 'dual_path'"):
        OrdinalLP(X, y, 3, 1.0, solver="primal").solve_path([1.0], samples=np.arange(10))


def _lupi_path_problem():
    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=90, n_strong=2, n_weak=2, n_irrelevant=2,
                                       n_privileged_irrelevant=2, random_state=3)
    Cs = [0.01, 0.1, 1.0, 10.0, 100.0] * 2
    gammas = [0.1] * 5 + [10.0] * 5
    return X, Xs, y, Cs, gammas


def _assert_optimal_along(lp, path, Cs, gammas):
    # every point is feasible and as good as a cold scipy solve (optima need not be unique)
    A, b = lp.A[: lp.r_budget], lp.b[: lp.r_budget]
    for C, g, x in zip(Cs, gammas, path):
        other = OrdinalLP(lp.X, lp.yb, lp.K + 1, C, X_star=lp.X_star, gamma=g)
        assert np.all(A @ x <= b + 1e-7) and np.all(x >= lp.bounds[:, 0] - 1e-12)
        assert other.c_model @ x == pytest.approx(other.solve_model().fun, rel=1e-8, abs=1e-9)


def test_lupi_path_on_the_dual_reaches_the_optimum():
    # the cross-validation path over (C, gamma) of the LUPI model, on its LP dual
    X, Xs, y, Cs, gammas = _lupi_path_problem()
    lp = OrdinalLP(X, y, np.unique(y).size, 1.0, X_star=Xs)
    _assert_optimal_along(lp, lp.solve_path(Cs, gammas), Cs, gammas)
    primal = OrdinalLP(X, y, np.unique(y).size, 1.0, X_star=Xs, solver="primal")
    _assert_optimal_along(primal, primal.solve_path(Cs, gammas), Cs, gammas)


def test_lupi_path_catches_wrong_answers(monkeypatch):
    # a wrong answer of HiGHS' warm start (every third one here) fails the check and
    # that model is solved again from scratch
    from types import SimpleNamespace

    from lupikit.relevance import _engine, _lupi_dual

    class Faulty:
        def __init__(self, h):
            self._h, self.calls = h, 0

        def __getattr__(self, name):
            return getattr(self._h, name)

        def getSolution(self):
            sol = self._h.getSolution()
            self.calls += 1
            if self.calls % 3:
                return sol
            return SimpleNamespace(col_value=list(0.5 * np.asarray(sol.col_value)),
                                   row_dual=list(0.9 * np.asarray(sol.row_dual)))

    made, cold = [], []
    dual_simplex, solve_lp_ = _lupi_dual._dual_simplex, _engine.solve_lp
    monkeypatch.setattr(_lupi_dual, "_dual_simplex",
                        lambda *a: made.append(Faulty(dual_simplex(*a))) or made[-1])
    monkeypatch.setattr(_engine, "solve_lp", lambda *a, **k: cold.append(1) or solve_lp_(*a, **k))
    X, Xs, y, Cs, gammas = _lupi_path_problem()
    lp = OrdinalLP(X, y, np.unique(y).size, 1.0, X_star=Xs)
    path = lp.solve_path(Cs, gammas)
    assert len(made) == 1  # the path ran on the dual
    assert len(cold) == len(Cs) // 3  # each wrong answer, and only those, solved again
    monkeypatch.undo()
    _assert_optimal_along(lp, path, Cs, gammas)


def test_dual_path_constant_column(dual_path, small):
    # a constant (zero) column is free up to the budget: maxrel = 2 (B - mu), a ray of
    # the (f, t) frontier that the dual search cannot bracket; the primal LP answers
    X, y = small
    Xz = np.c_[X, np.zeros(X.shape[0])]
    lp = OrdinalLP(Xz, y, 3, 1.0)
    mu = lp.solve_model().fun
    budget = 1.1 * mu
    d = Xz.shape[1]
    assert lp.engine.dual().max_signed(d - 1, 1.0, budget) is None
    values = lp.run_tasks(as_tasks([("min", d - 1, None, None), ("max", d - 1, None, None)]),
                          budget)
    np.testing.assert_allclose(values, [0.0, 2 * (budget - mu)], atol=1e-7)


def test_dual_path_falls_back_to_the_primal_lp(dual_path, small, monkeypatch):
    # a search that cannot close in its budget of evaluations returns None, and
    # the primal simplex answers instead: same values as without the dual path
    X, y = small
    lp = OrdinalLP(X, y, 3, 1.0, probe=True)
    budget = 1.1 * lp.solve_model().fun
    lp.engine.dual().max_evaluations = 1
    assert lp.engine.dual().max_signed(0, 1.0, budget) is None
    tasks = [(k, j, None, None) for j in range(X.shape[1]) for k in ("min", "max")]
    ref = OrdinalLP(X, y, 3, 1.0, probe=True)
    monkeypatch.setattr(dual_path, "MIN_MARGIN_ROWS", 10**9)
    np.testing.assert_allclose(lp.run_tasks(as_tasks(tasks), budget),
                               ref.run_tasks(as_tasks(tasks), budget),
                               atol=1e-9)


def test_dual_path_is_used_only_for_large_plain_models(small):
    X, y = small
    assert OrdinalLP(X, y, 3, 1.0).engine.dual() is None  # 40 samples: primal simplex
    assert OrdinalLP(X, y, 3, 1.0, solver="dual").engine.dual() is not None
    with pytest.raises(ValueError, match="solver must be"):
        OrdinalLP(X, y, 3, 1.0, solver="ipm")
    with pytest.raises(ValueError, match="plain model only"):
        OrdinalLP(X, y, 3, 1.0, X_star=X[:, :2], solver="dual")
    from lupikit.relevance import _dual_path

    big = OrdinalLP(np.tile(X, (25, 1)), np.tile(y, 25), 3, 1.0)
    assert big.R >= _dual_path.MIN_MARGIN_ROWS and big.engine.dual() is not None
    assert OrdinalLP(np.tile(X, (25, 1)), np.tile(y, 25), 3, 1.0,
                     solver="primal").engine.dual() is None
    Xs = np.tile(X[:, :2], (25, 1))
    assert OrdinalLP(np.tile(X, (25, 1)), np.tile(y, 25), 3, 1.0,
                     X_star=Xs).engine.dual() is None  # LUPI: primal simplex


def test_lower_bounds_from_the_two_upper_bound_lps_equal_their_own_lp(small):
    X, y = small
    lp = OrdinalLP(X, y, 3, 1.0, probe=True)
    budget = 1.1 * lp.solve_model().fun
    d = X.shape[1]
    alone = lp.run_tasks(as_tasks([("min", j, None, None) for j in range(d)]), budget)
    lp2 = OrdinalLP(X, y, 3, 1.0, probe=True)
    both = lp2.run_tasks(as_tasks([(k, j, None, None) for j in range(d) for k in ("min", "max")]),
                         budget)
    assert len(lp2.engine._signed) == d  # every lower bound was read off the upper-bound LPs
    np.testing.assert_allclose(both[0::2], alone, atol=1e-7)
    assert max(alone) > 1e-3  # some feature is strongly relevant, so the check is not all zeros


# (scikit-learn's common checks are in test_conformance.py)


def test_decision_function_agrees_with_predict(small):
    X, y = small
    m = OrdinalRegressionLP(C=1.0).fit(X, y)
    margins = m.decision_function(X)
    assert margins.shape == (X.shape[0], m.classes_.size)
    np.testing.assert_array_equal(m.classes_[margins.argmax(axis=1)], m.predict(X))
    f = X @ m.coef_
    k = 1  # a middle bin: the margin is the distance to the nearer of its two thresholds
    np.testing.assert_allclose(margins[:, k], np.minimum(f - m.thresholds_[k - 1], m.thresholds_[k] - f))
    # two labels: one column, positive for the upper label (scikit-learn's binary convention)
    yb = (y > np.median(y)).astype(int)
    mb = OrdinalRegressionLP(C=1.0).fit(X, yb)
    d = mb.decision_function(X)
    assert d.shape == (X.shape[0],)
    np.testing.assert_array_equal(mb.predict(X), (d >= 0).astype(int))


def test_y_conventions(small):
    from sklearn.exceptions import DataConversionWarning

    X, y = small
    with pytest.warns(DataConversionWarning):
        OrdinalRegressionLP().fit(X, y.reshape(-1, 1))
    with pytest.raises(ValueError, match="requires y to be passed"):
        OrdinalRegressionLP().fit(X, None)
