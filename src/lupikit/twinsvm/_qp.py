"""Dual QPs in standard form and the two solvers (``"smo"``, ``"cvxopt"``).

A :class:`DualQP` holds ``min 0.5 z'Pz + q'z + constant`` s.t. ``A z = b``,
``lo <= z <= hi``. :func:`solve_dual` solves it with either solver and returns
the solution together with the multipliers of the equality constraints (the
intercepts of SVM+ and Pin-SVM), found from the KKT conditions by a tiny
linear programme (HiGHS) that minimises the largest KKT violation (centred
where that leaves them free), given which variables are at a bound: exactly
on it for SMO, and, for cvxopt's interior-point solution, where the bound's
multiplier exceeds the slack.
"""

import time
import warnings

import numpy as np
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning

from ._smo import smo_solve

__all__ = ["DualQP", "solve_dual", "cvxopt_solve", "equality_multipliers"]

SOLVERS = ("smo", "cvxopt")


class DualQP(dict):
    """A dual QP ``min 0.5 z'Pz + q'z + constant``, ``Az = b``, ``lo <= z <= hi``.

    A dict with attribute access and the keys ``P``, ``q``, ``A``, ``b``,
    ``lo``, ``hi``, ``constant``, ``x0`` (a feasible start) and, after
    solving, ``x``, ``objective`` (including ``constant``), ``n_iter``,
    ``solve_time`` and ``solver``.
    """

    __getattr__ = dict.__getitem__

    def value(self, z):
        """Objective ``0.5 z'Pz + q'z + constant`` at ``z``."""
        z = np.asarray(z, dtype=np.float64)
        return float(0.5 * z @ self["P"] @ z + self["q"] @ z + self["constant"])

    def gradient(self, z):
        """Gradient ``Pz + q`` at ``z``."""
        return self["P"] @ z + self["q"]


def make_qp(P, q, lo, hi, A=None, b=None, constant=0.0, x0=None, *, assume_symmetric=False):
    """A :class:`DualQP`; ``P`` is symmetrised unless ``assume_symmetric``
    (for matrices built exactly symmetric, which saves a dense copy)."""
    n = len(q)
    if A is None:
        A, b = np.zeros((0, n)), np.zeros(0)
    P = np.asarray(P, dtype=np.float64)
    if not assume_symmetric:
        P = 0.5 * (P + P.T)
    return DualQP(
        P=np.ascontiguousarray(P),
        q=np.asarray(q, dtype=np.float64),
        A=np.atleast_2d(np.asarray(A, dtype=np.float64)).reshape(-1, n),
        b=np.atleast_1d(np.asarray(b, dtype=np.float64)),
        lo=np.broadcast_to(np.asarray(lo, dtype=np.float64), (n,)).copy(),
        hi=np.broadcast_to(np.asarray(hi, dtype=np.float64), (n,)).copy(),
        constant=float(constant),
        x0=np.zeros(n) if x0 is None else np.asarray(x0, dtype=np.float64),
    )


