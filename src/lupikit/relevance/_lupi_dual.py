r"""The LUPI model's LP dual: certificates that spare relevance LPs, and the C path.

A LUPI feature's maxrel is the largest of several LPs over the budget set,
:math:`\max\{t(x): x\in P,\ f(x)\le B\}` with :math:`t(x)=-c^\top x` for each
signed objective ``c`` of :meth:`OrdinalLayout.relevance_objectives` (two for a
regular feature, four for a privileged one). Once the likeliest largest one
is solved, with value ``beat``, each other one is needed only if it could
exceed ``beat`` (or, for a regular feature's minrel, if it is negative). For
every tilt :math:`\tau>0` weak duality bounds it from above,

.. math::

    \max\{t(x): x\in P,\ f(x)\le B\} \;\le\; \frac{B + F(\tau)}{\tau},
    \qquad F(\tau) = \max_{x\in P}\ \tau\,t(x) - f(x),

and :math:`F(\tau)` is the LUPI model with its objective tilted along ``c``.
It is solved here on the model's LP dual: one row per primal column pair
(:math:`w_j^\pm`, :math:`v_{gk}^\pm`, whose two columns differ only in sign
outside the budget row, so that one ranged row covers both) and per free
column (thresholds, the correcting functions' offsets), one column per
margin, non-negativity and order row. The tilt moves only the bounds of the
rows of the tilted columns, so HiGHS' dual simplex restarts from the optimal
model's basis, on a basis of :math:`D+K+2P+2` rows instead of the primal's
:math:`2R+K`. The row duals are a maximiser :math:`x_\tau\in P`, so one
evaluation gives both the bound and a feasible point when
:math:`f(x_\tau)\le B`.

One evaluation, on the smaller basis, costs less than a primal relevance
LP, and a skipped LP saves the difference; an evaluation that does not
certify is wasted, and the LP is solved as before. The values of the LPs
that are solved, and hence every bound, are those of the primal route. (A
full parametric search on this dual, as the plain model uses, does not pay
off for LUPI: its dual has two columns per margin row.)

The same dual serves the cross-validation path over C and gamma
(:func:`model_path`): those change only the model's costs, which are the
dual's row bounds, so each grid point restarts dual simplex from the last
basis.
"""

import numpy as np

from ._highs import _dual_simplex, _highs_lp, _optimal

__all__ = ["LupiCertifier", "model_path"]


class _LupiDual:
    """The LP dual of a LUPI model (layout of the module docstring), on HiGHS.

    ``lo, hi`` (set by :meth:`_build`) are the dual's row bounds as passed to
    HiGHS; :meth:`_row_bounds` gives them for any primal costs, and
    :meth:`_point` reads the primal point off HiGHS' row duals.
    """

    def __init__(self, lp, api):
        self.lp = lp
        self.api = api
        self.optimal = api[3].kOptimal
        self.plus, self.minus = lp.weight_pair_cols()
        self.free = lp.free_cols()
        self.n_pairs = len(self.plus)
        # the model's rows (one dual column each) of the pair and free columns; kept
        # to check HiGHS' answers
        AT = lp.A[: lp.r_budget][:, np.r_[self.plus, self.free]].T.tocsc()
        AT.sort_indices()
        self.AT = AT

    def _build(self, lo, hi):
        """Pass the dual with row bounds ``lo, hi`` to a new HiGHS instance (``self.h``)."""

        n_cols = self.AT.shape[1]
        self.lo, self.hi = lo, hi
        # max -b.y over y >= 0: HiGHS minimises b.y
        model = _highs_lp(self.api, self.AT, self.lp.b[: self.lp.r_budget], np.zeros(n_cols),
                          np.full(n_cols, np.inf), lo.copy(), hi.copy())
        self.h = _dual_simplex(self.api, model, self.AT)  # only row bounds change
        # HiGHS' position of each dual row (a reloaded probe row moves to the end)
        self.hrow = np.arange(self.AT.shape[0])
        return self.h

    def _row_bounds(self, c):
        """Dual row bounds for primal costs ``c``: ``a.y`` in ``[-c+, c-]``, free: ``-c``."""
        lo = np.r_[-c[self.plus], -c[self.free]]
        hi = np.r_[c[self.minus], -c[self.free]]
        return lo, hi

    def _point(self, duals):
        """The primal point whose values are HiGHS' row duals ``duals``."""
        duals = duals[self.hrow]  # in the dual's own row order
        x = np.zeros(self.lp.n_vars)
        x[self.plus] = np.maximum(duals[: self.n_pairs], 0.0)
        x[self.minus] = np.maximum(-duals[: self.n_pairs], 0.0)
        x[self.free] = duals[self.n_pairs:]
        return x


