"""The HiGHS adapter of Part III: cold solves, model building, silent instances, certificates.

The bottom layer of :mod:`lupikit.relevance`'s solver: it knows HiGHS (its
Python classes, and scipy's ``linprog`` front end) and nothing of the
relevance LPs. The layers above it, each importing only from the ones below:

1. :mod:`._layout` -- the constraint matrix of the ordinal SVM and its named
   columns; :mod:`._tasks` -- what a relevance bound asks for;
2. the backends :mod:`._primal` (warm-started primal simplex),
   :mod:`._dual_path` (parametric dual search, plain model) and
   :mod:`._lupi_dual` (weak-duality certificates and C path, LUPI model);
3. :mod:`._engine` -- the one place that chooses a route and owns the
   backends and their caches;
4. :mod:`._lp` -- :class:`~lupikit.relevance.OrdinalLP`, a layout with its engine.
"""

import os
import sys
import threading

import numpy as np
from scipy.optimize import linprog

__all__ = ["LinearProgramError", "RETRIES", "solve_lp"]


class LinearProgramError(RuntimeError):
    """Raised when a linear program is infeasible, unbounded or fails.

    Attributes
    ----------
    status : int
        The status code of ``scipy.optimize.linprog`` (2 infeasible,
        3 unbounded, 4 numerical difficulties), except that a model HiGHS
        rejects (a *model error*, which scipy reports as status 2) has status 4:
        it is not a proof of infeasibility.
    retries : int
        Solves that ended undecided before the last one (see :func:`solve_lp`).
    """

    def __init__(self, message, status, retries=0):
        super().__init__(message)
        self.status = status
        self.retries = retries


_STATUS_TEXT = {
    1: "hit the iteration limit",
    2: "is infeasible",
    3: "is unbounded",
    4: "ran into numerical difficulties",
}
#: HiGHS rejects a model whose matrix has an entry of this magnitude or more (its
#: option ``large_matrix_value``); costs and bounds from 1e20 on are infinite to it.
HIGHS_LARGE_MATRIX_VALUE = 1e15
_MODEL_ERROR_TEXT = (
    "was rejected by HiGHS as a model error, which says nothing about its feasibility: a "
    "coefficient lies outside the range HiGHS accepts (matrix entries of "
    f"{HIGHS_LARGE_MATRIX_VALUE:.0e} or more, costs or bounds of 1e20 or more). Check the "
    "scale of X, privileged_features and C (standardise the features, e.g. with "
    "sklearn.preprocessing.StandardScaler)"
)


def _is_model_error(res):
    """Whether ``linprog`` reports HiGHS' model error (scipy gives it status 2, as infeasible)."""
    return res.status == 2 and "model error" in str(res.message).lower()


#: The exact routes tried, in this order, when HiGHS' default solve of a cold LP ends
#: undecided (iteration limit or numerical difficulties, HiGHS' model status
#: "Unknown"): its interior-point method with crossover, then dual simplex without
#: presolve at feasibility tolerances of 1e-10. The first one that decides the LP
#: (optimal, infeasible or unbounded) answers.
RETRIES = (
    ("highs-ipm", {"presolve": True}),
    ("highs-ds", {"presolve": False, "primal_feasibility_tolerance": 1e-10,
                  "dual_feasibility_tolerance": 1e-10}),
)


