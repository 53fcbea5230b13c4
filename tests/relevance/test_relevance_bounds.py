import numpy as np
import pytest
import sklearn
from scipy import stats
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline

from lupikit.datasets import make_lupi_ordinal, make_ordinal_relevance
from lupikit.relevance import _cv
from lupikit.relevance import (
    FeatureRelevanceBounds,
    OrdinalRegressionLP,
    classify_relevance,
    prediction_interval,
    select_C,
    select_C_gamma,
)


@pytest.fixture(scope="module")
def data():
    return make_ordinal_relevance(n_samples=150, n_strong=2, n_weak=2, n_irrelevant=4,
                                  random_state=0)


@pytest.fixture(scope="module")
def fitted(data):
    X, y, truth = data
    return FeatureRelevanceBounds(C=1.0, n_permutations=20, random_state=0).fit(X, y)


def test_classes_match_truth(data, fitted):
    X, y, truth = data
    assert fitted.relevance_classes_.tolist() == truth.tolist()
    assert fitted.get_support().tolist() == (truth > 0).tolist()
    assert fitted.transform(X).shape == (X.shape[0], int((truth > 0).sum()))
    # strongly relevant features have minrel > 0, the others minrel = 0
    assert np.all(fitted.interval_[truth == 2, 0] > 1e-3)
    assert np.all(fitted.interval_[truth < 2, 0] == 0)


def test_min_le_max_everywhere(fitted):
    assert np.all(fitted.interval_[:, 0] <= fitted.interval_[:, 1] + 1e-12)
    assert np.all(fitted.probe_values_["min"] <= fitted.probe_values_["max"] + 1e-12)


def test_optimal_model_inside_intervals(fitted):
    w = np.abs(fitted.estimator_.coef_) / fitted.scale_
    assert np.all(w >= fitted.interval_[:, 0] - 1e-7)
    assert np.all(w <= fitted.interval_[:, 1] + 1e-7)
    assert fitted.n_lps_ == 8 * 3 + 20 * 3


def test_exact_duplicate_becomes_weak():
    rng = np.random.RandomState(0)
    n = 200
    X = rng.standard_normal((n, 4))
    z = 2 * X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(n)
    y = np.digitize(z, np.quantile(z, [0.33, 0.66]))
    frb = FeatureRelevanceBounds(C=1.0, n_permutations=20, random_state=0)
    single = frb.fit(X, y).relevance_classes_
    assert single[0] == 2
    Xd = np.column_stack([X, X[:, 0]])  # exact copy of feature 0
    dup = FeatureRelevanceBounds(C=1.0, n_permutations=20, random_state=0).fit(Xd, y)
    assert dup.relevance_classes_[0] == 1 and dup.relevance_classes_[4] == 1
    assert dup.interval_[0, 0] == 0 and dup.interval_[4, 0] == 0
    # together the pair carries what the single feature carried
    assert dup.interval_[0, 1] == pytest.approx(dup.interval_[4, 1], rel=1e-6)


def test_pure_noise_false_positive_rate():
    # p = 0.9: a pure-noise feature is declared relevant with probability <= 0.1
    fp, total = 0, 0
    for seed in range(4):
        X, y, truth = make_ordinal_relevance(n_samples=100, n_strong=2, n_weak=0,
                                             n_irrelevant=15, n_bins=3, random_state=seed)
        frb = FeatureRelevanceBounds(C=1.0, p=0.9, n_permutations=30,
                                     random_state=seed).fit(X, y)
        fp += int(np.sum(frb.relevance_classes_[truth == 0] > 0))
        total += int(np.sum(truth == 0))
    rate = fp / total
    # binomial upper tolerance: rate must not exceed 0.1 by more than ~2.5 standard errors
    assert rate <= 0.1 + 2.5 * np.sqrt(0.1 * 0.9 / total)


