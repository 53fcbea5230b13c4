"""The L1 support vector regression LP (plain and LUPI) and its relevance bounds."""

import numpy as np
import pytest
from cvxopt import matrix, solvers
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError

from lupikit.relevance import L1SVR, OrdinalLP


def cvxopt_svr(X, y, C, epsilon, X_star=None, gamma=1.0):
    """Optimal value of the L1 SVR (or its LUPI model) by cvxopt, built with plain loops.

    Variables: w (d), t (d) with t >= |w|, the intercept c, then the slacks
    s+ (n), s- (n), or with X_star the correcting functions
    g_k(x*) = x* . v_k + e_k (k = 0: bounds f - y, k = 1: y - f) with
    u_k >= |v_k|.
    """
    n, d = X.shape
    if X_star is None:
        names = [("w", j) for j in range(d)] + [("t", j) for j in range(d)] + [("c", 0)]
        names += [("s+", i) for i in range(n)] + [("s-", i) for i in range(n)]
    else:
        p = X_star.shape[1]
        names = [("w", j) for j in range(d)] + [("t", j) for j in range(d)] + [("c", 0)]
        for k in (0, 1):
            names += [(f"v{k}", j) for j in range(p)] + [(f"u{k}", j) for j in range(p)]
            names += [(f"e{k}", 0)]
    idx = {name: i for i, name in enumerate(names)}
    m = len(names)
    cost = np.zeros(m)
    for j in range(d):
        cost[idx["t", j]] = 0.5
    G, h = [], []

    def row():
        G.append(np.zeros(m))
        return G[-1]

    for j in range(d):  # t >= |w|
        r = row(); r[idx["w", j]], r[idx["t", j]] = 1, -1; h.append(0.0)
        r = row(); r[idx["w", j]], r[idx["t", j]] = -1, -1; h.append(0.0)
    for i in range(n):
        for sign, k in ((1.0, 0), (-1.0, 1)):  # sign (f(x_i) - y_i) - slack <= epsilon
            r = row()
            for j in range(d):
                r[idx["w", j]] = sign * X[i, j]
            r[idx["c", 0]] = sign
            if X_star is None:
                r[idx["s+" if k == 0 else "s-", i]] = -1.0
            else:
                for j in range(X_star.shape[1]):
                    r[idx[f"v{k}", j]] = -X_star[i, j]
                r[idx[f"e{k}", 0]] = -1.0
            h.append(epsilon + sign * y[i])
    if X_star is None:
        for i in range(n):
            for key in ("s+", "s-"):
                cost[idx[key, i]] = C
                r = row(); r[idx[key, i]] = -1.0; h.append(0.0)
    else:
        p = X_star.shape[1]
        for k in (0, 1):
            for j in range(p):
                cost[idx[f"u{k}", j]] = 0.5 * gamma
                cost[idx[f"v{k}", j]] = C * X_star[:, j].sum()
                r = row(); r[idx[f"v{k}", j]], r[idx[f"u{k}", j]] = 1, -1; h.append(0.0)
                r = row(); r[idx[f"v{k}", j]], r[idx[f"u{k}", j]] = -1, -1; h.append(0.0)
            cost[idx[f"e{k}", 0]] = C * n
            for i in range(n):  # g_k(x*_i) >= 0
                r = row()
                for j in range(p):
                    r[idx[f"v{k}", j]] = -X_star[i, j]
                r[idx[f"e{k}", 0]] = -1.0
                h.append(0.0)
    solvers.options.update(show_progress=False, abstol=1e-9, reltol=1e-9, feastol=1e-9)
    sol = solvers.lp(matrix(cost), matrix(np.array(G)), matrix(np.array(h)))
    assert sol["status"] == "optimal"
    x = np.array(sol["x"]).ravel()
    return float(cost @ x), x[:d]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    y = X[:, 0] - 0.5 * X[:, 1] + 0.3 * rng.normal(size=40)
    return X, y