def solve_lp(c, A, b, bounds, *, what="linear program", options=None, ipm_first=False):
    """Solve ``min c.x s.t. A x <= b, bounds`` with HiGHS; raise on failure.

    HiGHS' default (dual simplex after presolve) solves first; if it ends
    undecided (iteration limit, or numerical difficulties with model status
    "Unknown"), the LP is solved again by each route of ``RETRIES`` in
    turn until one decides it. ``res.retries`` counts those extra solves.
    ``ipm_first=True`` puts HiGHS' default last (for an LP on which a simplex
    solve already ended undecided).

    Parameters
    ----------
    c : ndarray of shape (n_vars,)
    A : sparse matrix of shape (n_rows, n_vars)
    b : ndarray of shape (n_rows,)
    bounds : ndarray of shape (n_vars, 2)
        Lower and upper bounds (``np.inf`` for none).
    what : str
        Name of the problem used in error messages.
    options : dict or None
        Extra HiGHS options passed to ``scipy.optimize.linprog``.
    ipm_first : bool
        Try the routes of ``RETRIES`` before HiGHS' default.

    Returns
    -------
    res : OptimizeResult
        The result of ``scipy.optimize.linprog``, with ``res.dual_fun``
        (the value of the LP dual at HiGHS' multipliers) and ``res.retries``
        (the solves that ended undecided before the one that answered) added.

    Raises
    ------
    LinearProgramError
        If HiGHS reports the problem infeasible or unbounded, or no route
        decides it; the message names ``what``. A model that HiGHS rejects (a
        coefficient out of its range) is reported as such, with status 4,
        never as infeasible.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from lupikit.relevance import solve_lp
    >>> res = solve_lp(np.array([-1.0, -1.0]), sp.csc_array([[1.0, 2.0]]),
    ...                np.array([4.0]), np.array([[0, np.inf], [0, 1.0]]))
    >>> round(res.fun, 6), round(res.dual_fun, 6), res.retries
    (-4.0, -4.0, 0)
    """
    opts = {"presolve": True}
    if options:
        opts.update(options)
    routes = [("highs", {})] + list(RETRIES)
    if ipm_first:
        routes = routes[1:] + routes[:1]
    for retries, (method, extra) in enumerate(routes):
        res = linprog(c, A_ub=A, b_ub=b, bounds=bounds, method=method, options={**opts, **extra})
        if res.status not in (1, 4) or _is_model_error(res):
            break  # decided (or rejected: no other route would take it)
    if _is_model_error(res):
        raise LinearProgramError(f"The {what} {_MODEL_ERROR_TEXT} {res.message}.", 4, retries)
    if res.status != 0:
        text = _STATUS_TEXT.get(res.status, "failed")
        tried = " (by dual simplex, interior point and at tight tolerances)" if retries else ""
        raise LinearProgramError(
            f"The {what} {text}{tried} (HiGHS status {res.status}: {res.message}). "
            "No solution is returned rather than a meaningless one.",
            res.status, retries,
        )
    res.dual_fun = _dual_value(res, b, bounds)
    res.retries = retries
    return res


def _dual_value(res, b, bounds):
    """Lagrange dual value from HiGHS multipliers (equals res.fun at optimum)."""
    val = float(np.dot(res.ineqlin.marginals, b))
    for side, col in (("lower", 0), ("upper", 1)):
        marg = getattr(res, side).marginals
        bnd = bounds[:, col]
        ok = np.isfinite(bnd) & (marg != 0)
        val += float(np.dot(marg[ok], bnd[ok]))
    return val



def _highs_api():
    """HiGHS' own Python classes: ``highspy`` (a dependency), else scipy's copy."""
    try:
        import highspy

        return highspy.Highs, highspy.HighsLp, highspy.MatrixFormat, highspy.HighsModelStatus
    except ImportError:  # pragma: no cover - highspy is a declared dependency
        pass
    try:  # pragma: no cover
        from scipy.optimize._highspy import _core

        return _core._Highs, _core.HighsLp, _core.MatrixFormat, _core.HighsModelStatus
    except (ImportError, AttributeError):  # pragma: no cover - old scipy
        return None


_BANNER_SHOWN = []
_BANNER_LOCK = threading.Lock()


def _new_highs(Highs):
    """A silent HiGHS instance (the first one of a process prints a banner to
    file descriptor 1, which is redirected to /dev/null while it is built)."""
    with _BANNER_LOCK:  # threads: only one may redirect file descriptor 1
        if _BANNER_SHOWN:
            h = Highs()
        else:
            h = _first_highs(Highs)
            _BANNER_SHOWN.append(True)
    h.setOptionValue("output_flag", False)
    return h


