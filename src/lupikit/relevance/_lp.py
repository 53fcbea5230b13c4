"""Sparse linear programs of the L1-regularised large-margin ordinal regression.

One :class:`OrdinalLP` holds the constraint matrix of the ordinal SVM of
Chu & Keerthi (2005) with an L1 penalty, in either threshold form, optionally
with the privileged correcting functions of the LUPI variant, plus one *probe
slot* (an extra regular and an extra privileged feature column, switched off
by zero bounds unless a probe is loaded). Everything that the relevance LPs of
:class:`~lupikit.relevance.FeatureRelevanceBounds` change between solves is an
objective vector, a bound, the right-hand side of the budget row or the values
of a probe column: the sparse matrix is built once and those few numbers are
overwritten in place.

Variables (in this order)::

    w+ (D), w- (D)      regular weights, D = d (+1 probe slot)
    b (K)               thresholds, K = n_bins - 1, free
    s (R)               slacks, one per margin row          (plain model)
    v+ (2, P), v- (2, P), e (2)                             (LUPI model)
                        the two privileged correcting functions
                        g_0(x*) = x* . v_0 + e_0 (for "below" rows) and
                        g_1(x*) = x* . v_1 + e_1 (for "above" rows),
                        P = n_privileged (+1 probe slot)

Rows (all ``<=``)::

    R margin rows     sigma_r (x_i . w - b_k) - slack_r <= -1
    R nonneg rows     -g(x*_i) <= 0                          (LUPI only)
    K-1 order rows    b_k - b_{k+1} <= 0                     (explicit only)
    1 budget row      objective(x) <= (1 + delta) mu

with ``slack_r = s_r`` (plain) or ``g_{group(r)}(x*_i)`` (LUPI); sigma_r = +1
for a "below threshold k" row and -1 for an "above threshold k" row.
"""

import numpy as np
import scipy.sparse as sp
from scipy.optimize import OptimizeResult, linprog

from . import _dual_path, _lupi_dual
from ._highs import _highs_api, _highs_lp, _new_highs, _optimal, _well_scaled

__all__ = ["LinearProgramError", "OrdinalLP", "solve_lp"]

#: How relevance upper bounds may be computed (see ``OrdinalLP``'s ``solver``).
SOLVERS = ("auto", "primal", "dual")


class LinearProgramError(RuntimeError):
    """Raised when a linear program is infeasible, unbounded or fails.

    Attributes
    ----------
    status : int
        The status code of ``scipy.optimize.linprog`` (2 infeasible,
        3 unbounded, 4 numerical difficulties), except that a model HiGHS
        rejects (a *model error*, which scipy reports as status 2) has status 4:
        it is not a proof of infeasibility.
    """

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


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


def solve_lp(c, A, b, bounds, *, what="linear program", options=None):
    """Solve ``min c.x s.t. A x <= b, bounds`` with HiGHS; raise on failure.

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

    Returns
    -------
    res : OptimizeResult
        The result of ``scipy.optimize.linprog``, with ``res.dual_fun``
        (the value of the LP dual at HiGHS' multipliers) added.

    Raises
    ------
    LinearProgramError
        If HiGHS reports the problem infeasible or unbounded, or fails; the
        message names ``what``. A model that HiGHS rejects (a coefficient out
        of its range) is reported as such, with status 4, never as infeasible.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from lupikit.relevance import solve_lp
    >>> res = solve_lp(np.array([-1.0, -1.0]), sp.csc_array([[1.0, 2.0]]),
    ...                np.array([4.0]), np.array([[0, np.inf], [0, 1.0]]))
    >>> round(res.fun, 6), round(res.dual_fun, 6)
    (-4.0, -4.0)
    """
    opts = {"presolve": True}
    if options:
        opts.update(options)
    res = linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs", options=opts)
    if _is_model_error(res):
        raise LinearProgramError(f"The {what} {_MODEL_ERROR_TEXT} {res.message}.", 4)
    if res.status != 0:
        text = _STATUS_TEXT.get(res.status, "failed")
        raise LinearProgramError(
            f"The {what} {text} (HiGHS status {res.status}: {res.message}). "
            "No solution is returned rather than a meaningless one.",
            res.status,
        )
    res.dual_fun = _dual_value(res, b, bounds)
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