def test_parallel_equals_sequential(data, fitted):
    X, y, _ = data
    par = FeatureRelevanceBounds(C=1.0, n_permutations=20, random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_allclose(par.interval_, fitted.interval_, atol=1e-7)
    np.testing.assert_allclose(par.probe_values_["max"], fitted.probe_values_["max"], atol=1e-7)


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_parallel_under_a_callers_backend(backend):
    # n_jobs prefers threads (HiGHS releases the GIL), but a backend chosen by the
    # caller wins; both give the sequential result, for the plain model (dual search,
    # cross-validated C) and for LUPI (primal simplex, privileged probes)
    from joblib import parallel_config

    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=200, n_strong=2, n_weak=2, n_irrelevant=2,
                                       random_state=1)
    for kw in ({}, {"privileged_features": Xs}):
        params = dict(C=None if not kw else 1.0, gamma=1.0, n_permutations=6, random_state=0,
                      C_grid=[0.1, 1.0], cv=3)
        seq = FeatureRelevanceBounds(**params).fit(X, y, **kw)
        with parallel_config(backend=backend):
            par = FeatureRelevanceBounds(**params, n_jobs=2).fit(X, y, **kw)
        assert par.C_ == seq.C_
        np.testing.assert_allclose(par.interval_, seq.interval_, atol=1e-7)
        np.testing.assert_allclose(par.probe_values_["max"], seq.probe_values_["max"],
                                   atol=1e-7)
        if kw:
            np.testing.assert_allclose(par.interval_privileged_, seq.interval_privileged_,
                                       atol=1e-7)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_dual_solver_fit_equals_primal_fit(data, fitted, n_jobs):
    # the parametric dual search (auto from 200 margin rows on; these 150 samples have
    # 240) must give the primal simplex's fit, in parallel too (each worker copies the LP)
    X, y, _ = data
    dual = FeatureRelevanceBounds(C=1.0, n_permutations=20, random_state=0,
                                  solver="dual").fit(X, y)
    np.testing.assert_array_equal(dual.interval_, fitted.interval_)  # auto: dual here
    primal = FeatureRelevanceBounds(C=1.0, n_permutations=20, random_state=0, solver="primal",
                                    n_jobs=n_jobs).fit(X, y)
    np.testing.assert_allclose(primal.interval_, fitted.interval_, atol=1e-7)
    np.testing.assert_allclose(primal.probe_values_["max"], fitted.probe_values_["max"],
                               atol=1e-7)
    assert primal.relevance_classes_.tolist() == fitted.relevance_classes_.tolist()


@pytest.mark.parametrize("epsilon", [None, 0.1])
def test_select_C_folds_on_the_whole_lp_match_their_own_lps(data, epsilon, monkeypatch):
    # the folds solved on the whole data's dual (other samples held at 0) score as the
    # folds' own LPs do, and in parallel (a copy of that LP per fold) as in sequence
    X, y, _ = data
    if epsilon is not None:
        y = X @ np.linspace(-1, 1, X.shape[1]) + 0.1 * np.cos(np.arange(X.shape[0]))
    grid = [0.1, 1.0, 10.0]  # (at a tiny C the optimum is not unique: w = 0)
    C1, s1 = select_C(X, y, C_grid=grid, cv=3, random_state=0, epsilon=epsilon)
    C2, s2 = select_C(X, y, C_grid=grid, cv=3, random_state=0, epsilon=epsilon, n_jobs=2)
    np.testing.assert_allclose(s1, s2, atol=1e-12)
    monkeypatch.setattr(_cv, "_whole_data_lp", lambda *args: None)  # one LP per fold
    C3, s3 = select_C(X, y, C_grid=grid, cv=3, random_state=0, epsilon=epsilon)
    assert C1 == C2 == C3
    np.testing.assert_allclose(s1, s3, atol=1e-9)


def test_select_C_same_choice_on_both_routes(data):
    X, y, _ = data
    C_d, s_d = select_C(X, y, cv=3, random_state=0)
    C_p, s_p = select_C(X, y, cv=3, random_state=0, solver="primal")
    assert C_d == C_p
    # optima need not be unique: at the smallest C (0.01) the optimal model is w = 0
    # with a whole range of optimal thresholds, so its score depends on the vertex a
    # solver stops at; above it the models and scores agree
    np.testing.assert_allclose(s_d[1:], s_p[1:], atol=0.02)
    assert min(s_d[0], s_p[0]) > max(s_d.min(), s_p.min()) + 0.5