def model_path(lp, api, costs):
    """Optimal points of a LUPI model for several objectives, on its LP dual.

    The path over (C, gamma) of the cross-validation changes only the model's
    costs, which are the dual's row bounds, so HiGHS' dual simplex restarts
    each solve from the last basis, on :math:`D+K+2P+2` rows instead of the
    primal's :math:`2R+K`. Each answer is checked as the primal route's
    are (``_optimal``: feasibility, and a Lagrangian bound from the dual's
    column values that meets its value).

    Parameters
    ----------
    lp : OrdinalLayout
        A LUPI model without a probe slot.
    api : tuple
        HiGHS' classes, as returned by ``_highs_api``.
    costs : sequence of ndarray
        Objective vectors of the model (``c_model`` for other C and gamma).

    Returns
    -------
    list
        The optimal point for each cost vector, or None where HiGHS did not
        report an optimum that passes the check (the caller solves that one
        again from scratch).
    """

    if not lp.lupi or lp.probe:  # pragma: no cover - guarded by the caller
        raise ValueError("the path covers LUPI models without a probe slot")
    dual = _LupiDual(lp, api)
    h = dual._build(*dual._row_bounds(costs[0]))
    rows = np.arange(dual.AT.shape[0], dtype=np.int32)
    A, b = lp.A[: lp.r_budget], lp.b[: lp.r_budget]
    out = []
    for c in costs:
        lo, hi = dual._row_bounds(c)
        h.changeRowsBounds(rows.size, rows, lo, hi)
        h.run()
        x = None
        if h.getModelStatus() == dual.optimal:
            sol = h.getSolution()
            point = dual._point(np.asarray(sol.row_dual))
            # the dual's column values are the multipliers of A x <= b (HiGHS' own row
            # duals of those rows would be their negatives)
            if _optimal(A, b, c, lp.bounds, point, -np.asarray(sol.col_value)):
                x = point
        out.append(x)
    return out