class OrdinalLP:
    """The constraint matrix of the L1 ordinal SVM (plain or LUPI), built once.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Regular features.
    yb : ndarray of shape (n,)
        Bin indices ``0..n_bins-1``.
    n_bins : int
        Number of ordered bins (at least 2).
    C : float
        Weight of the slacks (or correcting functions).
    constraints : {"explicit", "implicit"}
        Threshold form of Chu & Keerthi (2005).
    X_star : ndarray of shape (n, p) or None
        Privileged features; enables the LUPI model (explicit form only).
    gamma : float
        Weight of the L1 norm of the correcting functions (LUPI only).
    probe : bool
        Reserve a probe slot (one extra regular and, with LUPI, one extra
        privileged feature column).
    solver : {"auto", "primal", "dual"}
        How :meth:`run_tasks` computes upper bounds: warm-started primal
        simplex, the parametric dual search of
        ``lupikit.relevance._dual_path`` (plain model only), or ``"auto"``,
        the dual search from ``MIN_MARGIN_ROWS`` margin rows on, and for a
        LUPI model with a probe slot the primal simplex behind the
        weak-duality certificates of ``lupikit.relevance._lupi_dual``. Also
        how :meth:`solve_path` solves: on the model's LP dual unless
        ``"primal"``.
    """

    def __init__(self, X, yb, n_bins, C, constraints="explicit", X_star=None,
                 gamma=1.0, probe=False, solver="auto"):
        self.X = X
        self.yb = yb
        self.n, self.d = X.shape
        self.K = n_bins - 1
        self.C = float(C)
        self.constraints = constraints
        self.lupi = X_star is not None
        self.X_star = X_star
        self.gamma = float(gamma)
        self.probe = probe
        if solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}.")
        if solver == "dual" and self.lupi:
            raise ValueError("solver='dual' covers the plain model only, not LUPI.")
        self.solver = solver
        self.p = X_star.shape[1] if self.lupi else 0
        self._build()

    # ------------------------------------------------------------------ layout
    def _build(self):
        n, K = self.n, self.K
        yb = self.yb
        if self.constraints == "explicit":
            below = np.flatnonzero(yb < K)
            above = np.flatnonzero(yb > 0)
            ri = np.concatenate([below, above])
            rk = np.concatenate([yb[below], yb[above] - 1])
            rs = np.concatenate([np.ones(below.size), -np.ones(above.size)])
        else:
            kk, ii = np.meshgrid(np.arange(K), np.arange(n), indexing="ij")
            ri, rk = ii.ravel(), kk.ravel()
            rs = np.where(yb[ri] <= rk, 1.0, -1.0)
        self.row_i, self.row_k, self.row_sign = ri, rk, rs
        self.row_group = (rs < 0).astype(int)  # 0: below, 1: above
        R = ri.size
        self.R = R
        D = self.d + (1 if self.probe else 0)
        P = self.p + (1 if (self.probe and self.lupi) else 0)
        self.D, self.P = D, P

        # column offsets
        self.o_wp, self.o_wm, self.o_b = 0, D, 2 * D
        off = 2 * D + K
        if self.lupi:
            self.o_vp = off            # v+ of function g: o_vp + g * P + j
            self.o_vm = off + 2 * P
            self.o_e = off + 4 * P
            self.n_vars = off + 4 * P + 2
        else:
            self.o_s = off
            self.n_vars = off + R
        # row offsets
        self.r_nonneg = R
        self.n_order = K - 1 if self.constraints == "explicit" else 0
        self.r_order = R + (R if self.lupi else 0)
        self.r_budget = self.r_order + self.n_order
        self.n_rows = self.r_budget + 1

        rows, cols, vals = [], [], []

        def add(r, c, v):
            rows.append(np.asarray(r, dtype=np.int64).ravel())
            cols.append(np.broadcast_to(np.asarray(c, dtype=np.int64), np.shape(r)).ravel())
            vals.append(np.broadcast_to(np.asarray(v, dtype=float), np.shape(r)).ravel())

        zeros_n = np.zeros(n)
        for j in range(D):
            x = self.X[:, j] if j < self.d else zeros_n
            r, v = self._regular_column(x)
            add(r, self.o_wp + j, v)
            r, v = self._regular_column(x, negative=True)
            add(r, self.o_wm + j, v)
        # thresholds: margin rows -sigma_r, order rows
        add(np.arange(R), self.o_b + rk, -rs)
        if self.n_order:
            kk = np.arange(K - 1)
            add(self.r_order + kk, self.o_b + kk, 1.0)
            add(self.r_order + kk, self.o_b + kk + 1, -1.0)
        if self.lupi:
            zeros_p = np.zeros(n)
            for g in (0, 1):
                for j in range(P):
                    xs = self.X_star[:, j] if j < self.p else zeros_p
                    r, v = self._privileged_column(xs, g)
                    add(r, self.o_vp + g * P + j, v)
                    r, v = self._privileged_column(xs, g, negative=True)
                    add(r, self.o_vm + g * P + j, v)
                mask = np.flatnonzero(self.row_group == g)
                add(mask, self.o_e + g, -1.0)
                add(self.r_nonneg + mask, self.o_e + g, -1.0)
                add([self.r_budget], self.o_e + g, self.C * mask.size)
        else:
            add(np.arange(R), self.o_s + np.arange(R), -1.0)
            add(np.full(R, self.r_budget), self.o_s + np.arange(R), self.C)

        A = sp.csc_array(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(self.n_rows, self.n_vars),
        )
        A.sort_indices()
        self.A = A
        self.b = np.zeros(self.n_rows)
        self.b[:R] = -1.0
        self.b[self.r_budget] = np.inf  # set by set_budget
        # objective of the model (the budget row as a dense vector)
        self.c_model = A[[self.r_budget], :].toarray().ravel()
        lo = np.zeros(self.n_vars)
        hi = np.full(self.n_vars, np.inf)
        lo[self.o_b:self.o_b + K] = -np.inf
        if self.lupi:
            lo[self.o_e:self.o_e + 2] = -np.inf
        self.bounds = np.column_stack([lo, hi])
        if self.probe:
            self._set_probe_bounds(regular=False, privileged=False)
        self._model_result = None
        self._highs = None
        self._dual = None
        self._cert = None
        self._use_dual = None
        self._points = []
        self._signed = {}

    def _regular_column(self, x, negative=False):
        sgn = -1.0 if negative else 1.0
        r = np.concatenate([np.arange(self.R), [self.r_budget]])
        v = np.concatenate([sgn * self.row_sign * x[self.row_i], [0.5]])
        return r, v

    def _privileged_column(self, xs, g, negative=False):
        sgn = -1.0 if negative else 1.0
        mask = np.flatnonzero(self.row_group == g)
        vals = xs[self.row_i[mask]]
        r = np.concatenate([mask, self.r_nonneg + mask, [self.r_budget]])
        v = np.concatenate([
            -sgn * vals, -sgn * vals,
            [0.5 * self.gamma + sgn * self.C * vals.sum()],
        ])
        return r, v

    # ---------------------------------------------------------- column access
    def _col_slice(self, col):
        return slice(self.A.indptr[col], self.A.indptr[col + 1])

    def _overwrite(self, col, values):
        sl = self._col_slice(col)
        if sl.stop - sl.start != values.size:  # pragma: no cover - structural
            raise RuntimeError("probe column structure mismatch")
        self.A.data[sl] = values

    def set_probe(self, values, privileged=False):
        """Load ``values`` (length n) into the regular or privileged probe slot."""
        if not self.probe:
            raise RuntimeError("this LP has no probe slot")
        values = np.asarray(values, dtype=float)
        if privileged:
            j = self.P - 1
            for g in (0, 1):
                self._overwrite(self.o_vp + g * self.P + j, self._privileged_column(values, g)[1])
                self._overwrite(self.o_vm + g * self.P + j,
                                self._privileged_column(values, g, negative=True)[1])
                self.c_model[self.o_vp + g * self.P + j] = self.A.data[
                    self._col_slice(self.o_vp + g * self.P + j)][-1]
                self.c_model[self.o_vm + g * self.P + j] = self.A.data[
                    self._col_slice(self.o_vm + g * self.P + j)][-1]
        else:
            j = self.D - 1
            self._overwrite(self.o_wp + j, self._regular_column(values)[1])
            self._overwrite(self.o_wm + j, self._regular_column(values, negative=True)[1])

    def _set_probe_bounds(self, regular, privileged):
        if not self.probe:
            return
        j = self.D - 1
        for col in (self.o_wp + j, self.o_wm + j):
            self.bounds[col, 1] = np.inf if regular else 0.0
        if self.lupi:
            j = self.P - 1
            for g in (0, 1):
                for col in (self.o_vp + g * self.P + j, self.o_vm + g * self.P + j):
                    self.bounds[col, 1] = np.inf if privileged else 0.0

    # --------------------------------------------------------------- solving
    def solve_model(self):
        """Solve the ordinal SVM itself (no budget row); return the result.

        For the relevance LPs (with a probe slot) on the dual route the
        optimum is read off the dual search's own first solve, which it needs
        anyway; the result then carries the same fields (``x``, ``fun`` and
        the dual's value ``dual_fun``).
        """
        if self._model_result is None and self.probe and self._wants_dual():
            dual = self._dual_solver()
            if dual.model is not None:
                x = self._point(dual.model[1], dual.model_thresholds)
                self._model_result = OptimizeResult(
                    x=x, fun=float(self.c_model @ x), dual_fun=dual.model_dual_value,
                    status=0, success=True,
                    message="dual simplex on the LP dual (lupikit.relevance._dual_path)")
        if self._model_result is None:
            A_model = self.A[: self.r_budget, :]
            self._model_result = solve_lp(
                self.c_model, A_model, self.b[: self.r_budget], self.bounds,
                what="ordinal regression LP")
        return self._model_result

    def cost_parts(self):
        """``(c_reg, c_loss)`` with model objective ``c_reg + C * c_loss``."""
        c_reg = np.zeros(self.n_vars)
        c_reg[self.o_wp:self.o_wm + self.D] = 0.5
        if self.lupi:
            c_reg[self.o_vp:self.o_vm + 2 * self.P] = 0.5 * self.gamma
        return c_reg, (self.c_model - c_reg) / self.C

    def solve_path(self, C_values, gammas=None):
        """Solve the model for several C (and gamma), each warm-started from the last.

        Only the objective changes between the solves (the regularisation
        weights and the slack weight), so every optimal basis stays feasible
        and primal simplex restarts from it. Unless ``solver="primal"``, the
        model takes its LP dual instead and dual simplex restarts from the last
        basis: for the plain model C bounds the dual's columns, for LUPI (without
        a probe slot) the costs are the dual's row bounds.

        Parameters
        ----------
        C_values : sequence of float
        gammas : sequence of float or None
            Weight of the correcting functions' L1 norm for each solve (LUPI
            only; default: the ``gamma`` of this LP).

        Returns
        -------
        list of ndarray
            Solution vectors, in the order of ``C_values``.
        """
        api = _highs_api()
        if api is not None and not self.lupi and self.solver != "primal":
            # the plain model's path over C on its (d + K)-row dual: C is a box there
            path = _dual_path.DualPath(self, api).model_path(C_values)
            if path is not None:
                return [self._point(w, b) for w, b in path]
        c_reg, c_loss = self.cost_parts()
        c_w = np.zeros(self.n_vars)
        c_w[self.o_wp:self.o_wm + self.D] = 0.5
        c_v = c_reg - c_w  # 0.5 * self.gamma on the correcting functions' weights
        if gammas is None:
            gammas = [self.gamma] * len(C_values)
        costs = [c_w + (g / self.gamma) * c_v + C * c_loss for C, g in zip(C_values, gammas)]
        rows = slice(0, self.r_budget)
        A, b = self.A[rows], self.b[rows]
        if api is None:  # pragma: no cover - old scipy without HiGHS classes
            return [solve_lp(c, A, b, self.bounds, what="ordinal regression LP").x
                    for c in costs]
        if self.lupi and not self.probe and self.solver != "primal":
            # the LUPI model's path on its LP dual: the costs are its row bounds
            # (_lupi_dual.model_path)
            path = _lupi_dual.model_path(self, api, costs)
            return [x if x is not None else solve_lp(
                        c, A, b, self.bounds, what=f"ordinal regression LP (C={C})").x
                    for x, c, C in zip(path, costs, C_values)]
        warm = _WarmHighs(self, api)
        warm.h.changeRowBounds(int(self.r_budget), -np.inf, np.inf)
        out = []
        for C, c in zip(C_values, costs):
            warm.h.changeColsCost(warm.idx.size, warm.idx, c)
            answer = warm.run_checked(A, b, c, self.bounds, rows)
            if answer is not None:
                out.append(answer[0])
                continue
            # not solved, or a warm start's wrong answer (see _WarmHighs.solve): from
            # scratch, which raises a LinearProgramError if it really fails
            out.append(solve_lp(c, A, b, self.bounds, what=f"ordinal regression LP (C={C})").x)
        return out

    def _point(self, w, b):
        """The plain LP's solution vector for weights ``w`` and thresholds ``b``."""
        x = np.zeros(self.n_vars)
        x[self.o_wp:self.o_wp + self.d] = np.maximum(w[: self.d], 0.0)
        x[self.o_wm:self.o_wm + self.d] = np.maximum(-w[: self.d], 0.0)
        x[self.o_b:self.o_b + self.K] = b
        f = self.X @ w[: self.d]
        x[self.o_s:self.o_s + self.R] = np.maximum(
            1.0 + self.row_sign * (f[self.row_i] - b[self.row_k]), 0.0)
        return x

    def split(self, x):
        """Named parts of a solution vector."""
        K = self.K
        out = {
            "w": x[self.o_wp:self.o_wp + self.d] - x[self.o_wm:self.o_wm + self.d],
            "b": x[self.o_b:self.o_b + K].copy(),
        }
        if self.lupi:
            P, p = self.P, self.p
            vp = x[self.o_vp:self.o_vp + 2 * P].reshape(2, P)[:, :p]
            vm = x[self.o_vm:self.o_vm + 2 * P].reshape(2, P)[:, :p]
            out["v"] = (vp - vm).T  # (p, 2)
            out["e"] = x[self.o_e:self.o_e + 2].copy()
        else:
            out["s"] = x[self.o_s:self.o_s + self.R].copy()
        return out

    # ----------------------------------------------------- relevance problems
    def relevance_objectives(self, kind, j):
        """Objective vectors whose LP values give a relevance bound.

        Returns a list of ``(c, sign)``: the bound is ``sign * min c.x``
        (aggregated by max over the list for upper bounds).
        """
        c_list = []
        n = self.n_vars
        if kind in ("min", "max"):
            cp, cm = self.o_wp + j, self.o_wm + j
            if kind == "min":
                c = np.zeros(n)
                c[cp] = c[cm] = 1.0
                c_list.append((c, 1.0))
            else:
                for s in (1.0, -1.0):
                    c = np.zeros(n)
                    c[cp], c[cm] = -s, s
                    c_list.append((c, -1.0))
        else:  # privileged feature j: relevance |v_0j| + |v_1j|
            P = self.P
            cols_p = [self.o_vp + g * P + j for g in (0, 1)]
            cols_m = [self.o_vm + g * P + j for g in (0, 1)]
            if kind == "pmin":
                c = np.zeros(n)
                c[cols_p + cols_m] = 1.0
                c_list.append((c, 1.0))
            else:
                for s0 in (1.0, -1.0):
                    for s1 in (1.0, -1.0):
                        c = np.zeros(n)
                        c[cols_p[0]], c[cols_m[0]] = -s0, s0
                        c[cols_p[1]], c[cols_m[1]] = -s1, s1
                        c_list.append((c, -1.0))
        return c_list

    def run_tasks(self, tasks, budget, progress=None):
        """Solve a list of relevance tasks; return their values in order.

        A task is ``(kind, j, probe_values, zero_feature)``: ``kind`` in
        ``{"min", "max", "pmin", "pmax"}``, ``j`` the column, ``probe_values``
        the values loaded into the probe slot (or None), ``zero_feature`` a
        feature removed from the model for a replacing probe (or None).

        All upper bounds are solved before the lower bounds. A regular
        lower bound then needs no LP: the two upper-bound LPs give
        ``hi = max w_j`` and ``-lo = max -w_j``, and on the convex feasible
        set ``min |w_j|`` is ``lo`` if ``lo > 0``, ``-hi`` if ``hi < 0`` and
        0 otherwise (the parametric dual search may stop the second of the two
        once it certifies a value in ``[0, first)``: both bounds are then
        already decided). Every solution is kept: a privileged lower bound is 0
        without solving when a kept solution of the same feasible set already
        has that weight at 0 (an exact certificate; the optimal model is the
        first such solution). Infeasible probe LPs give ``nan``.
        """
        warm = self._warm_solver()
        if not self._points:
            self._points.append(self.solve_model().x)
        order = sorted(range(len(tasks)), key=lambda i: (
            tasks[i][2] is not None, tasks[i][0] in ("min", "pmin")))
        out = [None] * len(tasks)
        for i in order:
            out[i] = self._run_task(tasks[i], budget, warm)
            if progress is not None:
                progress.update(1)
        return out

    def _weight(self, x, kind, j):
        if kind in ("min", "max"):
            return abs(x[self.o_wp + j] - x[self.o_wm + j])
        P = self.P
        return sum(abs(x[self.o_vp + g * P + j] - x[self.o_vm + g * P + j]) for g in (0, 1))

    def _run_task(self, task, budget, warm):
        kind, j, values, zero_feature = task
        privileged = kind in ("pmin", "pmax")
        is_min = kind in ("min", "pmin")
        key = (j, None if values is None else id(values), zero_feature)
        if kind == "min" and key in self._signed:
            # w_j ranges over [lo, hi] on the convex feasible set, and the two maxrel
            # LPs gave hi = max w_j and -lo = max -w_j: min |w_j| follows exactly
            hi, neg_lo = self._signed[key]
            return max(0.0, -min(hi, neg_lo))
        if values is None and is_min:
            if any(self._weight(x, kind, j) <= 1e-12 for x in self._points):
                return 0.0
        if values is not None and is_min and zero_feature is None:
            return 0.0  # appended probe: the optimal model (probe weight 0) is feasible
        if kind == "max" and zero_feature is None:
            dual = self._dual_solver()
            if dual is not None and dual.model is not None:  # else its model failed its check
                if values is None:
                    dual.probe_off()
                else:
                    dual.load_probe(values)
                # the larger signed maximum is max |w_j|; the other one matters only
                # if it is negative (then min |w_j| = -it > 0). So the likelier
                # larger sign goes first (the optimal model's, or for a weight of 0
                # the side where the loss rises least), and the other search may
                # stop once it certifies a value in [0, first): then min |w_j| = 0.
                # That value (a feasible one) is kept in place of its maximum.
                w0 = 0.0 if values is not None else dual.model[1][j]
                first = dual.cheaper_sign(j) if abs(w0) <= 1e-12 else float(np.sign(w0))
                v1 = dual.max_signed(j, first, budget)
                v2 = None if v1 is None else dual.max_signed(j, -first, budget, beat=v1)
                signed = [None, None] if v2 is None else [v1, v2][:: int(first)]
                if None not in signed:  # else: the primal LP below settles it
                    self._signed[key] = tuple(signed)
                    return max(max(signed), 0.0)
        if values is not None:
            self.set_probe(values, privileged=privileged)
            self._set_probe_bounds(regular=not privileged, privileged=privileged)
        else:
            self._set_probe_bounds(regular=False, privileged=False)
        bounds = self.bounds
        if zero_feature is not None:
            bounds = bounds.copy()
            which, k = zero_feature
            if which == "regular":
                bounds[[self.o_wp + k, self.o_wm + k], 1] = 0.0
            else:
                for g in (0, 1):
                    bounds[[self.o_vp + g * self.P + k, self.o_vm + g * self.P + k], 1] = 0.0
        objectives = self.relevance_objectives(kind, j)
        order = list(range(len(objectives)))
        cert = None
        if kind in ("max", "pmax") and zero_feature is None and warm is not None:
            cert = self._certifier()
        if cert is not None:
            # LUPI: the cheapest direction first; every other objective is solved only
            # if a single solve of the tilted model's dual cannot rule it out
            cert.sync_probe(values, privileged)
            order.sort(key=lambda i: cert.cost_of_direction(objectives[i][0]))
        best, tau = None, None
        signed = [None] * len(objectives)
        for i in order:
            c, sign = objectives[i]
            if cert is not None and best is not None and tau is not None:
                upper, point = cert.bound(c, tau, budget)
                # regular features read minrel off both signs: a skipped sign must also
                # be shown >= 0 by a feasible point (the optimal model, a maximiser)
                # (an appended probe's weight is 0 in the optimal model)
                lows = [-c @ x for x in self._points] if values is None else [0.0]
                if point is not None and point[0] <= budget:
                    lows.append(point[1])
                low = max(lows) if lows else -np.inf
                if upper < best - 1e-9 * max(1.0, abs(best)) and (kind == "pmax" or low >= 0):
                    signed[i] = max(low, 0.0) if kind == "max" else low
                    continue
            try:
                if warm is not None:
                    fun, x = warm.solve(c, bounds, budget, probe=values,
                                        privileged=privileged, what=f"relevance LP ({kind}, {j})")
                else:
                    b = self.b.copy()
                    b[self.r_budget] = budget
                    res = solve_lp(c, self.A, b, bounds, what=f"relevance LP ({kind}, {j})")
                    fun, x = res.fun, res.x
            except LinearProgramError as exc:
                if values is not None and exc.status == 2:
                    return np.nan
                raise
            if values is None:
                self._points.append(x)
            val = sign * fun
            signed[i] = val
            best = val if best is None else max(best, val)
            if cert is not None and tau is None and warm.budget_dual < -1e-12:
                tau = -1.0 / warm.budget_dual  # where this LP's frontier has its slope
        if kind == "max":
            self._signed[key] = tuple(signed)
        return max(best, 0.0)

    def _warm_solver(self):
        if self._highs is None:
            api = _highs_api()
            self._highs = _WarmHighs(self, api) if api is not None else False
        return self._highs or None

    def _wants_dual(self):
        """Whether upper bounds take the parametric dual search (plain, many margin rows)."""
        if self._use_dual is None:
            wanted = self.solver == "dual" or (
                self.solver == "auto" and not self.lupi
                and self.R >= _dual_path.MIN_MARGIN_ROWS)
            self._use_dual = wanted and _highs_api() is not None
        return self._use_dual

    def _certifier(self):
        """The ``LupiCertifier`` of a LUPI LP with a probe slot (``solver="auto"``), or None."""
        if self._cert is None:
            api = _highs_api()
            wanted = self.lupi and self.probe and self.solver == "auto" and api is not None
            self._cert = _lupi_dual.LupiCertifier(self, api) if wanted else False
        return self._cert or None

    def _dual_solver(self):
        """The ``DualPath`` (parametric dual search) of this LP, or None."""
        if self._dual is None:
            self._dual = _dual_path.DualPath(self, _highs_api()) if self._wants_dual() else False
        return self._dual or None

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_highs"] = None  # HiGHS objects are rebuilt in each process
        state["_dual"] = None
        state["_cert"] = None
        state["_use_dual"] = self._wants_dual()  # decided once, in the parent
        state["_signed"] = {}  # keyed by object ids, which do not survive pickling
        return state

    def solve_relevance(self, kind, j, budget, *, zero_feature=None):
        """Solve one relevance bound (min or max of ``abs(w_j)``, or of a privileged feature).

        Parameters
        ----------
        kind : {"min", "max", "pmin", "pmax"}
        j : int
            Column (the probe slot is ``D - 1`` / ``P - 1``).
        budget : float
            Right-hand side of the budget row.
        zero_feature : tuple or None
            ``("regular"|"privileged", index)`` of a feature removed from the
            model (bounds fixed at zero), for probes that replace a column.
        """
        b = self.b.copy()
        b[self.r_budget] = budget
        bounds = self.bounds
        if zero_feature is not None:
            bounds = bounds.copy()
            which, k = zero_feature
            if which == "regular":
                bounds[[self.o_wp + k, self.o_wm + k], 1] = 0.0
            else:
                for g in (0, 1):
                    bounds[[self.o_vp + g * self.P + k, self.o_vm + g * self.P + k], 1] = 0.0
        best = None
        for c, sign in self.relevance_objectives(kind, j):
            res = solve_lp(c, self.A, b, bounds, what=f"relevance LP ({kind}, feature {j})")
            val = sign * res.fun
            if kind in ("min", "pmin"):
                return max(val, 0.0)
            best = val if best is None else max(best, val)
        return max(best, 0.0)