def test_dual_solver_rejects_privileged_features():
    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=60, random_state=0)
    with pytest.raises(ValueError, match="solver='dual' covers the plain model only"):
        FeatureRelevanceBounds(C=1.0, n_permutations=5, solver="dual").fit(
            X, y, privileged_features=Xs)


def test_replace_probes_drop_infeasible(data):
    X, y, truth = data
    with pytest.warns(UserWarning, match="infeasible"):
        frb = FeatureRelevanceBounds(C=1.0, n_permutations=20, probes="replace", delta=0.05,
                                     random_state=0).fit(X, y)
    assert np.isnan(frb.probe_values_["max"]).any()
    assert frb.get_support().tolist() == (truth > 0).tolist()


def test_choose_C_by_cv(data):
    X, y, _ = data
    C, scores = select_C(X, y, C_grid=[0.01, 1.0], cv=3, random_state=0)
    assert C == 1.0 and scores[1] < scores[0]
    frb = FeatureRelevanceBounds(C=None, C_grid=[0.01, 1.0], cv=3, n_permutations=5,
                                 random_state=0).fit(X, y)
    assert frb.C_ == 1.0


def test_lupi_intervals_and_classes():
    X, Xs, y, r, rs = make_lupi_ordinal(n_samples=150, n_strong=2, n_weak=2, n_irrelevant=3,
                                        n_privileged_irrelevant=2, random_state=0)
    frb = FeatureRelevanceBounds(C=1.0, n_permutations=20, random_state=0)
    frb.fit(X, y, privileged_features=Xs)
    assert frb.interval_privileged_.shape == (Xs.shape[1], 2)
    assert frb.relevance_classes_privileged_.shape == (Xs.shape[1],)
    assert np.all(frb.interval_privileged_[:, 0] <= frb.interval_privileged_[:, 1] + 1e-12)
    # the clean signal is found relevant among the privileged features
    assert np.all(frb.relevance_classes_privileged_[rs == 1] > 0)
    plain = FeatureRelevanceBounds(C=1.0, n_permutations=5, random_state=0).fit(X, y)
    assert plain.interval_privileged_ is None


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_lupi_certificates_keep_the_primal_fit(n_jobs, monkeypatch):
    # solver="auto" rules out most of a LUPI bound's other signed LPs by one solve of
    # the tilted model's dual (weak duality); solver="primal" solves them all. The
    # fits must agree (regular and privileged intervals, probes, classes), with
    # fewer primal LPs on the certified route
    from lupikit.relevance import _primal

    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=150, n_strong=2, n_weak=2, n_irrelevant=3,
                                       n_privileged_irrelevant=2, random_state=1)
    solves = []
    solve = _primal.WarmPrimal.solve

    def counting(self, *args, **kwargs):
        solves.append(1)
        return solve(self, *args, **kwargs)

    monkeypatch.setattr(_primal.WarmPrimal, "solve", counting)
    fits = {}
    for solver in ("auto", "primal"):
        solves.clear()
        fits[solver] = FeatureRelevanceBounds(C=1.0, gamma=1.0, n_permutations=10, random_state=0,
                                              solver=solver, n_jobs=n_jobs).fit(
            X, y, privileged_features=Xs)
        fits[solver + "_solves"] = len(solves)
    auto, primal = fits["auto"], fits["primal"]
    for name in ("interval_", "interval_privileged_"):
        np.testing.assert_allclose(getattr(auto, name), getattr(primal, name), atol=1e-7)
    for pop in ("probe_values_", "probe_values_privileged_"):
        np.testing.assert_allclose(getattr(auto, pop)["max"], getattr(primal, pop)["max"],
                                   atol=1e-7)
    assert auto.relevance_classes_.tolist() == primal.relevance_classes_.tolist()
    assert (auto.relevance_classes_privileged_.tolist()
            == primal.relevance_classes_privileged_.tolist())
    if n_jobs == 1:  # the workers' solves run on copies, but the count holds in threads too
        assert fits["auto_solves"] < 0.8 * fits["primal_solves"]


