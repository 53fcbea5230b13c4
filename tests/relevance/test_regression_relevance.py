"""Regression relevance (plain and LUPI), constrained intervals, grouping, screening, a cluster."""


import joblib
import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError

from lupikit.datasets import (
    make_lupi_regression,
    make_ordinal_relevance,
    make_regression_relevance,
)
from lupikit.relevance import FeatureRelevanceBounds, L1SVR
from local_cluster import local_cluster  # tests/ is on pytest's pythonpath


def standardised(X, y=None):
    X = StandardScaler().fit_transform(X)
    return X if y is None else (X, (y - y.mean()) / y.std())


@pytest.fixture(scope="module")
def regression():
    X, y, truth = make_regression_relevance(n_samples=200, n_strong=2, n_weak=2,
                                            n_irrelevant=4, random_state=0)
    X, y = standardised(X, y)
    frb = FeatureRelevanceBounds(problem="regression", n_permutations=20,
                                 random_state=0).fit(X, y)
    return X, y, truth, frb


def test_regression_classes_match_the_truth(regression):
    X, y, truth, frb = regression
    np.testing.assert_array_equal(frb.relevance_classes_, truth)
    assert isinstance(frb.estimator_, L1SVR)
    # the optimal model is L1SVR's at the chosen C, and mu its objective
    ref = L1SVR(C=frb.C_, epsilon=0.1).fit(X, y)
    assert frb.mu_ == pytest.approx(ref.objective_, rel=1e-9)
    assert np.all(frb.interval_[:, 0] <= frb.interval_[:, 1] + 1e-12)


def test_lupi_regression():
    X, Xs, y, truth, truth_p = make_lupi_regression(n_samples=200, n_strong=2, n_weak=2,
                                                    n_irrelevant=3, random_state=0)
    X, y = standardised(X, y)
    Xs = standardised(Xs)
    frb = FeatureRelevanceBounds(problem="regression", C=1.0, gamma=1.0, n_permutations=20,
                                 random_state=0).fit(X, y, privileged_features=Xs)
    assert frb.interval_privileged_.shape == (Xs.shape[1], 2)
    # every irrelevant regular feature is found irrelevant, and so is every
    # irrelevant privileged feature
    assert np.all(frb.relevance_classes_[truth == 0] == 0)
    assert np.all(frb.relevance_classes_privileged_[truth_p == 0] == 0)
    assert frb.relevance_classes_privileged_[truth_p == 1].sum() >= 2


def test_exact_duplicate_of_a_strong_feature_makes_both_weak_and_one_group():
    X, y, truth = make_regression_relevance(n_samples=200, n_strong=2, n_weak=0,
                                            n_irrelevant=3, random_state=1)
    X = np.c_[X[:, :1], X]  # feature 0 duplicated: columns 0 and 1 are copies
    X, y = standardised(X, y)
    frb = FeatureRelevanceBounds(problem="regression", C=1.0, n_permutations=20,
                                 random_state=0).fit(X, y)
    assert frb.relevance_classes_.tolist() == [1, 1, 2, 0, 0, 0]
    groups = [g.tolist() for g in frb.get_grouping()]
    assert groups == [[0, 1], [2]]


def test_grouping_finds_the_weak_pairs_and_leaves_strong_features_alone():
    X, y, truth = make_ordinal_relevance(n_samples=300, n_strong=3, n_weak=6, n_irrelevant=3,
                                         random_state=0)
    frb = FeatureRelevanceBounds(C=1.0, n_permutations=20, random_state=0).fit(X, y)
    np.testing.assert_array_equal(frb.relevance_classes_, truth)
    groups, features, need = frb.get_grouping(return_matrix=True)
    assert [g.tolist() for g in groups] == [[0], [1], [2], [3, 4], [5, 6], [7, 8]]
    assert sorted(np.concatenate(groups).tolist()) == features.tolist()
    assert need.shape == (features.size, features.size)


