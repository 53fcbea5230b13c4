"""Warm-started primal simplex on a persistent HiGHS model of an :class:`OrdinalLayout`.

Between two relevance LPs only costs, column bounds, the probe slot's
coefficients and the budget change, so the basis of the last solve stays
primal feasible (or nearly so) and primal simplex restarts from it; every
bound restarts from the optimal model's basis, a vertex feasible for every
relevance LP. Each answer is checked by its own certificate
(:func:`~lupikit.relevance._highs._optimal`) and settled by a cold solve when
the check fails.
"""

from collections import Counter

import numpy as np

from ._highs import (
    LinearProgramError,
    _highs_lp,
    _infeasible,
    _limit_iterations,
    _new_highs,
    _optimal,
    _well_scaled,
    solve_lp,
)

__all__ = ["WarmPrimal"]


class WarmPrimal:
    """One persistent HiGHS model of ``layout``; successive LPs change costs, bounds,
    probe coefficients and the budget, and restart primal simplex from a basis.

    Parameters
    ----------
    layout : OrdinalLayout
    api : tuple
        HiGHS' classes, as returned by ``_highs_api``.
    fallbacks : collections.Counter or None
        Where a solve settled cold counts (``"warm_start"``, and ``"lp_retry"``
        for the cold solve's own retries); see
        ``lupikit.relevance._engine.FALLBACKS``.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.datasets import make_ordinal_relevance
    >>> from lupikit.relevance import OrdinalLP, solve_lp
    >>> from lupikit.relevance._highs import _highs_api
    >>> from lupikit.relevance._primal import WarmPrimal
    >>> X, y, _ = make_ordinal_relevance(n_samples=60, random_state=0)
    >>> lp = OrdinalLP(X, y, np.unique(y).size, 1.0)
    >>> budget = 1.1 * lp.solve_model().fun
    >>> c, _ = lp.relevance_objectives("max", 0)[0]
    >>> warm = WarmPrimal(lp, _highs_api())
    >>> fun, _ = warm.solve(c, lp.bounds, budget)
    >>> bool(abs(fun - solve_lp(c, lp.A, lp.rhs(budget), lp.bounds).fun) < 1e-9)
    True
    """

    def __init__(self, layout, api, fallbacks=None):
        Highs, _, _, ModelStatus = api
        self.status_infeasible = ModelStatus.kInfeasible
        self.lp = layout
        self.fallbacks = Counter() if fallbacks is None else fallbacks
        self.status_optimal = ModelStatus.kOptimal
        A = layout.A
        m, n = A.shape
        # HiGHS holds the columns in the order `order` (the layout's column at each of
        # its positions), the probe slots last: a probe is loaded by deleting its slot's
        # columns and adding them anew at the end, two calls instead of one per entry
        slots = ([] if not layout.probe else
                 layout.probe_cols(False) + (layout.probe_cols(True) if layout.lupi else []))
        rest = np.setdiff1d(np.arange(n), slots)
        self.order = np.r_[rest, slots].astype(int)
        self.hpos = np.argsort(self.order)
        model = _highs_lp(api, A[:, self.order].tocsc(), np.zeros(n),
                          layout.bounds[self.order, 0], layout.bounds[self.order, 1],
                          np.full(m, -np.inf), layout.rhs(0.0))
        h = _new_highs(Highs)
        h.setOptionValue("simplex_strategy", 4)  # primal simplex: costs change, basis stays feasible
        _limit_iterations(h, A.shape)  # a stalling run is settled cold (see solve)
        if _well_scaled(A):
            # e.g. standardised features next to unit slacks: HiGHS' scaling then only
            # lengthens the pivot path
            h.setOptionValue("simplex_scale_strategy", 0)
        h.passModel(model)
        self.h = h
        self.idx = np.arange(n, dtype=np.int32)
        self.bounds = layout.bounds.copy()
        self.budget = None
        self.probe_key = None
        self.budget_dual = 0.0

    def _load_probe(self, privileged):
        """Give HiGHS the layout's current coefficients of a probe slot's columns: they
        are deleted and added anew at the end (the saved basis keeps their statuses)."""
        lp = self.lp
        cols = np.asarray(lp.probe_cols(privileged))
        at = self.hpos[cols]
        status = list(self.base_basis.col_status)
        kept = [status[k] for k in at]
        gone = set(at.tolist())
        self.h.deleteCols(at.size, np.sort(at).astype(np.int32))
        block = lp.A[:, cols].tocsc()
        self.h.addCols(cols.size, np.zeros(cols.size), self.bounds[cols, 0],
                       self.bounds[cols, 1], block.nnz, block.indptr[:-1].astype(np.int32),
                       block.indices.astype(np.int32), block.data)
        self.order = np.r_[[c for k, c in enumerate(self.order) if k not in gone], cols]
        self.hpos = np.argsort(self.order)
        self.base_basis.col_status = [st for k, st in enumerate(status) if k not in gone] + kept

    def run_checked(self, A, b, c, bounds, rows=slice(None)):
        """Run HiGHS from its current basis; return ``(x, y)`` if it reports an
        optimum that passes :func:`_optimal` for ``min c.x, A x <= b`` (``rows``:
        HiGHS' rows that ``A`` holds), False if it reports the LP infeasible with
        a dual ray that proves it (:func:`_infeasible`), else None."""
        self.h.run()
        status = self.h.getModelStatus()
        if status == self.status_infeasible:
            _, has_ray, ray = self.h.getDualRay()
            if has_ray and _infeasible(A, b, bounds, np.asarray(ray)[rows]):
                return False
            return None
        if status != self.status_optimal:
            return None
        sol = self.h.getSolution()
        x = np.empty(self.order.size)
        x[self.order] = sol.col_value  # back to the layout's column order
        y = np.asarray(sol.row_dual)
        return (x, y) if _optimal(A, b, c, bounds, x, y[rows]) else None

    def model_path(self, costs, whats=None):
        """Optimal points of the model (no budget row) for each cost vector, each solve
        restarting from the last basis; a failed or wrong answer is solved again cold
        (``whats``: the LPs' names for its error message)."""
        lp = self.lp
        rows = slice(0, lp.r_budget)
        A, b = lp.A[rows], lp.b[rows]
        self.h.changeRowBounds(int(lp.r_budget), -np.inf, np.inf)
        out = []
        for c, what in zip(costs, whats or ["ordinal regression LP"] * len(costs)):
            self.h.changeColsCost(self.idx.size, self.idx, c[self.order])
            answer = self.run_checked(A, b, c, lp.bounds, rows)
            if answer:  # (never False: the model is feasible)
                out.append(answer[0])
                continue
            # not solved, or a warm start's wrong answer (see solve): from scratch,
            # which raises a LinearProgramError if it really fails
            out.append(self._cold(c, A, b, lp.bounds, what).x)
        return out

    def _cold(self, c, A, b, bounds, what):
        """The exact route of a failed warm start: a cold solve (counted); interior point
        first if the warm start ended undecided (numerical difficulties)."""
        self.fallbacks["warm_start"] += 1
        undecided = self.h.getModelStatus() not in (self.status_optimal, self.status_infeasible)
        try:
            res = solve_lp(c, A, b, bounds, what=what, ipm_first=undecided)
        except LinearProgramError as exc:
            self.fallbacks["lp_retry"] += exc.retries
            raise
        self.fallbacks["lp_retry"] += res.retries
        return res

    def solve(self, c, bounds, budget, *, probe=None, what="LP"):
        """``(min c.x, x)`` over the budget set with column ``bounds``; ``probe`` (a
        :class:`~lupikit.relevance._tasks.Probe`) is the one loaded in the layout."""
        lp = self.lp
        if budget != self.budget:
            self.h.changeRowBounds(int(lp.r_budget), -np.inf, float(budget))
            self.budget = budget
            # the optimal model is a vertex feasible for every relevance LP
            # (and for every appended probe): restart each solve from its basis
            self.h.changeColsCost(self.idx.size, self.idx, lp.c_model[self.order])
            self.h.run()
            self.base_basis = self.h.getBasis()
        if probe is not None and self.probe_key != probe:
            self._load_probe(probe.privileged)
            self.probe_key = probe
        changed = np.flatnonzero((bounds != self.bounds).any(axis=1))
        if changed.size:
            at = self.hpos[changed]
            o = np.argsort(at)  # HiGHS takes the positions in increasing order
            self.h.changeColsBounds(changed.size, at[o].astype(np.int32),
                                    bounds[changed[o], 0], bounds[changed[o], 1])
            self.bounds = bounds.copy()
        self.h.changeColsCost(self.idx.size, self.idx, c[self.order])
        self.h.setBasis(self.base_basis)
        b = lp.rhs(budget)
        answer = self.run_checked(lp.A, b, c, bounds)
        if answer is False:
            raise LinearProgramError(
                f"The {what} is infeasible (HiGHS' warm-started solve, with a dual ray "
                "that proves it).", 2)
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
        res = self._cold(c, lp.A, b, bounds, what)
        self.budget_dual = 0.0  # unknown here: no certificates from this LP
        return res.fun, res.x