class _FaultyHighs:
    """A HiGHS instance whose every ``every``-th answer is wrong (column values and
    row duals shifted), as HiGHS' warm starts sometimes are (HiGHS issues 3194,
    3294)."""

    def __init__(self, h, every, log):
        self._h, self._every, self._log, self._calls = h, every, log, 0

    def __getattr__(self, name):
        return getattr(self._h, name)

    def getSolution(self):
        from types import SimpleNamespace

        sol = self._h.getSolution()
        self._calls += 1
        if self._calls % self._every:
            return sol
        self._log.append(1)
        return SimpleNamespace(col_value=list(0.5 * np.asarray(sol.col_value) + 0.1),
                               row_dual=list(0.9 * np.asarray(sol.row_dual)),
                               col_dual=sol.col_dual, row_value=sol.row_value)


@pytest.mark.parametrize("case", ["plain-dual", "plain-primal", "lupi"])
def test_wrong_solver_answers_are_caught(case, monkeypatch):
    # every solve that a bound is concluded from is checked against its own
    # certificate (dual feasibility and a matching value); a wrong answer is
    # solved again from scratch, so the fit does not change
    from lupikit.relevance import _highs, _primal

    if case == "lupi":
        X, Xs, y, _, _ = make_lupi_ordinal(n_samples=120, n_strong=2, n_weak=2,
                                           n_irrelevant=2, n_privileged_irrelevant=2,
                                           random_state=0)
        kw = dict(privileged_features=Xs)
        params = dict(gamma=1.0)
    else:
        n = 200 if case == "plain-dual" else 80
        X, y, _ = make_ordinal_relevance(n_samples=n, n_strong=2, n_weak=2, n_irrelevant=3,
                                         random_state=0)
        kw, params = {}, {}
    frb = dict(C=1.0, n_permutations=8, random_state=0, **params)
    ref = FeatureRelevanceBounds(**frb).fit(X, y, **kw)
    log = []
    new_highs = _highs._new_highs
    for module in (_primal, _highs):  # the primal's warm instance and the duals' instances
        monkeypatch.setattr(module, "_new_highs", lambda H: _FaultyHighs(new_highs(H), 5, log))
    got = FeatureRelevanceBounds(**frb).fit(X, y, **kw)
    assert len(log) >= 4  # wrong answers were handed out
    np.testing.assert_allclose(got.interval_, ref.interval_, atol=1e-7)
    np.testing.assert_allclose(got.probe_values_["max"], ref.probe_values_["max"], atol=1e-7)
    if case == "lupi":
        np.testing.assert_allclose(got.interval_privileged_, ref.interval_privileged_,
                                   atol=1e-7)


@pytest.mark.parametrize("kwargs, match", [
    ({"p": 1.0}, "'p' parameter"),
    ({"p": 0}, "'p' parameter"),
    ({"n_permutations": 1}, "'n_permutations' parameter"),
    ({"delta": -0.1}, "'delta' parameter"),
    ({"probes": "swap"}, "'probes' parameter"),
    ({"solver": "simplex"}, "'solver' parameter"),
    ({"C": -1.0}, "'C' parameter"),
    ({"constraints": "x"}, "'constraints' parameter"),
])
def test_bad_parameters(data, kwargs, match):
    X, y, _ = data
    with pytest.raises(ValueError, match=match):
        FeatureRelevanceBounds(**kwargs).fit(X, y)


def test_bad_data(data):
    X, y, _ = data
    frb = FeatureRelevanceBounds(C=1.0, n_permutations=2)
    with pytest.raises(ValueError, match="only one class"):
        frb.fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="integer ordinal"):
        frb.fit(X, y + 0.5)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        frb.fit(Xn, y)
    with pytest.raises(ValueError, match="privileged_features has 10 rows"):
        frb.fit(X, y, privileged_features=np.ones((10, 2)))