def _first_highs(Highs):
    """The process's first HiGHS instance, built with file descriptor 1 silenced."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError, AttributeError):  # pragma: no cover - no real fd 1
        return Highs()
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            return Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


#: Rounding allowance of the certificate checks, relative to the sum of the absolute
#: terms of each computed quantity (a row's activity, a reduced cost, a value): about
#: 500 times the double precision epsilon. A sum of terms of 1e6 (features on a scale
#: of 1e3 next to multipliers of 1e2) carries rounding errors of 1e-9 and more, which a
#: fixed tolerance of 1e-8 took for a wrong answer; a wrong vertex is off by far more.
ROUNDING = 1e-13


def _optimal(A, b, c, bounds, x, y, tol=1e-7):
    """Whether ``x`` solves ``min c.x s.t. A x <= b, bounds`` by its own certificate.

    ``x`` must be feasible and the row multipliers ``y`` (HiGHS' row duals,
    clipped to their sign, ``y <= 0``) must give a Lagrangian lower bound
    ``b.y + min over the bounds of (c - A^T y).x`` that meets ``c.x``: weak
    duality then proves ``x`` optimal to ``tol`` (relative). Reduced costs
    that a free or unbounded column would need to be 0 may be off by ``tol``
    relative to the largest cost or multiplier (HiGHS' own dual feasibility
    tolerance is 1e-7): the check catches wrong vertices, not rounding (each
    comparison also allows :data:`ROUNDING` times the sum of the absolute
    terms it adds up).
    """
    lo, hi = bounds[:, 0], bounds[:, 1]
    excess = A @ x - b - tol * np.maximum(1.0, np.abs(b))
    # (the rounding allowances are computed only where a comparison fails without them)
    if np.any(excess > 0) and np.any(excess > ROUNDING * (abs(A) @ np.abs(x))):
        return False
    if np.any(x < lo - tol * np.maximum(1.0, np.abs(lo))) or np.any(
            x > hi + tol * np.maximum(1.0, np.abs(hi))):
        return False
    y = np.minimum(y, 0.0)
    d = c - A.T @ y
    pos, neg = d > 0, d < 0
    scale = max(1.0, np.abs(c).max(), np.abs(y).max())  # of the reduced costs' terms
    free = (pos & ~np.isfinite(lo)) | (neg & ~np.isfinite(hi))
    off = np.abs(d[free]) - tol * scale
    if np.any(off > 0) and np.any(off > ROUNDING * (abs(A).T @ np.abs(y))[free]):
        return False
    at_lo, at_hi = pos & np.isfinite(lo), neg & np.isfinite(hi)
    terms = [y * b, d[at_lo] * lo[at_lo], d[at_hi] * hi[at_hi]]
    lower = sum(float(t.sum()) for t in terms)
    gap = c @ x - lower - tol * max(1.0, abs(c @ x))
    return bool(gap <= 0 or gap <= ROUNDING * (
        sum(float(np.abs(t).sum()) for t in terms) + np.abs(c) @ np.abs(x)))


def _infeasible(A, b, bounds, ray, tol=1e-9):
    """Whether the row multipliers ``ray`` (HiGHS' dual ray, either sign) prove
    ``A x <= b`` with the column ``bounds`` infeasible (Farkas' lemma).

    For ``y >= 0`` every feasible ``x`` has ``y.A x <= y.b``; if the smallest
    value of ``(A^T y).x`` over the bounds exceeds ``y.b``, there is none. Terms
    of an unbounded column whose coefficient is not 0 (to ``tol`` relative to
    the largest) make the certificate void. Both signs of ``ray`` are tried,
    clipped to ``y >= 0`` (any such ``y`` that passes is a certificate).
    """
    lo, hi = bounds[:, 0], bounds[:, 1]
    for y in (np.maximum(ray, 0.0), np.maximum(-ray, 0.0)):
        if not y.any():
            continue
        g = A.T @ y
        scale = max(np.abs(g).max(initial=0.0), np.abs(y).max() * max(1.0, np.abs(b).max()))
        g = np.where(np.abs(g) <= tol * scale, 0.0, g)
        if np.any((g > 0) & ~np.isfinite(lo)) or np.any((g < 0) & ~np.isfinite(hi)):
            continue
        smallest = g[g > 0] @ lo[g > 0] + g[g < 0] @ hi[g < 0]
        if smallest - y @ b > tol * max(1.0, scale * np.abs(np.r_[lo, hi])[
                np.isfinite(np.r_[lo, hi])].max(initial=1.0)):
            return True
    return False


def _highs_lp(api, A, cost, col_lower, col_upper, row_lower, row_upper):
    """A ``HighsLp`` of ``min cost.x`` with ``row_lower <= A x <= row_upper`` and column
    bounds, from a CSC matrix ``A``."""
    _, HighsLp, MatrixFormat, _ = api
    m, n = A.shape
    model = HighsLp()
    model.num_col_ = n
    model.num_row_ = m
    model.a_matrix_.num_col_ = n
    model.a_matrix_.num_row_ = m
    model.a_matrix_.format_ = MatrixFormat.kColwise
    # (highspy copies these into C++ vectors: from Python lists twice as fast as from
    # numpy arrays, which it reads element by element)
    model.a_matrix_.start_ = A.indptr.tolist()
    model.a_matrix_.index_ = A.indices.tolist()
    model.a_matrix_.value_ = A.data.tolist()
    model.col_cost_ = np.asarray(cost, dtype=float).tolist()
    model.col_lower_ = np.asarray(col_lower, dtype=float).tolist()
    model.col_upper_ = np.asarray(col_upper, dtype=float).tolist()
    model.row_lower_ = np.asarray(row_lower, dtype=float).tolist()
    model.row_upper_ = np.asarray(row_upper, dtype=float).tolist()
    return model


#: Pivots that one warm-started simplex run may take, per row and column of its LP
#: (plus ``ITERATION_FLOOR``), before it stops undecided and the caller's exact route
#: (a cold solve, or the primal LP) answers: a bound on a stalling run, never reached
#: by an ordinary one (a cold solve of the whole LP takes about one pivot per row).
ITERATIONS_PER_ROW_AND_COLUMN = 50
ITERATION_FLOOR = 10_000


def _limit_iterations(h, shape):
    """Set HiGHS' simplex iteration limit of one run for an LP of ``shape``."""
    h.setOptionValue("simplex_iteration_limit",
                     int(ITERATION_FLOOR + ITERATIONS_PER_ROW_AND_COLUMN * sum(shape)))


def _dual_simplex(api, model, A):
    """A silent HiGHS instance holding ``model`` (matrix ``A``), set for dual simplex
    restarts after changes of row bounds; HiGHS' scaling is off when the columns
    of ``A`` are already on one scale (standardised features next to unit entries:
    scaling then only costs time). Each run is bounded by ``_limit_iterations``."""
    h = _new_highs(api[0])
    _limit_iterations(h, A.shape)
    h.setOptionValue("simplex_strategy", 1)
    # only the first solve starts from scratch, and on these small duals HiGHS'
    # presolve costs it more than it saves (3.5 of 4.5 ms for a fold of n = 240);
    # every later solve restarts from a basis, where HiGHS skips presolve anyway
    h.setOptionValue("presolve", "off")
    if _well_scaled(A):
        h.setOptionValue("simplex_scale_strategy", 0)
    h.passModel(model)
    return h


def _well_scaled(A, ratio=100.0):
    """True if the largest absolute entries of all non-empty columns lie within ``ratio``."""
    col_max = np.maximum.reduceat(np.abs(A.data), A.indptr[:-1][np.diff(A.indptr) > 0])
    col_max = col_max[col_max > 0]
    return col_max.size > 0 and col_max.max() <= ratio * col_max.min()