def test_constrained_intervals_at_zero_and_at_maxrel(regression):
    X, y, truth, frb = regression
    weak = np.flatnonzero(truth == 1)  # a redundant pair
    a, b = weak
    # without a, its partner b is indispensable; the strong features stay strong
    zero = frb.constrained_intervals({a: 0.0})
    assert zero[a].tolist() == [0.0, 0.0]
    assert zero[b, 0] > frb.prediction_intervals_["min"][1]
    assert np.all(zero[truth == 2, 0] > 0)
    # a at its maxrel: the budget still holds (a model exists), and that model is the
    # only one left: every other interval shrinks to (nearly) a point
    top = frb.constrained_intervals({a: frb.interval_[a, 1]})
    widths = top[:, 1] - top[:, 0]
    others = np.arange(X.shape[1]) != a
    assert np.all(widths[others] <= 1e-3 * (frb.interval_[others, 1] - frb.interval_[others, 0])
                  + 1e-9)
    # only some features recomputed: the others are NaN
    part = frb.constrained_intervals({a: 0.0}, features=[b])
    assert np.isnan(part[0]).all() and not np.isnan(part[b]).any()


def assert_screening_is_exact(on, off):
    """A screened fit against the exhaustive one: the same classes; a screened maxrel is
    an upper bound of the exact one, below the noise threshold; minrel exact; the other
    bounds are the exhaustive ones."""
    np.testing.assert_array_equal(on.relevance_classes_, off.relevance_classes_)
    s = on.screened_
    assert np.all(on.interval_[s, 1] >= off.interval_[s, 1] - 1e-9)
    assert np.all(on.interval_[s, 1] <= on.prediction_intervals_["max"][1] + 1e-6)
    np.testing.assert_allclose(on.interval_[s, 0], off.interval_[s, 0], atol=1e-7)
    np.testing.assert_allclose(on.interval_[~s], off.interval_[~s], atol=1e-7)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_screening_never_changes_a_class(seed):
    # random plain problems on the dual route: screening (signed searches that stop at a
    # certified upper bound below the noise threshold) against the exhaustive run
    rng = np.random.default_rng(seed)
    d = int(rng.integers(25, 45))
    X, y, _ = make_ordinal_relevance(n_samples=int(rng.integers(150, 250)), n_strong=2,
                                     n_weak=2, n_irrelevant=d - 4, random_state=seed)
    kw = dict(C=float(rng.choice([0.1, 1.0])), n_permutations=20, random_state=seed)
    on = FeatureRelevanceBounds(screening=True, **kw).fit(X, y)
    off = FeatureRelevanceBounds(screening=False, **kw).fit(X, y)
    assert on.n_screened_ > 0 and off.n_screened_ == 0
    assert_screening_is_exact(on, off)


def test_screening_with_row_generation_never_changes_a_class():
    # d > 100: the dual path holds only the weight rows a solve needs (rows near their
    # box are added too), and the screening bounds come from adapted multipliers
    X, y, _ = make_ordinal_relevance(n_samples=200, n_strong=2, n_weak=2, n_irrelevant=106,
                                     random_state=4)
    X = standardised(X)
    kw = dict(C=0.1, n_permutations=20, random_state=0, n_jobs=2)
    on = FeatureRelevanceBounds(screening=True, **kw).fit(X, y)
    off = FeatureRelevanceBounds(screening=False, **kw).fit(X, y)
    assert on.n_screened_ > 20
    assert_screening_is_exact(on, off)