def test_prediction_interval_formula():
    v = np.array([0.1, 0.4, 0.2, 0.5, 0.3, 0.25])
    lo, hi = prediction_interval(v, p=0.95)
    n = v.size
    half = stats.t(df=n - 1).ppf(0.975) * v.std(ddof=1) * np.sqrt(1 + 1 / n)
    assert (lo, hi) == pytest.approx((v.mean() - half, v.mean() + half))
    # Monte Carlo coverage for a normal population
    rng = np.random.RandomState(0)
    hits = 0
    for _ in range(2000):
        s = rng.standard_normal(10)
        a, b = prediction_interval(s, p=0.9)
        hits += a <= rng.standard_normal() <= b
    assert abs(hits / 2000 - 0.9) < 0.025
    with pytest.raises(ValueError, match="p must"):
        prediction_interval(v, p=1.5)
    with pytest.raises(ValueError, match="at least 2"):
        prediction_interval([1.0], p=0.9)


def test_classify_rules():
    iv = np.array([[0.2, 0.6], [0.0, 0.6], [0.0, 0.05], [0.2, 0.05]])
    out = classify_relevance(iv, (0.0, 0.01), (0.0, 0.1))
    assert out.tolist() == [2, 1, 0, 0]


@pytest.fixture
def routing():
    sklearn.set_config(enable_metadata_routing=True)
    yield
    sklearn.set_config(enable_metadata_routing=False)


def test_metadata_routing_gridsearch(routing):
    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=90, n_strong=2, n_weak=2, n_irrelevant=2,
                                       n_bins=3, random_state=0)
    est = OrdinalRegressionLP().set_fit_request(privileged_features=True)
    gs = GridSearchCV(est, {"C": [0.1, 1.0]}, cv=3).fit(X, y, privileged_features=Xs)
    assert gs.best_estimator_.coef_privileged_.shape == (Xs.shape[1], 2)
    # without the request, routing refuses the metadata
    with pytest.raises(Exception, match="privileged_features"):
        GridSearchCV(OrdinalRegressionLP(), {"C": [1.0]}, cv=3).fit(
            X, y, privileged_features=Xs)


def test_metadata_routing_selector_pipeline(routing):
    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=240, n_strong=2, n_weak=2, n_irrelevant=2,
                                       random_state=0)
    pipe = make_pipeline(
        FeatureRelevanceBounds(C=1.0, n_permutations=4, random_state=0)
        .set_fit_request(privileged_features=True),
        OrdinalRegressionLP().set_fit_request(privileged_features=False),
    )
    res = cross_validate(pipe, X, y, cv=3, params={"privileged_features": Xs},
                         return_estimator=True)
    frb = res["estimator"][0][0]
    assert frb.interval_privileged_ is not None
    assert len(res["test_score"]) == 3


def test_implicit_constraints_and_progress_bar(data):
    X, y, truth = data
    frb = FeatureRelevanceBounds(C=1.0, constraints="implicit", n_permutations=10,
                                 random_state=0, verbose=True).fit(X, y)
    assert frb.get_support().tolist() == (truth > 0).tolist()
    assert np.all(np.diff(frb.estimator_.thresholds_) >= 0)