class LupiCertifier(_LupiDual):
    """Upper bounds on LUPI relevance LPs from single solves of the tilted model's dual.

    Parameters
    ----------
    lp : OrdinalLayout
        A LUPI model with a probe slot; the certifier follows its probe
        columns, probe bounds and model costs (``lp.c_model``).
    api : tuple
        HiGHS' classes, as returned by ``_highs_api``.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.datasets import make_lupi_ordinal
    >>> from lupikit.relevance import OrdinalLP, solve_lp
    >>> from lupikit.relevance._lupi_dual import LupiCertifier
    >>> from lupikit.relevance._highs import _highs_api
    >>> X, Xs, y, _, _ = make_lupi_ordinal(n_samples=60, random_state=0)
    >>> lp = OrdinalLP(X, y, np.unique(y).size, 1.0, X_star=Xs, probe=True)
    >>> budget = 1.1 * lp.solve_model().fun
    >>> cert = LupiCertifier(lp, _highs_api())
    >>> c, _ = lp.relevance_objectives("max", 0)[0]   # max w_0
    >>> exact = -solve_lp(c, lp.A, lp.rhs(budget), lp.bounds).fun
    >>> bool(all(cert.bound(c, tau, budget)[0] >= exact - 1e-7 for tau in (0.1, 1.0, 10.0)))
    True
    """

    def __init__(self, lp, api):
        if not lp.lupi or not lp.probe:  # pragma: no cover - guarded by the caller
            raise ValueError("the certifier covers LUPI models with a probe slot")
        super().__init__(lp, api)
        D, P = lp.D, lp.P
        # dual row of every primal column (both columns of a pair share one): the
        # rows that a tilt moves
        self.row_of = np.full(lp.n_vars, -1)
        self.row_of[self.plus] = np.arange(self.n_pairs)
        self.row_of[self.minus] = np.arange(self.n_pairs)
        self.row_of[self.free] = self.n_pairs + np.arange(len(self.free))
        # the probe slots' rows (regular, then privileged of both functions)
        self.probe_rows = {"regular": [D - 1], "privileged": [D + P - 1, D + 2 * P - 1]}
        self.loaded = {"regular": None, "privileged": None}
        self._model_gradient = None  # see cost_of_direction; reset by sync_probe
        lo, hi = self._row_bounds(lp.c_model)
        for rows in self.probe_rows.values():  # probe slots off: weights fixed at 0
            lo[rows], hi[rows] = -np.inf, np.inf
        # (HiGHS' probe rows are reloaded by sync_probe; _feasible takes the probe rows'
        # activities from the LP's current probe columns)
        h = self._build(lo, hi)
        h.run()
        if h.getModelStatus() != self.optimal:  # pragma: no cover - the model LP is solvable
            self.base_basis, self.y, self.model_x = None, None, None
            return
        self.base_basis = h.getBasis()
        # the model's row multipliers (margin, non-negativity, order rows); they only
        # order the objectives (cost_of_direction), so they need no check
        sol = h.getSolution()
        self.y = np.asarray(sol.col_value).copy()
        # the optimal model itself, if it passes the primal route's check (the
        # engine then needs no solve of its own): its point and the dual's value
        x = self._point(np.asarray(sol.row_dual))
        rows = slice(0, lp.r_budget)
        self.model_x = (x if _optimal(lp.A[rows], lp.b[rows], lp.c_model, lp.bounds, x, -self.y)
                        else None)
        self.model_dual_value = -float(lp.b[rows] @ self.y)

    def sync_probe(self, probe):
        """Follow the LP's probe slot: ``probe`` (a :class:`~lupikit.relevance._tasks.Probe`)
        loaded in its slot, or no probe for None."""
        self._model_gradient = None  # the LP's probe columns may have changed
        for which in ("regular", "privileged"):
            on = probe is not None and probe.privileged == (which == "privileged")
            key = probe if on else None
            if self.loaded[which] == key:
                continue
            lp = self.lp
            for row in self.probe_rows[which]:
                if on:
                    col = self.plus[row]
                    self.lo[row], self.hi[row] = -lp.c_model[col], lp.c_model[self.minus[row]]
                    self._reload_row(row, *lp.column(col))
                else:
                    self.lo[row], self.hi[row] = -np.inf, np.inf
                    self.h.changeRowBounds(int(self.hrow[row]), float(self.lo[row]),
                                           float(self.hi[row]))
            self.loaded[which] = key

    def _reload_row(self, row, idx, val):
        """Replace dual row ``row`` in HiGHS by the primal column with entries ``val`` at
        rows ``idx`` (the model's rows only), with its bounds ``lo, hi``: deleted and
        added anew at the end, two calls instead of one per entry; its status in the
        saved basis moves along."""
        keep = idx < self.lp.r_budget
        at = int(self.hrow[row])
        status = list(self.base_basis.row_status)
        self.h.deleteRows(1, np.array([at], dtype=np.int32))
        self.h.addRows(1, np.array([self.lo[row]]), np.array([self.hi[row]]), int(keep.sum()),
                       np.zeros(1, dtype=np.int32), idx[keep].astype(np.int32), val[keep])
        self.hrow[self.hrow > at] -= 1
        self.hrow[row] = self.hrow.size - 1
        self.base_basis.row_status = status[:at] + status[at + 1:] + [status[at]]

    def cost_of_direction(self, c):
        """First-order rise of the model objective when ``-c.x`` grows from the optimum.

        The reduced costs of the model at its optimum, ``c_model + A^T y`` for
        the ``+`` columns and ``c_model - A^T y`` for the ``-`` columns, summed
        over the columns that ``c`` pushes up. The objectives of a relevance
        bound are solved in this order (cheapest first), since the cheapest
        direction usually reaches the largest value within the budget.
        ``A^T y`` is computed once for the probe columns loaded at the last
        :meth:`sync_probe`.
        """
        cols = np.flatnonzero(c < 0)
        if self._model_gradient is None:  # A^T y of every column, the probes as loaded
            y = np.zeros(self.lp.A.shape[0])
            y[: self.lp.r_budget] = self.y
            self._model_gradient = self.lp.A.T @ y
        return float(np.sum(self.lp.c_model[cols] + self._model_gradient[cols]))

    def _feasible(self, y, rows, lo, hi, tol):
        """Whether ``y`` satisfies the dual's rows, with ``rows`` bounded by ``lo, hi``."""
        act = self.AT @ y
        lp = self.lp
        for which, key in self.loaded.items():  # probe rows: from the LP's current columns
            if key is not None:
                for row in self.probe_rows[which]:
                    idx, val = lp.column(self.plus[row])
                    keep = idx < lp.r_budget
                    act[row] = val[keep] @ y[idx[keep]]
        lo_all, hi_all = self.lo.copy(), self.hi.copy()
        lo_all[rows], hi_all[rows] = lo[rows], hi[rows]
        return np.max(lo_all - act) <= tol and np.max(act - hi_all) <= tol

    def bound(self, c, tau, budget):
        """``(upper, (f, t))``: the weak-duality bound on ``max -c.x`` over the
        budget set at tilt ``tau``, and the maximiser's objective and value
        (None unless it is a feasible point); ``(inf, None)`` if the tilted
        model is unbounded, the solve fails or its column values are not
        feasible for the dual."""
        if self.base_basis is None:  # pragma: no cover
            return np.inf, None
        h = self.h
        rows = np.unique(self.row_of[np.flatnonzero(c)])
        lo, hi = self._row_bounds(self.lp.c_model + tau * c)
        try:
            for r in rows:
                h.changeRowBounds(int(self.hrow[r]), float(lo[r]), float(hi[r]))
            h.setBasis(self.base_basis)
            h.run()
            if h.getModelStatus() != self.optimal:
                return np.inf, None
            sol = h.getSolution()
            # the bound rests on HiGHS' column values y alone: any y >= 0 that
            # satisfies the tilted dual's rows gives F(tau) <= b.y, optimal or not
            # (HiGHS' warm starts have known faults: HiGHS issues 3194 and 3294)
            y = np.maximum(np.asarray(sol.col_value), 0.0)
            if not self._feasible(y, rows, lo, hi, 1e-8 * max(1.0, tau)):
                return np.inf, None
            x = self._point(np.asarray(sol.row_dual))
            F = float(self.lp.b[: self.lp.r_budget] @ y)
            b = self.lp.b[: self.lp.r_budget]
            ax = (self.lp.A @ x)[: self.lp.r_budget]  # (cheaper than slicing A's rows)
            if np.any(ax - b > 1e-7 * np.maximum(1.0, np.abs(b))):
                return (budget + F) / tau, None  # the maximiser is not a feasible point
            return (budget + F) / tau, (float(self.lp.c_model @ x), float(-c @ x))
        finally:
            for r in rows:
                h.changeRowBounds(int(self.hrow[r]), float(self.lo[r]), float(self.hi[r]))
