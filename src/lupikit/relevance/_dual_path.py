r"""Upper relevance bounds of the plain ordinal model by a parametric search over its dual.

For a linear objective :math:`t(x) = s\,w_j` (a feature's or probe's signed
weight) the relevance LP is :math:`\max t(x)` subject to the margin
constraints and the budget :math:`f(x) \le B`, where :math:`f` is the model's
objective. Its Lagrangian dual is a one-dimensional problem,

.. math::

    \max_{f(x)\le B} t(x) \;=\; \min_{\tau > 0}\; \frac{B + F(\tau)}{\tau},
    \qquad F(\tau) = \max_x\, \tau\, t(x) - f(x),

and :math:`F(\tau)` is the ordinal SVM with its L1 penalty tilted along
:math:`w_j`. Its own LP dual has one row per weight and threshold
(:math:`d + K` rows), one box-bounded column per margin row and one column per
order row:

.. math::

    F(\tau) = -\max_{0 \le u \le C,\ v \ge 0} \Big\{ \mathbf 1^\top u \;:\;
    |\tau s\,e_j - M_w^\top u| \le \tfrac12,\; M_b^\top u + O^\top v = 0 \Big\},

where :math:`O` holds the order rows :math:`b_k - b_{k+1} \le 0` of the
explicit form (none for the implicit form), and whose row duals are the
maximiser :math:`(w, b)`. A change of :math:`\tau`
moves the bounds of the single row :math:`j`, so HiGHS' dual simplex restarts
from the last basis. Every maximiser is a feasible point :math:`(f, t)`; two
of them with :math:`f_1 \le B < f_2` bracket the answer, and the chord
between them has slope :math:`1/\tau`. If the maximiser at that
:math:`\tau` lies on or below the chord, no feasible point lies above it and
the answer is the chord's value at :math:`f = B`, which the convex
combination of the two points attains: an exact LP optimum with a primal and
a dual certificate. Otherwise the new point replaces the bracket end on its
side of :math:`B`.

Each evaluation costs a few pivots on a basis of size :math:`d + K` instead
of the :math:`R`-row basis of the primal. Every bound restarts from the
optimal model's basis, and its bracketing starts from the last bound's
:math:`\tau` (neighbouring bounds have similar multipliers; a column's
second sign at ``SECOND_SIGN_START`` times its first sign's), and moves
towards a maximiser ``BRACKET_MARGIN`` beyond the budget as the frontier's
elasticity predicts, in steps of at most ``BRACKET_STEP``, squared each
time, which keeps each evaluation short.
Of a column's two signs only the larger maximum is needed unless the smaller
one is negative, so the second search may stop at the first certificate that
its maximum lies in ``[0, first)`` (see :meth:`DualPath.max_signed`); for a
column whose weight is 0 in the optimal model :meth:`DualPath.cheaper_sign`
picks the side to solve first. The evaluations' small basis pays for their
number only once the primal's basis of :math:`R` margin rows is large: hence
the switch at ``MIN_MARGIN_ROWS`` (the book's chapter on Part III reports how
the two routes compare). A search that
does not close within ``max_evaluations``, or finds no maximiser beyond the
budget because the frontier ends in a ray (a constant column is free up to
the budget), returns None, and the caller solves the primal LP instead.
"""

from collections import Counter

import numpy as np
import scipy.sparse as sp

from ._highs import ROUNDING, _dual_simplex, _highs_lp

__all__ = ["DualPath"]

#: Use the dual path for plain models with at least this many margin rows.
MIN_MARGIN_ROWS = 200
#: From this many weights on, HiGHS holds only the weight rows a solve needs (rows
#: the answer violates are added, see DualPath._solve); below, every row.
ROW_GENERATION_MIN_WEIGHTS = 100
#: Row generation also adds the rows whose activity lies within this of their box.
ROW_MARGIN = 0.05
#: Largest first factor by which the bracketing moves tau away from its start; squared
#: after every step. Small, because neighbouring bounds have similar multipliers.
BRACKET_STEP = 1.1
#: A column's second sign starts its search at this fraction of its first sign's
#: final multiplier.
SECOND_SIGN_START = 0.9
#: The bracketing aims its second multiplier at a maximiser this far (relative) beyond
#: the budget, read off the frontier's elasticity (see DualPath._bracket_factor).
BRACKET_MARGIN = 0.003
#: Screening (DualPath.screen_signed) starts its search at this fraction of the exact
#: searches' multiplier, then adapts the start: times SCREEN_SHRINK after a stop at the
#: first evaluation, to the stopping multiplier (at most SCREEN_GROW times higher) after
#: a later one.
SCREEN_START = 0.6
SCREEN_SHRINK = 0.97
SCREEN_GROW = 1.3


