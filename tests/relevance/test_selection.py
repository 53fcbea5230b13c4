"""The synthetic feature-selection experiment: the ordinal elastic-net baseline and the protocol."""

import numpy as np
import pytest
from scipy.optimize import approx_fprime
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError

from lupikit.datasets import make_fri_ordinal, make_ordinal_benchmark
from lupikit.relevance import (
    SELECTION_METHODS,
    OrdinalElasticNet,
    select_features,
    selection_benchmark,
    selection_scores,
    selection_table,
)


def _objective(model, X, y, w, theta):
    """The model's objective, written out independently of the implementation."""
    yb = np.searchsorted(model.classes_, y)
    total = 0.0
    for i in range(len(y)):
        for j in range(len(theta)):
            s = 1.0 if yb[i] > j else -1.0
            total += np.log1p(np.exp(-s * (X[i] @ w - theta[j])))
    a, rho = model.alpha, model.l1_ratio
    return total / len(y) + a * (rho * np.abs(w).sum() + 0.5 * (1 - rho) * w @ w)


def _kkt(model, X, y):
    """Largest violation of the optimality conditions of the convex problem."""
    yb = np.searchsorted(model.classes_, y)
    k = model.classes_.size - 1
    S = np.where(yb[:, None] > np.arange(k)[None, :], 1.0, -1.0)
    w, theta = model.coef_, model.thresholds_
    g = -S * expit(-S * ((X @ w)[:, None] - theta[None, :])) / len(y)
    gw = X.T @ g.sum(axis=1) + model.alpha * (1 - model.l1_ratio) * w
    a = model.alpha * model.l1_ratio
    nz = w != 0
    return max(np.abs(gw[nz] + a * np.sign(w[nz])).max(initial=0.0),  # stationarity
               np.maximum(np.abs(gw[~nz]) - a, 0).max(initial=0.0),  # 0 in the subdifferential
               np.abs(g.sum(axis=0)).max())  # thresholds


@pytest.mark.parametrize("set_id", [1, 2, 3, 5])
@pytest.mark.parametrize("alpha, l1_ratio", [(1e-3, 0.5), (1e-2, 1.0), (0.1, 0.1), (0.05, 0.0)])
def test_elastic_net_solves_its_problem(set_id, alpha, l1_ratio):
    X, y, _ = make_ordinal_benchmark(set_id, random_state=0)
    model = OrdinalElasticNet(alpha=alpha, l1_ratio=l1_ratio).fit(X, y)
    assert _kkt(model, X, y) < 1e-6
    assert model.objective_ == pytest.approx(
        _objective(model, X, y, model.coef_, model.thresholds_), rel=1e-9)
    # no feasible point nearby is better
    rng = np.random.RandomState(0)
    for _ in range(5):
        dw = 1e-3 * rng.standard_normal(X.shape[1])
        dt = 1e-3 * rng.standard_normal(model.thresholds_.size)
        assert _objective(model, X, y, model.coef_ + dw, model.thresholds_ + dt) \
            >= model.objective_ - 1e-12


def test_gradient_of_the_smooth_part():
    # the loss's gradient in the thresholds, checked by finite differences
    X, y, _ = make_fri_ordinal(60, 2, 0, 1, random_state=0)
    model = OrdinalElasticNet(alpha=0.1, l1_ratio=0.0).fit(X, y)
    z = np.r_[model.coef_, model.thresholds_]
    d = X.shape[1]
    grad = approx_fprime(z, lambda v: _objective(model, X, y, v[:d], v[d:]), 1e-7)
    np.testing.assert_allclose(grad, 0, atol=1e-5)  # l1_ratio=0: smooth, gradient 0


def test_lasso_penalty_gives_exact_zeros_and_a_path():
    X, y, relevance = make_ordinal_benchmark(3, random_state=0)
    counts = [np.count_nonzero(OrdinalElasticNet(alpha=a, l1_ratio=1.0).fit(X, y).coef_)
              for a in (1e-3, 1e-2, 0.1, 1.0, 10.0)]
    assert counts == sorted(counts, reverse=True)
    assert counts[-1] == 0  # a large enough penalty drops every feature
    big = OrdinalElasticNet(alpha=10.0, l1_ratio=1.0).fit(X, y)
    # w = 0: every sample is predicted into the middle class by the class-share thresholds
    np.testing.assert_allclose(big.thresholds_, [np.log(1 / 2), np.log(2)], atol=1e-6)


def test_ridge_penalty_splits_identical_columns_equally():
    X, y, _ = make_ordinal_benchmark(2, random_state=0)  # six identical weak columns
    w = OrdinalElasticNet(alpha=0.01, l1_ratio=0.0).fit(X, y).coef_
    np.testing.assert_allclose(w[:6], w[0], rtol=1e-4)
    assert abs(w[0]) > 2 * np.abs(w[6:]).max()