class _WarmHighs:
    """One persistent HiGHS model; successive LPs change costs, bounds, probe
    coefficients and the budget, and restart primal simplex from the last basis."""

    def __init__(self, lp, api):
        Highs, _, _, ModelStatus = api
        self.lp = lp
        self.status_optimal = ModelStatus.kOptimal
        self.status_infeasible = ModelStatus.kInfeasible
        self.status_unbounded = ModelStatus.kUnbounded
        A = lp.A
        m, n = A.shape
        rhs = lp.b.copy()
        rhs[lp.r_budget] = 0.0
        model = _highs_lp(api, A, np.zeros(n), lp.bounds[:, 0], lp.bounds[:, 1],
                          np.full(m, -np.inf), rhs)
        h = _new_highs(Highs)
        h.setOptionValue("simplex_strategy", 4)  # primal simplex: costs change, basis stays feasible
        if _well_scaled(A):
            # e.g. standardised features next to unit slacks: HiGHS' scaling then only
            # lengthens the pivot path
            h.setOptionValue("simplex_scale_strategy", 0)
        h.passModel(model)
        self.h = h
        self.idx = np.arange(n, dtype=np.int32)
        self.bounds = lp.bounds.copy()
        self.budget = None
        self.probe_key = None

    def _load_probe(self, privileged):
        lp = self.lp
        if privileged:
            cols = [lp.o_vp + g * lp.P + lp.P - 1 for g in (0, 1)]
            cols += [lp.o_vm + g * lp.P + lp.P - 1 for g in (0, 1)]
        else:
            cols = [lp.o_wp + lp.D - 1, lp.o_wm + lp.D - 1]
        for col in cols:
            sl = lp._col_slice(col)
            for r, v in zip(lp.A.indices[sl], lp.A.data[sl]):
                self.h.changeCoeff(int(r), int(col), float(v))

    def run_checked(self, A, b, c, bounds, rows=slice(None)):
        """Run HiGHS from its current basis; return ``(x, y)`` if it reports an
        optimum that passes :func:`_optimal` for ``min c.x, A x <= b`` (``rows``:
        HiGHS' rows that ``A`` holds), else None."""
        self.h.run()
        if self.h.getModelStatus() != self.status_optimal:
            return None
        sol = self.h.getSolution()
        x, y = np.asarray(sol.col_value), np.asarray(sol.row_dual)
        return (x, y) if _optimal(A, b, c, bounds, x, y[rows]) else None

    def solve(self, c, bounds, budget, *, probe=None, privileged=False, what="LP"):
        lp = self.lp
        if budget != self.budget:
            self.h.changeRowBounds(int(lp.r_budget), -np.inf, float(budget))
            self.budget = budget
            # the optimal model is a vertex feasible for every relevance LP
            # (and for every appended probe): restart each solve from its basis
            self.h.changeColsCost(self.idx.size, self.idx, lp.c_model)
            self.h.run()
            self.base_basis = self.h.getBasis()
        if probe is not None and self.probe_key is not probe:
            self._load_probe(privileged)
            self.probe_key = probe
        changed = np.flatnonzero((bounds != self.bounds).any(axis=1))
        if changed.size:
            self.h.changeColsBounds(changed.size, changed.astype(np.int32),
                                    bounds[changed, 0], bounds[changed, 1])
            self.bounds = bounds.copy()
        self.h.changeColsCost(self.idx.size, self.idx, c)
        self.h.setBasis(self.base_basis)
        b = lp.b.copy()
        b[lp.r_budget] = budget
        answer = self.run_checked(lp.A, b, c, bounds)
        if answer is not None:
            x, y = answer
            # the budget row's multiplier: -1/tau at the frontier's point of this LP
            self.budget_dual = y[lp.r_budget]
            return float(c @ x), x
        # a restart from a basis that the new bounds make infeasible can end in an
        # undecided status, and HiGHS' warm starts have known faults that call a
        # wrong answer optimal (HiGHS issues 3194 and 3294; _optimal checks it):
        # settle it with a cold solve, which raises a LinearProgramError naming the
        # problem if it really fails
        res = solve_lp(c, lp.A, b, bounds, what=what)
        self.budget_dual = 0.0  # unknown here: no certificates from this LP
        return res.fun, res.x
