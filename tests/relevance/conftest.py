"""Independent reference solves with cvxopt (dense, built with plain loops)."""

import numpy as np
from cvxopt import matrix, solvers
from scipy.optimize import linprog


def cvxopt_ordinal(X, yb, n_bins, C, constraints="explicit", X_star=None, gamma=1.0,
                   objective=None, budget=None, backend="cvxopt"):
    """Solve the L1 ordinal SVM (or a relevance LP) with cvxopt's LP solver.

    ``backend="highs"`` solves the same dense LP with HiGHS' simplex from
    scratch instead: cvxopt's interior point can stop at a relative gap of
    1e-5 (status "unknown") on small relevance LPs, too loose for 1e-6
    comparisons; the LP built here stays independent of lupikit's.

    Variables: w (d), t (d) with t >= |w|, b (K), then slacks s (one per
    margin row) or, with X_star, the correcting functions
    (v0 (p), u0 (p) >= |v0|, v1 (p), u1 (p) >= |v1|, e0, e1).

    ``objective``: callable(index dict) -> cost vector; default the model.
    ``budget``: if given, add  model_objective <= budget.
    Returns (optimal value, solution vector, index dict).
    """
    n, d = X.shape
    K = n_bins - 1
    rows = []  # (i, k, sign): sign (x_i.w - b_k) + slack... <= -1
    for i in range(n):
        if constraints == "explicit":
            if yb[i] < K:
                rows.append((i, yb[i], 1.0))
            if yb[i] > 0:
                rows.append((i, yb[i] - 1, -1.0))
        else:
            for k in range(K):
                rows.append((i, k, 1.0 if yb[i] <= k else -1.0))
    R = len(rows)
    idx = {"w": np.arange(d), "t": d + np.arange(d), "b": 2 * d + np.arange(K)}
    off = 2 * d + K
    lupi = X_star is not None
    if lupi:
        p = X_star.shape[1]
        for name in ("v0", "u0", "v1", "u1"):
            idx[name] = off + np.arange(p)
            off += p
        idx["e"] = off + np.arange(2)
        nv = off + 2
    else:
        idx["s"] = off + np.arange(R)
        nv = off + R
    G, h = [], []

    def row():
        return np.zeros(nv)

    for j in range(d):
        g = row(); g[idx["w"][j]] = 1; g[idx["t"][j]] = -1; G.append(g); h.append(0)
        g = row(); g[idx["w"][j]] = -1; g[idx["t"][j]] = -1; G.append(g); h.append(0)
    model = row()
    model[idx["t"]] = 0.5
    for r, (i, k, sgn) in enumerate(rows):
        g = row()
        g[idx["w"]] = sgn * X[i]
        g[idx["b"][k]] = -sgn
        if lupi:
            grp = 0 if sgn > 0 else 1
            g[idx[f"v{grp}"]] = -X_star[i]
            g[idx["e"][grp]] = -1
            nn = row(); nn[idx[f"v{grp}"]] = -X_star[i]; nn[idx["e"][grp]] = -1
            G.append(nn); h.append(0)
            model[idx[f"v{grp}"]] += C * X_star[i]
            model[idx["e"][grp]] += C
        else:
            g[idx["s"][r]] = -1
            s = row(); s[idx["s"][r]] = -1; G.append(s); h.append(0)
            model[idx["s"][r]] = C
        G.append(g); h.append(-1)
    if lupi:
        for grp in (0, 1):
            v, u = idx[f"v{grp}"], idx[f"u{grp}"]
            for j in range(len(v)):
                g = row(); g[v[j]] = 1; g[u[j]] = -1; G.append(g); h.append(0)
                g = row(); g[v[j]] = -1; g[u[j]] = -1; G.append(g); h.append(0)
            model[u] = 0.5 * gamma
    if constraints == "explicit":
        for k in range(K - 1):
            g = row(); g[idx["b"][k]] = 1; g[idx["b"][k + 1]] = -1; G.append(g); h.append(0)
    if budget is not None:
        G.append(model.copy()); h.append(budget)
    c = model if objective is None else objective(idx, nv)
    if backend == "highs":
        res = linprog(c, A_ub=np.array(G), b_ub=np.array(h, dtype=float),
                      bounds=[(None, None)] * nv, method="highs")
        assert res.status == 0, res.message
        return float(res.fun), res.x, idx
    opts = {"show_progress": False, "abstol": 1e-9, "reltol": 1e-9, "feastol": 1e-9,
            "maxiters": 200}
    sol = solvers.lp(matrix(c), matrix(np.array(G)), matrix(np.array(h, dtype=float)),
                     options=opts)
    assert sol["status"] == "optimal" or (
        sol["gap"] is not None and abs(sol["gap"]) < 1e-6), sol["status"]
    x = np.array(sol["x"]).ravel()
    return float(c @ x), x, idx


import pytest  # noqa: E402


@pytest.fixture
def reference_lp():
    """The independent cvxopt solve, as a fixture (tests import nothing local)."""
    return cvxopt_ordinal