@pytest.mark.parametrize("C, epsilon", [(1.0, 0.1), (0.1, 0.0), (5.0, 0.3)])
def test_l1svr_optimum_matches_cvxopt(data, C, epsilon):
    X, y = data
    model = L1SVR(C=C, epsilon=epsilon).fit(X, y)
    ref, w = cvxopt_svr(X, y, C, epsilon)
    assert model.objective_ == pytest.approx(ref, rel=1e-6, abs=1e-6)
    assert abs(model.duality_gap_) < 1e-7
    # the objective at the returned weights, computed from its definition
    f = X @ model.coef_ + model.intercept_
    direct = 0.5 * np.abs(model.coef_).sum() + C * np.maximum(np.abs(y - f) - epsilon, 0).sum()
    assert direct == pytest.approx(ref, rel=1e-6, abs=1e-6)


def test_lupi_l1svr_matches_cvxopt(data):
    X, y = data
    rng = np.random.default_rng(1)
    Xs = np.c_[np.abs(y - X[:, 0] + 0.5 * X[:, 1]), rng.normal(size=40)]
    model = L1SVR(C=1.0, epsilon=0.05, gamma=0.5).fit(X, y, privileged_features=Xs)
    ref, _ = cvxopt_svr(X, y, 1.0, 0.05, X_star=Xs, gamma=0.5)
    assert model.objective_ == pytest.approx(ref, rel=1e-6, abs=1e-6)
    g = Xs @ model.coef_privileged_ + model.intercept_privileged_
    assert g.min() >= -1e-8  # both correcting functions are non-negative
    f = X @ model.coef_ + model.intercept_
    assert np.all(f - y <= 0.05 + g[:, 0] + 1e-7) and np.all(y - f <= 0.05 + g[:, 1] + 1e-7)


def test_epsilon_edge_cases(data):
    X, y = data
    # epsilon = 0: least absolute deviations with an L1 penalty
    lad = L1SVR(C=1.0, epsilon=0.0).fit(X, y)
    f = X @ lad.coef_ + lad.intercept_
    assert lad.objective_ == pytest.approx(0.5 * np.abs(lad.coef_).sum() + np.abs(y - f).sum())
    # a tube wider than the spread of y: every point fits with w = 0 (the penalty alone)
    wide = L1SVR(C=1.0, epsilon=1.1 * np.ptp(y)).fit(X, y)
    assert np.allclose(wide.coef_, 0.0) and wide.objective_ == pytest.approx(0.0, abs=1e-9)
    f = wide.predict(X)
    assert np.all(np.abs(y - f) <= 1.1 * np.ptp(y) + 1e-7)


def test_regression_lp_relevance_matches_a_cold_solve(data):
    # the warm-started and dual routes give the cold solve's bounds for regression rows
    X, y = data
    Xb = np.tile(X, (3, 1))
    yb = np.tile(y, 3) + 0.01 * np.arange(120)
    from lupikit.relevance import RelevanceTask

    for solver in ("primal", "dual"):
        lp = OrdinalLP(Xb, yb, 2, 1.0, probe=True, solver=solver, epsilon=0.1)
        budget = 1.1 * lp.solve_model().fun
        tasks = [RelevanceTask(k, j) for j in range(4) for k in ("min", "max")]
        cold = OrdinalLP(Xb, yb, 2, 1.0, epsilon=0.1)
        ref = [cold.solve_relevance(t.kind, t.column, budget) for t in tasks]
        np.testing.assert_allclose(lp.run_tasks(tasks, budget), ref, atol=1e-7)


def test_bad_input_is_named(data):
    X, y = data
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter"):
        L1SVR(epsilon=-0.1).fit(X, y)
    with pytest.raises(ValueError, match="y must be numeric"):
        L1SVR().fit(X, np.array(["a"] * 40))
    with pytest.raises(NotFittedError):
        L1SVR().predict(X)
