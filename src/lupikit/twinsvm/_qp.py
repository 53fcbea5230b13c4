"""Dual QPs in standard form and the two solvers (``"smo"``, ``"cvxopt"``).

A :class:`DualQP` holds ``min 0.5 z'Pz + q'z + constant`` s.t. ``A z = b``,
``lo <= z <= hi``. :func:`solve_dual` solves it with either solver and returns
the solution together with the multipliers of the equality constraints (the
intercepts of SVM+ and Pin-SVM), found from the KKT conditions by a tiny
linear programme (HiGHS) that minimises the largest KKT violation.
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


def cvxopt_solve(P, q, lo, hi, A=None, b=None, *, tol=1e-9, max_iter=200):
    """Solve the QP with cvxopt's interior-point ``solvers.qp``.

    Parameters
    ----------
    P, q, lo, hi, A, b : see :class:`DualQP`.
    tol : float, default=1e-9
        Used for cvxopt's ``abstol``, ``reltol`` and ``feastol``.
    max_iter : int, default=200

    Returns
    -------
    x : ndarray
    n_iter : int
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
    return np.clip(x, lo, hi), int(sol["iterations"])


def equality_multipliers(qp, x, *, rtol=1e-8):
    """Multipliers ``nu`` of ``A z = b`` from the KKT conditions at ``x``.

    At a solution, ``g = Pz + q`` satisfies ``g_i + a_i'nu = 0`` for free
    variables, ``>= 0`` at the lower bound and ``<= 0`` at the upper bound.
    We pick the ``nu`` minimising the largest violation (an LP solved with
    HiGHS); with free variables present it equals their common value.

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
    span = np.where(np.isfinite(hi), hi - lo, np.inf)
    eps = rtol * np.maximum(1.0, np.where(np.isfinite(span), span, np.abs(x).max() + 1))
    at_lo = x <= lo + eps
    at_hi = x >= hi - eps
    free = ~at_lo & ~at_hi
    rows, rhs = [], []
    # variables (nu_1..nu_r, t); minimise t
    cols, inv = np.unique(A.T.round(12), axis=0, return_inverse=True)
    inv = inv.ravel()
    for k in range(cols.shape[0]):
        a = cols[k]
        m = inv == k
        # g_i + a'nu <= t  for free or at_hi  ->  a'nu - t <= -g_i
        sel = m & (free | at_hi)
        if sel.any():
            rows.append(np.r_[a, -1.0])
            rhs.append(-g[sel].max())
        # g_i + a'nu >= -t for free or at_lo ->  -a'nu - t <= g_i
        sel = m & (free | at_lo)
        if sel.any():
            rows.append(np.r_[-a, -1.0])
            rhs.append(g[sel].min())
    c = np.r_[np.zeros(r), 1.0]
    bounds = [(None, None)] * r + [(0, None)]
    res = linprog(c, A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds, method="highs")
    if not res.success:  # pragma: no cover - the LP is always feasible
        return np.zeros(r), np.inf
    nu = res.x[:r]
    # centre nu inside its optimal set along each direction (free variables
    # pin it down; otherwise take the middle of the admissible interval)
    return nu, float(res.x[r])


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
        x, n_iter = cvxopt_solve(qp["P"], qp["q"], qp["lo"], qp["hi"], A, b,
                                 tol=min(1e-9, tol * 1e-3),
                                 max_iter=200 if max_iter is None else max_iter)
        qp["trace"] = []
        qp["converged"] = True
    qp["solve_time"] = time.perf_counter() - t0
    qp["x"] = x
    qp["n_iter"] = n_iter
    qp["solver"] = solver
    qp["objective"] = qp.value(x)
    qp["multipliers"], _ = equality_multipliers(qp, x)
    return qp