def test_prediction_and_labels():
    X, y, _ = make_ordinal_benchmark(3, random_state=0)
    model = OrdinalElasticNet(alpha=0.01).fit(X, y + 5)
    assert model.classes_.tolist() == [5, 6, 7]
    assert np.all(np.diff(model.thresholds_) > 0)
    assert model.score(X, y + 5) > 0.9
    np.testing.assert_array_equal(model.predict(X),
                                  np.argmax(model.decision_function(X), axis=1) + 5)
    with pytest.raises(ValueError, match="integer ordinal labels"):
        OrdinalElasticNet().fit(X, y + 0.5)
    with pytest.raises(ValueError, match="labels but X has"):
        OrdinalElasticNet().fit(X, y[:-1])
    with pytest.raises(InvalidParameterError, match="alpha"):
        OrdinalElasticNet(alpha=0.0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="l1_ratio"):
        OrdinalElasticNet(l1_ratio=1.5).fit(X, y)


def test_convergence_warning():
    X, y, _ = make_ordinal_benchmark(3, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        OrdinalElasticNet(alpha=1e-3, max_iter=2).fit(X, y)


def test_selection_scores():
    assert selection_scores([1, 1, 0, 0], [1, 1, 0, 0]) == {"precision": 1.0, "recall": 1.0,
                                                            "f1": 1.0}
    assert selection_scores([1, 1, 0], [0, 0, 0]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert selection_scores([1, 0, 0, 0], [1, 1, 0, 0])["precision"] == 0.5
    with pytest.raises(ValueError, match="same length"):
        selection_scores([1, 0], [1, 0, 0])


def test_methods_on_redundant_data():
    # Set 3: 3 strong, 4 identical weak copies, 3 irrelevant
    X, y, relevance = make_ordinal_benchmark(3, random_state=1)
    support = {m: select_features(m, X, y, random_state=1) for m in SELECTION_METHODS}
    assert all(s.shape == (10,) and s.dtype == bool for s in support.values())
    # the relevance bounds keep every copy of the redundant latent, and nothing else
    np.testing.assert_array_equal(support["relevance bounds"], relevance > 0)
    # lasso on identical columns keeps at most one or two copies of the weak latent
    assert support["lasso + SelectFromModel"][3:7].sum() < 4
    with pytest.raises(ValueError, match="method"):
        select_features("boruta", X, y)


def test_benchmark_rows_seeds_and_table():
    scores = selection_benchmark(sets=[1, 3], n_repetitions=2, random_state=0,
                                 methods=["relevance bounds", "ridge + SelectFromModel"])
    assert len(scores) == 2 * 2 * 2
    assert set(scores.columns) >= {"set", "repetition", "method", "precision", "recall", "f1",
                                   "n_selected", "seconds"}
    again = selection_benchmark(sets=[3], n_repetitions=2, random_state=0,
                                methods=["ridge + SelectFromModel"], n_jobs=2)
    mine = scores[(scores.set == 3) & (scores.method == "ridge + SelectFromModel")]
    np.testing.assert_array_equal(mine.n_selected.values, again.n_selected.values)
    table = selection_table(scores)
    assert list(table.index) == ["Set 1", "Set 3", "mean"]
    assert table[("f1", "relevance bounds")].tolist() == [1.0, 1.0, 1.0]
    assert table.columns.get_level_values(0).tolist()[:2] == ["precision", "precision"]


@pytest.mark.parametrize("kwargs, match", [
    (dict(sets=[9]), "sets"),
    (dict(sets=[]), "sets"),
    (dict(n_repetitions=0), "n_repetitions"),
    (dict(methods=["boruta"]), "methods"),
    (dict(random_state=-1), "random_state"),
])
def test_benchmark_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        selection_benchmark(**kwargs)


@pytest.mark.parametrize("l1_ratio", [0.0, 0.5])
def test_warm_start_along_a_grid_gives_the_cold_solutions(l1_ratio):
    # the problem is convex: a start from the previous alpha's solution ends at the
    # same optimum (its optimality conditions hold) in fewer iterations overall
    X, y, _ = make_ordinal_benchmark(3, random_state=0)
    warm = OrdinalElasticNet(l1_ratio=l1_ratio, warm_start=True)
    n_warm = n_cold = 0
    for alpha in (1.0, 0.1, 0.01, 1e-3):
        warm.set_params(alpha=alpha).fit(X, y)
        cold = OrdinalElasticNet(alpha=alpha, l1_ratio=l1_ratio).fit(X, y)
        assert _kkt(warm, X, y) < 1e-6
        np.testing.assert_allclose(warm.coef_, cold.coef_, atol=1e-5)
        np.testing.assert_allclose(warm.thresholds_, cold.thresholds_, atol=1e-5)
        n_warm, n_cold = n_warm + warm.n_iter_, n_cold + cold.n_iter_
    assert n_warm < n_cold
    # another width, or another label set, starts cold
    warm.fit(X[:, :3], y)
    assert warm.coef_.shape == (3,) and _kkt(warm, X[:, :3], y) < 1e-6
    keep = y != y.max()
    assert not warm._can_warm_start(np.unique(y[keep]), 3)
    warm.fit(X[keep, :3], y[keep])
    cold = OrdinalElasticNet(alpha=warm.alpha, l1_ratio=l1_ratio).fit(X[keep, :3], y[keep])
    assert warm.thresholds_.shape == cold.thresholds_.shape
    np.testing.assert_allclose(warm.coef_, cold.coef_, atol=1e-5)