class _RecordingBar:
    """Stands in for tqdm: records the updates a fit makes."""

    made = []

    def __init__(self, total=None, disable=False, **kwargs):
        self.total, self.disable, self.n, self.steps = total, disable, 0, []
        _RecordingBar.made.append(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        self.n += n
        self.steps.append(n)


@pytest.mark.parametrize("backend", [None, "loky"])
def test_progress_bar_counts_every_task_in_parallel(data, fitted, backend, monkeypatch):
    # threads (the default) move the bar task by task from the workers; worker
    # processes cannot reach it, so each chunk is counted when it returns
    from joblib import parallel_config

    from lupikit.relevance import _bounds

    X, y, _ = data
    monkeypatch.setattr(_bounds, "tqdm", _RecordingBar)
    _RecordingBar.made.clear()
    frb = FeatureRelevanceBounds(C=1.0, n_permutations=20, random_state=0, n_jobs=2,
                                 verbose=True)
    if backend is None:
        frb.fit(X, y)
    else:
        with parallel_config(backend=backend):
            frb.fit(X, y)
    bar = _RecordingBar.made[-1]
    n_tasks = 2 * X.shape[1] + 2 * frb.n_permutations
    assert not bar.disable and bar.total == n_tasks and bar.n == n_tasks
    if backend is None:
        assert bar.steps == [1] * n_tasks
    else:
        assert len(bar.steps) == 2  # one per chunk
    np.testing.assert_allclose(frb.interval_, fitted.interval_, atol=1e-7)
    assert not _bounds._BARS  # the registry is emptied after the fit


def test_replace_probes_all_infeasible_raise():
    # two strongly relevant features only: removing either breaks the budget at delta=0
    rng = np.random.RandomState(0)
    X = rng.standard_normal((80, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    frb = FeatureRelevanceBounds(C=10.0, delta=0.0, n_permutations=4, probes="replace",
                                 random_state=0)
    with pytest.raises(RuntimeError, match="feasible LP"):
        frb.fit(X, y)


def test_select_C_with_rare_class_uses_kfold():
    X, y, _ = make_ordinal_relevance(n_samples=60, n_bins=3, random_state=0)
    y = y.copy()
    y[:2] = 3  # a level with two samples only: stratified 5-fold impossible
    C, scores = select_C(X, y, C_grid=[0.1, 1.0], cv=5, random_state=0)
    assert C in (0.1, 1.0) and np.all(np.isfinite(scores))


def test_select_C_gamma_is_the_joint_grid_of_select_C():
    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=90, random_state=0)
    C_grid, g_grid = [0.1, 1.0, 10.0], [0.1, 1.0]
    C, gamma, scores = select_C_gamma(X, y, Xs, C_grid=C_grid, gamma_grid=g_grid, cv=3,
                                      random_state=0)
    assert scores.shape == (3, 2)
    for k, g in enumerate(g_grid):  # same folds, same LPs, one gamma at a time
        _, col = select_C(X, y, Xs, C_grid=C_grid, gamma=g, cv=3, random_state=0)
        np.testing.assert_allclose(scores[:, k], col, atol=1e-12)
    i, k = C_grid.index(C), g_grid.index(gamma)
    assert scores[i, k] == scores.min()
    with pytest.raises(ValueError, match="privileged_features"):
        select_C_gamma(X, y, None)
    # the path on the model's LP dual (default) and on the primal simplex reach the
    # same optima; here also the same validation errors
    C_p, gamma_p, scores_p = select_C_gamma(X, y, Xs, C_grid=C_grid, gamma_grid=g_grid,
                                            cv=3, random_state=0, solver="primal")
    assert (C_p, gamma_p) == (C, gamma)
    np.testing.assert_allclose(scores_p, scores, atol=1e-12)
    with pytest.raises(ValueError, match="'solver' parameter of select_C_gamma must be"):
        select_C_gamma(X, y, Xs, solver="dual")


def test_lupi_gamma_chosen_jointly_or_fixed():
    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=90, n_strong=2, n_weak=2, n_irrelevant=2,
                                       random_state=0)
    frb = FeatureRelevanceBounds(C_grid=[0.1, 10.0], gamma_grid=[0.1, 10.0], cv=3,
                                 n_permutations=5, random_state=0)
    frb.fit(X, y, privileged_features=Xs)
    assert frb.C_ in (0.1, 10.0) and frb.gamma_ in (0.1, 10.0)
    assert frb.cv_scores_.shape == (2, 2)
    assert frb.estimator_.gamma == frb.gamma_
    fixed = FeatureRelevanceBounds(C=1.0, gamma=0.5, n_permutations=5, random_state=0)
    fixed.fit(X, y, privileged_features=Xs)
    assert fixed.gamma_ == 0.5 and fixed.C_ == 1.0 and fixed.cv_scores_ is None
    plain = FeatureRelevanceBounds(C=1.0, n_permutations=5, random_state=0).fit(X, y)
    assert plain.gamma_ is None