def cvxopt_solve(P, q, lo, hi, A=None, b=None, *, tol=1e-9, max_iter=200, return_duals=False):
    """Solve the QP with cvxopt's interior-point ``solvers.qp``.

    Parameters
    ----------
    P, q, lo, hi, A, b : see :class:`DualQP`.
    tol : float, default=1e-9
        Used for cvxopt's ``abstol``, ``reltol`` and ``feastol``.
    max_iter : int, default=200
    return_duals : bool, default=False
        Also return the multipliers of the bounds.

    Returns
    -------
    x : ndarray
    n_iter : int
    duals : dict, only if ``return_duals``
        ``"lower"`` and ``"upper"``: the multipliers (>= 0) of ``x >= lo``
        and ``x <= hi`` (0 where the bound is infinite); ``"equality"``:
        those of ``A x = b`` (the sign convention of
        ``lupikit.twinsvm._qp.equality_multipliers``).
    """
    from cvxopt import matrix, solvers

    n = len(q)
    rows, h = [], []
    fin_hi = np.isfinite(hi)
    fin_lo = np.isfinite(lo)
    eye = np.eye(n)
    if fin_lo.any():
        rows.append(-eye[fin_lo])
        h.append(-lo[fin_lo])
    if fin_hi.any():
        rows.append(eye[fin_hi])
        h.append(hi[fin_hi])
    G = np.vstack(rows)
    h = np.concatenate(h)
    args = [matrix(np.asarray(P, dtype=float)), matrix(np.asarray(q, dtype=float)),
            matrix(G), matrix(h)]
    if A is not None and np.size(A):
        A = np.atleast_2d(A)
        args += [matrix(np.asarray(A, dtype=float)), matrix(np.asarray(b, dtype=float))]
    options = dict(show_progress=False, abstol=tol, reltol=tol, feastol=tol,
                   maxiters=int(max_iter))
    sol = solvers.qp(*args, options=options)
    if sol["status"] != "optimal":
        warnings.warn(
            f"cvxopt stopped with status {sol['status']!r} after "
            f"{sol['iterations']} iterations (max_iter={max_iter}).",
            ConvergenceWarning,
            stacklevel=2,
        )
    x = np.array(sol["x"]).ravel()
    if not return_duals:
        return np.clip(x, lo, hi), int(sol["iterations"])
    z = np.array(sol["z"]).ravel()
    lower, upper = np.zeros(n), np.zeros(n)
    lower[fin_lo] = z[: fin_lo.sum()]
    upper[fin_hi] = z[fin_lo.sum():]
    y = np.array(sol["y"]).ravel() if len(args) > 4 else np.zeros(0)
    duals = {"lower": lower, "upper": upper, "equality": y}
    return np.clip(x, lo, hi), int(sol["iterations"]), duals


def equality_multipliers(qp, x, *, rtol=1e-8, at_lo=None, at_hi=None):
    """Multipliers ``nu`` of ``A z = b`` from the KKT conditions at ``x``.

    At a solution, ``g = Pz + q`` satisfies ``g_i + a_i'nu = 0`` for free
    variables, ``>= 0`` at the lower bound and ``<= 0`` at the upper bound.
    We pick the ``nu`` minimising the largest violation (an LP solved with
    HiGHS); with free variables present it equals their common value. Where
    that leaves ``nu`` free along some direction (no free variable pins it
    down: the intercept of an SVM without free support vectors), a second
    LP centres it: it maximises the smallest slack of the bound variables'
    inequalities, which for one constraint is the middle of the admissible
    interval (as libsvm does for ``b``).

    Which variables are at a bound decides the result. By default a
    variable within ``rtol`` (relative) of a bound is at it, right for
    SMO's iterates, which are exactly on their bounds; an interior-point
    solution has its bound variables only near them (``1e-6`` away is not
    rare), and taking those as free forces ``g_i + a_i'nu = 0`` on them and
    shifts ``nu``. Pass ``at_lo`` / ``at_hi`` (boolean arrays) to give the
    classification instead; :func:`solve_dual` does so for cvxopt, from its
    bound multipliers (at a bound where the multiplier exceeds the slack).

    Returns
    -------
    nu : ndarray of shape (r,)
    violation : float
    """
    A = qp["A"]
    r = A.shape[0]
    if r == 0:
        return np.zeros(0), 0.0
    g = qp.gradient(x)
    lo, hi = qp["lo"], qp["hi"]
    if at_lo is None or at_hi is None:
        span = np.where(np.isfinite(hi), hi - lo, np.inf)
        eps = rtol * np.maximum(1.0, np.where(np.isfinite(span), span, np.abs(x).max() + 1))
        at_lo = x <= lo + eps
        at_hi = x >= hi - eps
    at_lo = np.asarray(at_lo, dtype=bool)
    at_hi = np.asarray(at_hi, dtype=bool) & ~at_lo
    free = ~at_lo & ~at_hi
    # rows in the variables (nu_1..nu_r, t): free ones bound |g_i + a'nu| by
    # t, bound ones one side of it; one row per group and kind
    fixed_rows, fixed_rhs, bound_rows, bound_rhs = [], [], [], []
    cols, inv = np.unique(A.T.round(12), axis=0, return_inverse=True)
    inv = inv.ravel()
    for k in range(cols.shape[0]):
        a = cols[k]
        m = inv == k
        for sel, rows, rhs in ((m & free, fixed_rows, fixed_rhs),
                               (m & at_hi, bound_rows, bound_rhs)):
            if sel.any():  # g_i + a'nu <= t  ->  a'nu - t <= -g_i
                rows.append(np.r_[a, -1.0])
                rhs.append(-g[sel].max())
        for sel, rows, rhs in ((m & free, fixed_rows, fixed_rhs),
                               (m & at_lo, bound_rows, bound_rhs)):
            if sel.any():  # g_i + a'nu >= -t  ->  -a'nu - t <= g_i
                rows.append(np.r_[-a, -1.0])
                rhs.append(g[sel].min())
    rows, rhs = np.array(fixed_rows + bound_rows), np.array(fixed_rhs + bound_rhs)
    c = np.r_[np.zeros(r), 1.0]
    bounds = [(None, None)] * r + [(0, None)]
    res = linprog(c, A_ub=rows, b_ub=rhs, bounds=bounds, method="highs")
    if not res.success:  # pragma: no cover - the LP is always feasible
        return np.zeros(r), np.inf
    nu, t = res.x[:r], float(res.x[r])
    if bound_rows:
        # centre: at the optimal violation t (plus rounding), maximise the
        # slack s of the bound rows, s <= scale (bounded LP)
        scale = max(1.0, float(np.abs(g).max()))
        t_fix = t + 1e-9 * scale
        R = rows[:, :r]
        s_col = np.r_[np.zeros(len(fixed_rows)), np.ones(len(bound_rows))]
        res2 = linprog(np.r_[np.zeros(r), -1.0], A_ub=np.c_[R, s_col], b_ub=rhs + t_fix,
                       bounds=[(None, None)] * r + [(0, scale)], method="highs")
        if res2.success:
            nu = res2.x[:r]
    return nu, t