class DualPath:
    """Parametric dual search for the upper relevance bounds of a plain :class:`OrdinalLP`.

    Parameters
    ----------
    lp : OrdinalLayout
        A plain (not LUPI) model; its probe slot, if any, is the last weight row.
    api : tuple
        HiGHS' classes, as returned by ``_highs_api``.
    max_evaluations : int
        Budget of dual solves per bound before giving up (returns None).
    fallbacks : collections.Counter or None
        Where a solve repeated from scratch at tight tolerances counts
        (``"tight_retry"``; see ``lupikit.relevance._engine.FALLBACKS``).

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.datasets import make_ordinal_relevance
    >>> from lupikit.relevance import OrdinalLP
    >>> from lupikit.relevance._dual_path import DualPath
    >>> from lupikit.relevance._highs import _highs_api
    >>> X, y, _ = make_ordinal_relevance(n_samples=60, random_state=0)
    >>> lp = OrdinalLP(X, y, np.unique(y).size, 1.0)
    >>> budget = 1.1 * lp.solve_model().fun
    >>> dual = DualPath(lp, _highs_api())
    >>> maxrel = max(dual.max_signed(0, s, budget) for s in (1.0, -1.0))
    >>> bool(abs(maxrel - lp.solve_relevance("max", 0, budget)) < 1e-7)
    True
    """

    def __init__(self, lp, api, max_evaluations=60, fallbacks=None):

        ModelStatus = api[3]
        if lp.lupi:  # pragma: no cover - guarded by the caller
            raise ValueError("the dual path covers the plain model only")
        self.lp = lp
        self.max_evaluations = max_evaluations
        self.fallbacks = Counter() if fallbacks is None else fallbacks
        self.optimal = ModelStatus.kOptimal
        self.basic = None  # HiGHS' "basic" status, read off the first basis
        D, K, R = lp.D, lp.K, lp.R
        self.D, self.K, self.R = D, K, R
        Xp = np.zeros((lp.n, D))
        Xp[:, : lp.d] = lp.X
        self.XR = Xp[lp.row_i]  # regular features (and the probe slot) per margin row
        self.sign, self.k = lp.row_sign, lp.row_k
        self.margin_rhs = lp.b[:R].copy()  # -1 for every margin row of the ordinal model
        Mw = self.sign[:, None] * self.XR
        Mb = sp.csr_array((-self.sign, (np.arange(R), self.k)), shape=(R, K))
        AT = sp.hstack([sp.csr_array(Mw), Mb]).T  # (D + K) x R: one column per margin row
        # explicit form: one more column per order row b_k - b_{k+1} <= 0 (multiplier
        # >= 0, no box: the order rows have no slack)
        n_order = lp.n_order
        kk = np.arange(n_order)
        order = sp.csr_array((np.r_[np.ones(n_order), -np.ones(n_order)],
                              (np.r_[D + kk, D + kk + 1], np.r_[kk, kk])),
                             shape=(D + K, n_order))
        AT = sp.hstack([AT, order]).tocsr()
        AT.sort_indices()
        self.AT = AT  # every row, for rows added to HiGHS' model (see _add_rows)
        self.M = AT.toarray()  # dense copy for checking HiGHS' answers (see _certifies)
        self.absM = np.abs(self.M)  # (the rounding allowance of those checks)
        n_cols = R + n_order
        self.C = lp.C
        self.lo = np.r_[np.full(D, -0.5), np.zeros(K)]
        self.hi = np.r_[np.full(D, 0.5), np.zeros(K)]
        if lp.probe:  # the probe slot is off: its weight is fixed at 0, its row free
            self.lo[D - 1], self.hi[D - 1] = -np.inf, np.inf
        # few weights: HiGHS holds every row, in their order (the rounds of adding rows
        # would cost more than the smaller model saves); many: the K threshold rows
        # first, then only the weight rows that a solve needs (see _solve)
        self.generate_rows = D > ROW_GENERATION_MIN_WEIGHTS
        held = range(D, D + K) if self.generate_rows else range(D + K)
        self.rows = list(held)
        self.pos = np.full(D + K, -1)
        self.pos[self.rows] = np.arange(len(self.rows))
        model = _highs_lp(api, AT[self.rows].tocsc(), np.r_[self.margin_rhs, np.zeros(n_order)],
                          np.zeros(n_cols), np.r_[np.full(R, self.C), np.full(n_order, np.inf)],
                          self.lo[self.rows].copy(), self.hi[self.rows].copy())
        h = _dual_simplex(api, model, AT.tocsc())  # only row bounds change between solves
        self.h = h
        self.base_basis = None
        self._keep = None  # the rows of the optimal model (set when it is solved)
        if self.generate_rows and lp.probe:
            self._add_rows([D - 1])  # the probe slot's row, loaded by load_probe
        self.probe_key = None
        self._tight = False  # HiGHS at tighter tolerances (see _solve)
        self._tolerances = None  # the ones before
        self.stopped_at = None  # multiplier of the last search's stop below beat
        self.tau_hint = {1.0: None, -1.0: None}
        self._active = None  # margin columns of a fold's samples (see model_path)
        self._sol = self._u_value = None  # the last solve's solution (see _u)
        self._fold_start = None  # (first C, basis, rows) every fold's path starts from
        self.h_ok = self.h.setOptionValue("output_flag", False)  # HiGHS' status "ok"
        self._elasticity = 0.25  # d ln f / d ln tau of the frontier (see _bracket_factor)
        # (column, probe, tau) of the last search that closed exactly
        self.last_exact = None
        self.screen_tau = {1.0: None, -1.0: None}  # see screen_signed
        self._model = None

    # --------------------------------------------------------- rows in HiGHS
    def _add_rows(self, rows):
        """Add weight rows (logical indices) to HiGHS' model, with their current bounds;
        in the saved basis of the optimal model their slacks are basic."""
        rows = [int(r) for r in rows if self.pos[r] < 0]
        if not rows:
            return
        probe_row = self.D - 1 if self.lp.probe else -1
        # the probe slot's coefficients are the loaded probe's (kept in M, not in AT)
        block = sp.csr_array(self.M[rows]) if probe_row in rows else self.AT[rows]
        self.h.addRows(len(rows), self.lo[rows], self.hi[rows], block.nnz,
                       block.indptr[:-1].astype(np.int32), block.indices.astype(np.int32),
                       block.data)
        for r in rows:
            self.pos[r] = len(self.rows)
            self.rows.append(r)
        if self.base_basis is not None:
            status = list(self.base_basis.row_status)
            status += [self.basic] * len(rows)
            self.base_basis.row_status = status

    def _delete_rows(self, rows):
        """Remove weight rows ``rows`` (logical indices) from HiGHS' model and from the
        saved basis, in one call."""
        gone = set(int(r) for r in rows)
        at = np.array(sorted(int(self.pos[r]) for r in gone), dtype=np.int32)
        self.h.deleteRows(at.size, at)
        if self.base_basis is not None:
            status = list(self.base_basis.row_status)
            self.base_basis.row_status = [st for i, st in enumerate(status)
                                          if self.rows[i] not in gone]
        self.rows = [q for q in self.rows if q not in gone]
        self.pos[list(gone)] = -1
        self.pos[self.rows] = np.arange(len(self.rows))

    def _release_row(self, r, added):
        """After a search on row ``r``: its bounds back, and HiGHS' model back to the
        rows it held before the search (those of the optimal model and the probe)."""
        self._set_row_bounds(r, self.lo[r], self.hi[r])
        if self._keep is None:
            return
        extra = [q for q in self.rows if q not in self._keep]
        if extra:
            self._delete_rows(extra)

    def _set_row_bounds(self, r, lo, hi):
        self.h.changeRowBounds(int(self.pos[r]), float(lo), float(hi))

    def _weights(self, row_dual):
        """``(w, b)`` from HiGHS' row duals: weights of rows not in the model are 0."""
        w = np.zeros(self.D)
        at = self.pos[: self.D]
        w[at >= 0] = row_dual[at[at >= 0]]
        return w, row_dual[self.pos[self.D:]]

    @property
    def model(self):
        """``(f, w)`` of the optimal model (tau = 0, no probe), solved on first use."""
        return self._solve_model()

    def _solve_model(self):
        # not in __init__: the path over C (model_path) does not need it
        if self._model is None:
            h = self.h
            out = self._solve(None, 0.0, self.C, check=True)
            if out is None:  # pragma: no cover - the model LP is solvable
                return None
            f, w, b = out
            self._model = (f, w)
            # its thresholds, and the LP dual's value (HiGHS minimises -sum(u) here)
            self.model_thresholds = b
            self.model_dual_value = -h.getInfo().objective_function_value
            # its margin multipliers (of the checked solve): the hinge loss's gradient in
            # w is M_w^T u (see cheaper_sign)
            self.base_u = self._u[: self.R].copy()
            # every bound restarts from the optimal model's basis: the previous bound's
            # final basis pushes another feature and lies further away
            self.base_basis = h.getBasis()
            # keep only the rows the optimum needs (active ones, and the probe's): the
            # cutting planes of the first solve add rows in batches, and every row in
            # HiGHS' model makes each pivot dearer
            if self.generate_rows:
                act = self.M[: self.D] @ self._u
                slack = np.minimum(act - self.lo[: self.D], self.hi[: self.D] - act)
                probe_row = self.D - 1 if self.lp.probe else -1
                slack_rows = [q for q in self.rows
                              if q < self.D and q != probe_row and slack[q] > 1e-9]
                if slack_rows:
                    self._delete_rows(slack_rows)
            self._keep = set(self.rows)
        return self._model

    def _evaluate(self, j=None, shift=0.0, check=False):
        """Solve the dual with row ``j``'s bounds moved by ``shift`` (the tilt
        ``s * tau``); return the maximiser's ``(f, w)``, or None (see ``_solve``)."""
        out = self._solve(j, shift, self.C, check)
        return None if out is None else out[:2]

    def _solve(self, j, shift, C, check=True):
        """Solve the dual (margin box ``C``, row ``j`` moved by ``shift``); return the
        maximiser's ``(f, w, b)``, or None.

        HiGHS holds only some of the weight rows (a relaxation of the dual): after
        each solve the activities of all rows are computed, and rows that the
        answer violates are added and the solve continues from its basis, until
        no row is violated. The answer is then optimal for the whole dual, and a
        weight whose row is not in the model is 0 at the maximiser.

        A maximiser ``(w, b)`` (with its hinge slacks) is a feasible point by
        construction, so a search may use it unchecked. Where an answer is
        concluded from a solve, the solve is checked rather than taken on trust
        (``check=True`` here, or :meth:`_confirm` afterwards): HiGHS' column
        values ``u`` must be a feasible point of the tilted dual whose value
        matches, which certifies ``F(tau)`` from both sides. HiGHS' warm starts
        have known faults that report a non-optimal basis as optimal (HiGHS
        issues 3194 and 3294), and its feasibility tolerance (1e-7) is looser
        than the check's (1e-8); a solve that fails the check is repeated from
        scratch once, to tolerances of 1e-10, and None is returned if that
        fails too.
        """
        tol = 1e-9 * max(1.0, abs(shift))
        try:
            return self._solve_checked(j, shift, C, check, tol)
        finally:
            if self._tight:  # back to HiGHS' default tolerances
                self._set_tolerances(None)

    def _solve_checked(self, j, shift, C, check, tol):
        """The body of :meth:`_solve` (row tolerance ``tol``)."""
        for _ in range(2):
            while True:
                self.h.run()
                if self.h.getModelStatus() != self.optimal:
                    return None
                if self.basic is None:
                    self.basic = self.h.getBasis().col_status[0].__class__.kBasic
                sol = self.h.getSolution()  # once: u and the row duals of one answer
                self._sol, self._u_value = sol, None  # u: read when needed (see _u)
                if not self.generate_rows:  # HiGHS holds every row
                    break
                act = self.M @ self._u
                if j is not None:
                    act[j] -= shift
                viol = np.maximum(self.lo - act, act - self.hi)
                viol[self.pos >= 0] = -np.inf  # HiGHS keeps those rows
                if not viol.max() > tol:
                    break
                # the most violated rows first, a bounded number per round, with the
                # rows within ROW_MARGIN of their box (the next solve tends to reach them)
                order = np.argsort(-viol)
                n_add = int(np.sum(viol > tol - ROW_MARGIN))
                self._add_rows(order[: min(n_add, max(16, self.D // 10))])
            w, b = self._weights(np.asarray(sol.row_dual))
            hinge = np.maximum(-self.margin_rhs + self.sign * (self.XR @ w - b[self.k]), 0.0)
            if self._active is not None:  # a fold (see model_path): its samples' slacks
                hinge = hinge[self._active]
            f = 0.5 * np.abs(w).sum() + C * hinge.sum()
            if not check or self._certifies(j, shift, f, w, C, self._u):
                return f, w, b
            # once more from scratch (no basis to restart from), to tolerances tighter
            # than the check's: HiGHS' own (1e-7) can leave a row 1e-7 outside its box
            if self._tight:
                break
            self.fallbacks["tight_retry"] += 1
            self.h.clearSolver()
            self._set_tolerances(1e-10)
        return None

    @property
    def _u(self):
        """HiGHS' column values u of the last solve (converted on first use: most
        evaluations of a search need only the maximiser, its row duals)."""
        if self._u_value is None:
            self._u_value = np.asarray(self._sol.col_value)
        return self._u_value

    def _set_tolerances(self, value):
        """HiGHS' primal and dual feasibility tolerances: ``value``, or back to the ones
        they had before (None)."""
        names = ("primal_feasibility_tolerance", "dual_feasibility_tolerance")
        if value is not None and not self._tight:
            self._tolerances = [self.h.getOptionValue(name)[1] for name in names]
        for name, before in zip(names, self._tolerances if value is None else [value] * 2):
            self.h.setOptionValue(name, before)
        self._tight = value is not None

    def _confirm(self, j, shift, point):
        """Check the solve that gave ``point`` (still held by HiGHS); if it fails,
        solve again from scratch, checked. Returns the ``(f, w)`` to conclude from
        (``point`` itself if it passed) or None."""
        if self._certifies(j, shift, point[0], point[1], self.C, self._u):
            return point
        self.h.clearSolver()
        return self._evaluate(j, shift, check=True)

    def _certifies(self, j, shift, f, w, C, u):
        """Whether HiGHS' column values ``u`` (of the solve that gave ``f, w``) are
        feasible for the dual (box ``C``; 0 for a fold's held-out samples)
        tilted by ``shift`` on row ``j``, with a value ``h.u`` (an upper bound
        on ``F``) that meets the maximiser's ``shift * w_j - f`` to 1e-8 (each
        comparison also allows the rounding of its sum, ``ROUNDING`` times its
        absolute terms: with features on a scale of 1e3 and a large C a row's
        activity adds up terms of 1e6)."""
        R = self.R
        lower = (shift * w[j] if j is not None else 0.0) - f
        act = self.M @ u  # row activities, against the untilted bounds
        if j is not None:
            act[j] -= shift
        tol = 1e-8 * max(1.0, abs(shift))
        # a fold's held-out samples (see model_path) have the box [0, 0]
        box = C if self._active is None else np.where(self._active, C, 0.0)
        if u.min() < -tol or np.any(u[:R] > box + tol):
            return False
        excess = np.maximum(self.lo - act, act - self.hi) - tol
        # (the rounding allowances are computed only where a comparison fails without them)
        if np.any(excess > 0) and np.any(excess > ROUNDING * (self.absM @ np.abs(u))):
            return False
        gap = self.margin_rhs @ u[:R] - lower - 1e-8 * max(1.0, abs(f))
        return bool(gap <= 0 or gap <= ROUNDING * (
            np.abs(self.margin_rhs) @ u[:R] + abs(f) + abs(lower + f)))

    def load_probe(self, values):
        """Put ``values`` (length n) into the probe slot and switch it on."""
        self._solve_model()  # the optimal model is solved with the probe slot off
        D = self.D
        col = values[self.lp.row_i]
        self.XR[:, D - 1] = col
        row = D - 1
        self.M[row, : self.R] = self.sign * col
        self.absM[row, : self.R] = np.abs(col)
        hrow = int(self.pos[row])
        self.lo[row], self.hi[row] = -0.5, 0.5
        if self.base_basis.row_status[hrow] == self.basic:
            # the row anew, in two calls (its slack stays basic in the saved basis, at
            # the end of HiGHS' rows): much cheaper than one changeCoeff per entry
            self._delete_rows([row])
            self._add_rows([row])
        else:  # pragma: no cover - the free row of the switched-off slot is basic
            for r, v in enumerate(self.M[row, : self.R]):
                self.h.changeCoeff(hrow, r, float(v))
            self._set_row_bounds(row, -0.5, 0.5)
        self.probe_key = values

    def probe_off(self):
        """Switch the probe slot off (its weight fixed at 0: its row is free)."""
        if self.lp.probe and self.probe_key is not None:
            row = self.D - 1
            self.lo[row], self.hi[row] = -np.inf, np.inf
            self._set_row_bounds(row, -np.inf, np.inf)
            self.probe_key = None

    def model_path(self, C_values, samples=None):
        """Optimal ``(w, b)`` of the plain model for each C, or None if a solve fails.

        C is the box of the margin columns, so each solve restarts dual simplex
        from the last basis (used for the cross-validation of C). The box is
        reset to this LP's C afterwards.

        With ``samples`` (indices of rows of ``X``), the model of those samples
        alone: the margin columns of the others are held at 0, which leaves
        exactly the dual of the model fitted on ``samples`` (a training fold,
        without building its LP). Every such path starts from the same basis,
        the whole model's at the first C (with the rows HiGHS held then), so
        that its answers do not depend on the paths solved before it (beyond
        rounding).
        """
        R = self.R
        cols = np.arange(R, dtype=np.int32)
        active = None
        if samples is not None:
            samples = np.asarray(samples)
            if samples.dtype == bool:
                raise TypeError("samples must be indices of rows of X, not a boolean mask.")
            active = np.isin(self.lp.row_i, samples)
        out = []
        try:
            if active is not None:
                self._start_fold(C_values[0])
                self._active = active
            for C in C_values:
                upper = np.full(R, float(C)) if active is None else np.where(active, float(C), 0.0)
                self.h.changeColsBounds(R, cols, np.zeros(R), upper)
                point = self._solve(None, 0.0, float(C))  # checked
                if point is None:  # pragma: no cover - always feasible
                    return None
                out.append((point[1].copy(), point[2].copy()))
            return out
        finally:
            self._active = None
            self.h.changeColsBounds(R, cols, np.zeros(R), np.full(R, self.C))

    def _start_fold(self, C):
        """Put HiGHS back to the whole model's optimum at ``C`` (solved on first use):
        the rows it held then (row generation adds rows along a path) and its
        basis, so that every fold's path starts from the same point."""
        R = self.R
        cols = np.arange(R, dtype=np.int32)
        if self._fold_start is not None and self._fold_start[0] == C:
            _, basis, rows = self._fold_start
            extra = [q for q in self.rows if q not in rows]
            if extra:
                self._delete_rows(extra)
            if self.rows == rows and self.h.setBasis(basis) == self.h_ok:
                return
        self.h.clearSolver()  # (first use, or HiGHS would not take the basis back)
        self.h.changeColsBounds(R, cols, np.zeros(R), np.full(R, float(C)))
        if self._solve(None, 0.0, float(C)) is None:  # pragma: no cover - always solvable
            raise RuntimeError("the model's dual could not be solved")
        self._fold_start = (C, self.h.getBasis(), list(self.rows))

    def cheaper_sign(self, j):
        """The sign s in which moving ``w_j`` away from 0 raises the loss the least.

        At the optimal model the hinge loss grows along ``s * e_j`` at the
        rate ``s * a_j``, with ``a_j = (M_w^T u)_j`` and ``u`` the model's
        margin multipliers; the signed maximum on the side ``s = -sign(a_j)``
        is then usually the larger one. Used to choose which of the two LPs
        of a weight-zero column to solve first (only the larger value is
        needed there).
        """
        self._solve_model()  # and with it the model's multipliers, if not yet done
        a = float((self.sign * self.XR[:, j]) @ self.base_u)
        return 1.0 if a <= 0 else -1.0

    def screen_signed(self, j, s, budget, below):
        r"""``max s * w_j``, or a certified upper bound on it below ``below``.

        Returns ``(value, stopped)``: ``stopped`` tells that ``value`` is a
        certified upper bound lying below ``below`` (not the maximum itself)
        and that a feasible value of ``s * w_j`` of at least 0 is known (so
        that, with a positive maximum on the other side, ``min |w_j| = 0``);
        otherwise ``value`` is the exact maximum (possibly negative).
        ``(None, False)`` if the search fails.

        Where the optimal model has ``s * w_j >= 0``, first the bound at the
        largest :math:`\tau` for which its own (checked) multipliers stay
        feasible, which needs no LP. Otherwise the search of
        :meth:`max_signed` with ``beat=below``: it stops at the first checked
        evaluation whose bound
        :math:`(B + F(\tau))/\tau` lies below ``below`` and returns that
        bound, or else runs to the exact maximum. The dual simplex from the
        optimal model's basis pivots about in proportion to how far
        :math:`\tau` lies beyond the model's own multipliers, so the search
        starts below the exact searches' multiplier (the hint), at a
        multiplier kept per sign and adapted along the fit: it shrinks by
        ``SCREEN_SHRINK`` after a stop at the first evaluation and moves to
        the stopping multiplier (but at most ``SCREEN_GROW`` times higher)
        after a later one.
        """
        upper = self._free_bound(j, s, budget)
        if upper < below:
            return upper, True
        start = self.screen_tau[s] or SCREEN_START * (self.tau_hint[s] or 10.0)
        self.stopped_at = None
        value, stopped = self._search(j, s, budget, beat=below, start=start, report="upper")
        if stopped:
            self.screen_tau[s] = (start * SCREEN_SHRINK if self.stopped_at == start
                                  else min(self.stopped_at, SCREEN_GROW * start))
        return value, stopped

    def _free_bound(self, j, s, budget):
        r"""A certified upper bound on ``max s * w_j`` that needs no LP, or inf.

        The optimal model's multipliers u (a checked solve) stay feasible for
        the tilt up to :math:`\tau_0 = 1/2 + s a_j`, with
        :math:`a_j = (M_w^\top u)_j` (the row's activity at its box edge), so
        :math:`F(\tau_0) \le \mathrm{rhs}^\top u` bounds the maximum by
        :math:`(B + \mathrm{rhs}^\top u)/\tau_0`; only where the model itself
        has ``s * w_j >= 0`` (a feasible value of at least 0 on that side).
        """
        f0, w0 = self.model
        tau0 = 0.5 + s * float(self.M[j, : self.R] @ self.base_u)
        if tau0 > 0 and s * w0[j] >= 0:
            return (budget + self.margin_rhs @ self.base_u) / tau0
        return np.inf

    def _bracket_factor(self, tau, f, budget, last_point, step):
        r"""The factor by which the bracketing moves ``tau`` after a maximiser of
        objective ``f``: towards the multiplier whose maximiser's objective lies
        ``BRACKET_MARGIN`` beyond the budget, read off the frontier's elasticity
        :math:`e = d\ln f / d\ln\tau` (from this search's last evaluation, else
        the last search's), as :math:`((1 \pm m) B / f)^{1/e}`; at most ``step``
        (the steps of the plain bracketing, which square each time) and at least
        a small move. Far from the budget (``f`` beyond three times it), or where
        the last evaluation found the same maximiser (a flat stretch), ``step``.
        """
        up = f <= budget
        if last_point is not None:
            t0, f0 = last_point
            if abs(f - f0) <= 1e-9 * max(1.0, abs(f)):  # the same vertex: step as before
                return step if up else 1.0 / step
            if f0 > 0 and f > 0 and t0 != tau:
                self._elasticity = min(2.0, max(0.02, np.log(f / f0) / np.log(tau / t0)))
        if f <= 0 or f > 3 * budget:
            return step if up else 1.0 / step
        target = budget * (1 + BRACKET_MARGIN if up else 1 - BRACKET_MARGIN)
        factor = (target / f) ** (1.0 / self._elasticity)
        return min(step, max(1 + 1e-4, factor)) if up else max(1 / step, min(1 / (1 + 1e-4), factor))

    def max_signed(self, j, s, budget, beat=None):
        r"""``max s * w_j`` over the models within ``budget``, or None if the search fails.

        With ``beat``, the search stops as soon as it certifies that the
        maximum lies in ``[0, beat)``, and returns a value in that interval
        instead of the maximum: a feasible value (a lower bound) that is at
        least 0, once an evaluation at a multiplier :math:`\tau` bounds the
        maximum from above by :math:`(B + F(\tau))/\tau < \text{beat}` (weak
        duality). That is all the caller needs when the other sign's maximum is
        ``beat``: then ``max |w_j| = beat`` and ``min |w_j| = 0``. The bound
        of :meth:`_free_bound`, which needs no LP, is tried first.
        """
        if beat is not None and self.model is not None:
            if self._free_bound(j, s, budget) < beat - 1e-9 * max(1.0, abs(beat)):
                return max(0.0, s * self.model[1][j])
        return self._search(j, s, budget, beat)[0]

    def _search(self, j, s, budget, beat=None, start=None, report="lower"):
        """The search of :meth:`max_signed` from multiplier ``start`` (default: the
        hint); returns ``(value, stopped)``, ``stopped`` telling whether it stopped at
        a certificate below ``beat``, where ``value`` is then the feasible lower end
        (``report="lower"``) or the certified upper bound (``"upper"``) of the
        maximum; ``(None, False)`` if the search fails."""
        if self.model is None:  # pragma: no cover - the model LP was solved before
            return None, False
        added = self.pos[j] < 0
        self._add_rows([j])  # the tilted row (taken out again after the search)
        try:
            f0, w0 = self.model
            if f0 > budget * (1 + 1e-12):  # pragma: no cover - the budget holds the optimum
                return None, False
            # the best point within the budget: first the optimal model (with an appended
            # probe's weight at 0)
            search = _Search((f0, s * w0[j]), self._start_tau(j, s, start))
            self.h.setBasis(self.base_basis)
            return self._evaluations(j, s, budget, beat, report, search)
        finally:
            self._release_row(j, added)

    def _start_tau(self, j, s, start):
        """The multiplier a search starts from: ``start`` if given; else for the same
        column's other sign a little below that sign's final multiplier (it lies closer
        than the last bound's of this sign, of another column, maybe of another kind,
        and there the dual simplex needs fewer pivots from the optimal model's basis
        while the bound mostly certifies all the same); else the last bound's of this
        sign (10 for the first)."""
        if start is not None:
            return start
        last = self.last_exact
        if last is not None and last[0] == j and last[1] is self.probe_key:
            return SECOND_SIGN_START * last[2]
        return self.tau_hint[s] or 10.0

    def _evaluations(self, j, s, budget, beat, report, search):
        """The evaluations of a search (at most ``max_evaluations``): bracketing the
        budget, then closing on the chord; returns what :meth:`_search` returns."""
        for _ in range(self.max_evaluations):
            point = self._evaluate_at(j, s, search.tau)
            if beat is not None and point is not None:
                point, answer = self._stop_below(j, s, budget, beat, report, search, point)
                if answer is not None:
                    return answer
            if search.bracketing:
                answer = self._bracket_step(j, s, budget, search, point)
            else:
                answer = self._chord_step(j, s, budget, search, point)
            if answer is not None:
                return answer
            if search.bracketing:
                continue
            slope = (search.p2[1] - search.p1[1]) / (search.p2[0] - search.p1[0])
            if not slope > 0:  # pragma: no cover - numerical trouble: let the primal decide
                return None, False
            search.tau = 1.0 / slope
        return None, False

    def _evaluate_at(self, j, s, tau):
        """The maximiser ``(f, w)`` of the dual tilted by ``s * tau`` on row ``j``, or
        None (``F(tau)`` unbounded)."""
        self._set_row_bounds(j, s * tau + self.lo[j], s * tau + self.hi[j])
        return self._evaluate(j, s * tau)

    def _stop_below(self, j, s, budget, beat, report, search, point):
        """The stop at a certificate below ``beat`` (see :meth:`max_signed`).

        Returns ``(point, answer)``: ``answer`` is the search's answer if the
        evaluation at ``search.tau`` (checked) bounds the maximum below ``beat``
        while a feasible value of at least 0 is known, or ``(None, False)`` if
        HiGHS failed twice; else None, and ``point`` the maximiser to go on
        with (the checked one if HiGHS' answer was wrong).
        """
        tau, p1 = search.tau, search.p1
        f, t = point[0], s * point[1][j]
        upper = (budget + tau * t - point[0]) / tau
        lower = max(p1[1], t) if f <= budget else p1[1]
        if not (upper < beat - 1e-9 * max(1.0, abs(beat)) and lower >= 0):
            return point, None
        checked = self._confirm(j, s * tau, point)
        # the certified bound: F(tau) <= rhs.u for the checked multipliers u of this
        # solve (the maximiser's tau t - f bounds F from below)
        bound = (budget + self.margin_rhs @ self._u[: self.R]) / tau
        if checked is point and bound < beat - 1e-9 * max(1.0, abs(beat)):
            self.stopped_at = tau
            return point, ((bound if report == "upper" else lower), True)
        if checked is None:  # pragma: no cover - HiGHS failed twice
            return None, (None, False)
        return checked, None  # HiGHS' answer was wrong: go on with the right one

    def _bracket_step(self, j, s, budget, search, point):
        """One step of the bracketing, from the start multiplier in steps that square
        each time, until a maximiser beyond the budget and a multiplier within it are
        known; returns ``(None, False)`` if the frontier ends in a ray, else None."""
        if point is None:  # F(tau) unbounded: tau is too large
            return search.unbounded()
        f, t = point[0], s * point[1][j]
        factor = self._bracket_factor(search.tau, f, budget, search.last_point, search.step)
        search.last_point = (search.tau, f)
        if f <= budget:
            search.within(f, t, factor)
        else:
            search.beyond(f, t, factor)
        return None

    def _chord_step(self, j, s, budget, search, point):
        """One evaluation on the chord of the bracket ends: the exact answer (the
        chord's value at the budget) if the maximiser at ``search.tau`` lies on or
        below the chord, checked; else None, the maximiser replacing the bracket end
        on its side of the budget."""
        if point is None:  # pragma: no cover - tau lies below a known maximiser's
            return None, False
        tau, p1, p2 = search.tau, search.p1, search.p2
        t = s * point[1][j]
        gain, chord = tau * t - point[0], tau * p1[1] - p1[0]
        tol = 1e-10 * max(1.0, abs(chord))
        if gain <= chord + tol:
            point = self._confirm(j, s * tau, point)
            if point is None:  # pragma: no cover - HiGHS failed twice
                return None, False
            t = s * point[1][j]  # (HiGHS' answer may have been wrong: the right one)
            if tau * t - point[0] <= chord + tol:
                self.tau_hint[s] = tau
                self.last_exact = (j, self.probe_key, tau)
                return p1[1] + (p2[1] - p1[1]) * (budget - p1[0]) / (p2[0] - p1[0]), False
        if point[0] <= budget:
            search.p1 = (point[0], t)
        else:
            search.p2 = (point[0], t)
        return None


class _Search:
    """The state of one search of :meth:`DualPath._search`.

    Parameters
    ----------
    p1 : tuple
        The best point ``(f, t)`` known within the budget to start from.
    hint : float
        The multiplier the search starts from.

    Attributes
    ----------
    p1, p2 : tuple or None
        The best point ``(f, t)`` known within the budget, and the point beyond it
        nearest to the budget (None until one is known).
    tau : float
        The multiplier of the next evaluation.
    step : float
        The bracketing's largest factor (squared after every step).
    good, bad : float or None
        The largest multiplier known whose maximiser lies within the budget, and
        the smallest one whose maximiser lies beyond it (or whose ``F`` is unbounded).
    last_point : tuple or None
        ``(tau, f)`` of the last bracketing evaluation with a maximiser.
    hint : float
        The multiplier the search started from.
    """

    __slots__ = ("p1", "p2", "tau", "step", "good", "bad", "last_point", "hint")

    def __init__(self, p1, hint):
        self.p1, self.p2 = p1, None
        self.hint = self.tau = hint
        self.step = BRACKET_STEP
        self.good = self.bad = None
        self.last_point = None

    @property
    def bracketing(self):
        """Whether the budget is not bracketed yet (no point beyond it, or no
        multiplier within it known)."""
        return self.p2 is None or self.good is None

    def unbounded(self):
        """After an evaluation whose ``F(tau)`` is unbounded (``tau`` too large): a
        smaller ``tau``; ``(None, False)`` if the frontier ends in a ray within the
        budget (e.g. a constant column, free up to the budget: the primal decides),
        else None."""
        self.bad = self.tau if self.bad is None else min(self.bad, self.tau)
        if self.good is not None and self.bad < self.good * (1 + 1e-3):
            return None, False
        self.tau = np.sqrt(self.good * self.bad) if self.good is not None else self.tau / self.step
        self.step *= self.step
        return None

    def within(self, f, t, factor):
        """After a maximiser ``(f, t)`` within the budget: the best point, and, with no
        point beyond the budget yet, a larger ``tau``."""
        if t >= self.p1[1]:
            self.p1 = (f, t)
        self.good = self.tau
        if self.p2 is None:
            self.tau = self.tau * factor if self.bad is None else np.sqrt(self.tau * self.bad)
            self.step *= self.step

    def beyond(self, f, t, factor):
        """After a maximiser ``(f, t)`` beyond the budget: the point beyond it, and,
        with no multiplier within it yet, a smaller ``tau``."""
        if self.p2 is None or f < self.p2[0]:
            self.p2 = (f, t)
        self.bad = self.tau if self.bad is None else min(self.bad, self.tau)
        if self.good is None:
            self.tau *= factor
            self.step *= self.step
            if not self.tau > 1e-12 * self.hint:
                self.good = 0.0  # pragma: no cover - p1 stays the optimal model