def test_screen_searches_bound_or_equal_the_exact_maxima():
    # screen_signed returns a certified upper bound below `below` (stopped) or the exact
    # maximum (not stopped), for features with and without weight in the optimal model:
    # from the model's own multipliers, or from a search started at an adapted multiplier
    from lupikit.relevance import OrdinalLP
    from lupikit.relevance._dual_path import DualPath
    from lupikit.relevance._highs import _highs_api

    X, y, _ = make_ordinal_relevance(n_samples=150, n_strong=2, n_weak=2, n_irrelevant=26,
                                     random_state=5)
    X = standardised(X)
    lp = OrdinalLP(X, y, np.unique(y).size, 0.1, probe=True)
    budget = 1.1 * lp.solve_model().fun
    dual = DualPath(lp, _highs_api())
    exact = DualPath(lp, _highs_api())
    w0 = dual.model[1][: lp.d]
    assert np.sum(np.abs(w0) <= 1e-12) > 10 and np.sum(np.abs(w0) > 1e-12) > 3
    truth = {(j, s): exact.max_signed(j, s, budget) for j in range(lp.d) for s in (1.0, -1.0)}
    assert min(truth.values()) < 0  # some side's maximum is negative (a one-signed weight)
    some = float(np.median([v for v in truth.values() if v > 0]))
    for below in (np.inf, 0.0, some):  # every side stops / none does / some do
        stops = searched = 0
        for j in range(lp.d):
            for s in (1.0, -1.0):
                dual.stopped_at = None
                value, stopped = dual.screen_signed(j, s, budget, below)
                if stopped:
                    assert truth[j, s] - 1e-9 <= value < below
                    stops += 1
                    searched += dual.stopped_at is not None
                else:
                    assert abs(value - truth[j, s]) <= 1e-7 * max(1.0, abs(truth[j, s]))
        if below == 0.0:
            assert stops == 0
        elif below == np.inf:
            assert stops > lp.d
        else:
            assert 0 < stops < 2 * lp.d
            assert searched > 0  # stops of the search, not only of the free bound


def test_a_failed_check_is_retried_at_tight_tolerances(monkeypatch):
    # a solve whose answer fails the check is repeated from scratch at tolerances of
    # 1e-10; HiGHS' defaults are back afterwards
    from lupikit.relevance import OrdinalLP
    from lupikit.relevance._dual_path import DualPath
    from lupikit.relevance._highs import _highs_api

    X, y, _ = make_ordinal_relevance(n_samples=80, random_state=0)
    lp = OrdinalLP(X, y, np.unique(y).size, 1.0)
    dual = DualPath(lp, _highs_api())
    seen = []
    check = DualPath._certifies

    def first_fails(self, *args):
        seen.append(self.h.getOptionValue("primal_feasibility_tolerance")[1])
        return len(seen) > 1 and check(self, *args)

    monkeypatch.setattr(DualPath, "_certifies", first_fails)
    f, w = dual.model
    assert seen == [1e-7, 1e-10]
    assert dual.h.getOptionValue("primal_feasibility_tolerance")[1] == 1e-7
    assert dual.h.getOptionValue("dual_feasibility_tolerance")[1] == 1e-7
    assert abs(f - lp.solve_model().fun) < 1e-7


def test_relevance_on_a_local_cluster_matches_the_local_run():
    distributed = pytest.importorskip("distributed")
    X, y, _ = make_regression_relevance(n_samples=150, n_strong=2, n_weak=2, n_irrelevant=3,
                                        random_state=0)
    X, y = standardised(X, y)
    kw = dict(problem="regression", C=1.0, n_permutations=10, random_state=0)
    local = FeatureRelevanceBounds(n_jobs=1, **kw).fit(X, y)
    with local_cluster(distributed) as (_, _, done):
        with joblib.parallel_config(backend="dask"):
            remote = FeatureRelevanceBounds(n_jobs=-1, **kw).fit(X, y)
    assert done  # the LPs ran on the cluster's workers
    np.testing.assert_allclose(remote.interval_, local.interval_, atol=1e-9)
    np.testing.assert_array_equal(remote.relevance_classes_, local.relevance_classes_)


def test_bad_input_is_named(regression):
    X, y, truth, frb = regression
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter"):
        FeatureRelevanceBounds(problem="regression", epsilon=-1.0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="'problem' parameter"):
        FeatureRelevanceBounds(problem="survival").fit(X, y)
    with pytest.raises(ValueError, match="y must be numeric"):
        FeatureRelevanceBounds(problem="regression").fit(X, np.array(["x"] * len(y)))
    with pytest.raises(ValueError, match="outside feature 0's relevance interval"):
        frb.constrained_intervals({0: frb.interval_[0, 1] + 1.0})
    with pytest.raises(ValueError, match="out of range"):
        frb.constrained_intervals({X.shape[1]: 0.0})
    with pytest.raises(ValueError, match="feature indices"):
        frb.constrained_intervals({"a": 0.0})
    with pytest.raises(ValueError, match="non-empty dict"):
        frb.constrained_intervals({})
    with pytest.raises(ValueError, match="finite number"):
        frb.constrained_intervals({0: np.nan})