def solve_dual(qp, solver="smo", *, tol=1e-6, max_iter=None, trace_every=0, partner=None,
               polish_every=None):
    """Solve a :class:`DualQP` in place and return it.

    Parameters
    ----------
    qp : DualQP
    solver : {"smo", "cvxopt"}, default="smo"
    tol : float, default=1e-6
        SMO: KKT-violation tolerance. cvxopt: see the notes.
    max_iter : int, default=None
    trace_every : int, default=0
        SMO only: record the objective every that many iterations.
    partner, polish_every : see :func:`smo_solve` (SMO only).

    Notes
    -----
    cvxopt runs with ``abstol = reltol = feastol = min(1e-9, tol * 1e-3)`` so
    that it serves as the reference solution.
    """
    if solver not in SOLVERS:
        raise ValueError(f"solver={solver!r} must be one of {list(SOLVERS)}.")
    t0 = time.perf_counter()
    A = qp["A"] if qp["A"].shape[0] else None
    b = qp["b"] if qp["A"].shape[0] else None
    if solver == "smo":
        res = smo_solve(qp["P"], qp["q"], qp["lo"], qp["hi"], A, b, x0=qp["x0"], tol=tol,
                        max_iter=max_iter, trace_every=trace_every, partner=partner,
                         polish_every=polish_every)
        x, n_iter = res.x, res.n_iter
        qp["trace"] = [(it, obj + qp["constant"], v) for it, obj, v in res.trace]
        qp["converged"] = res.converged
    else:
        x, n_iter, duals = cvxopt_solve(qp["P"], qp["q"], qp["lo"], qp["hi"], A, b,
                                        tol=min(1e-9, tol * 1e-3),
                                        max_iter=200 if max_iter is None else max_iter,
                                        return_duals=True)
        qp["trace"] = []
        qp["converged"] = True
    qp["solve_time"] = time.perf_counter() - t0
    qp["x"] = x
    qp["n_iter"] = n_iter
    qp["solver"] = solver
    qp["objective"] = qp.value(x)
    if solver == "smo":
        qp["multipliers"], _ = equality_multipliers(qp, x)
    else:
        # the interior point leaves bound variables near, not on, their
        # bounds: classify them by complementarity (multiplier > slack)
        at_lo = np.isfinite(qp["lo"]) & (duals["lower"] > x - qp["lo"])
        at_hi = np.isfinite(qp["hi"]) & (duals["upper"] > qp["hi"] - x)
        qp["multipliers"], _ = equality_multipliers(qp, x, at_lo=at_lo, at_hi=at_hi)
    return qp
