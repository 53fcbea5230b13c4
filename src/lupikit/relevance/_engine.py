"""The relevance engine: one route choice, the backends it owns, and their caches.

:func:`choose_route` is the only place that decides how an LP of an
:class:`~lupikit.relevance._layout.OrdinalLayout` is solved.
:class:`RelevanceEngine` owns the backends that the route needs (built on
first use: :class:`~lupikit.relevance._primal.WarmPrimal`,
:class:`~lupikit.relevance._dual_path.DualPath`,
:class:`~lupikit.relevance._lupi_dual.LupiCertifier`), solves the model, its
path over C and lists of :class:`~lupikit.relevance._tasks.RelevanceTask`, and
keeps what one task's solves tell about another (feasible points, signed
maxima) in caches keyed by task.
"""

from collections import Counter

import numpy as np
from scipy.optimize import OptimizeResult

from . import _dual_path, _lupi_dual
from ._highs import LinearProgramError, _highs_api, solve_lp
from ._primal import WarmPrimal

__all__ = ["FALLBACKS", "ROUTES", "SOLVERS", "RelevanceEngine", "choose_route"]

#: How relevance upper bounds may be computed (the ``solver`` parameter).
SOLVERS = ("auto", "primal", "dual")
#: The routes :func:`choose_route` returns.
ROUTES = ("cold", "primal", "dual_path", "lupi_certified", "lupi_dual")
#: The fast paths that can fail, each with the exact route that then answers (the
#: keys of :attr:`RelevanceEngine.fallbacks` and of ``FeatureRelevanceBounds.fallbacks_``).
FALLBACKS = {
    "fold_path": "a training fold's path over C on the whole data's LP dual failed: the "
                 "fold was solved as its own LP",
    "model_path": "a solve of the model's path over C (and gamma) on its LP dual failed: "
                  "primal simplex, or a cold solve, answered",
    "screening": "a screening search failed: the exact search answered",
    "dual_search": "a parametric dual search did not close: the primal LP answered",
    "tight_retry": "a dual solve failed its certificate: solved again from scratch at "
                   "tolerances of 1e-10",
    "warm_start": "a warm-started primal solve failed its certificate or ended undecided: "
                  "a cold solve answered",
    "lp_retry": "a cold solve ended undecided: HiGHS' interior point (or dual simplex at "
                "tight tolerances) answered",
}


def choose_route(layout, solver, purpose):
    """How to solve the LPs of ``layout`` for ``purpose``: the one place that decides.

    Parameters
    ----------
    layout : OrdinalLayout
    solver : {"auto", "primal", "dual"}
        The user's choice (``FeatureRelevanceBounds(solver=...)``).
    purpose : {"bounds", "path"}
        ``"bounds"``: the relevance LPs (and, with a probe slot on the dual
        route, the model they start from); ``"path"``: the model over a grid
        of C (and gamma), as cross-validation solves it.

    Returns
    -------
    route : str
        One of :data:`ROUTES`:

        - ``"cold"``: every LP from scratch with ``scipy.optimize.linprog``
          (only without HiGHS' Python classes);
        - ``"primal"``: warm-started primal simplex (:mod:`._primal`);
        - ``"dual_path"``: plain model -- upper bounds by the parametric
          search over the LP's dual, the path over C on that dual
          (:mod:`._dual_path`); for bounds, ``solver="auto"`` takes it from
          ``MIN_MARGIN_ROWS`` margin rows on;
        - ``"lupi_certified"``: LUPI bounds with a probe slot -- primal
          simplex, skipping the LPs that the tilted dual rules out
          (:class:`._lupi_dual.LupiCertifier`);
        - ``"lupi_dual"``: the LUPI model's path over (C, gamma) on its LP dual
          (:func:`._lupi_dual.model_path`).

    Raises
    ------
    ValueError
        For an unknown ``solver`` or ``purpose``, or ``solver="dual"`` for the
        relevance bounds of a LUPI model (the parametric search covers the
        plain model only).

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.relevance._engine import choose_route
    >>> from lupikit.relevance._layout import OrdinalLayout
    >>> layout = OrdinalLayout(np.eye(3), np.array([0, 1, 1]), 2, 1.0, probe=True)
    >>> choose_route(layout, "auto", "bounds"), choose_route(layout, "dual", "bounds")
    ('primal', 'dual_path')
    """
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}.")
    if purpose not in ("bounds", "path"):
        raise ValueError(f"purpose must be 'bounds' or 'path', got {purpose!r}.")
    if purpose == "bounds" and solver == "dual" and layout.lupi:
        raise ValueError("solver='dual' covers the plain model only, not LUPI.")
    if _highs_api() is None:  # pragma: no cover - highspy is a dependency
        return "cold"
    if purpose == "path":
        if solver == "primal" or (layout.lupi and layout.probe):
            return "primal"
        return "lupi_dual" if layout.lupi else "dual_path"
    if layout.lupi:
        return "lupi_certified" if solver == "auto" and layout.probe else "primal"
    if solver == "dual" or (solver == "auto" and layout.R >= _dual_path.MIN_MARGIN_ROWS):
        return "dual_path"
    return "primal"


class RelevanceEngine:
    """Solves the model, its C path and relevance tasks of one layout.

    Parameters
    ----------
    layout : OrdinalLayout
        The LP; the engine writes probes and probe bounds into it.
    solver : {"auto", "primal", "dual"}
        Passed to :func:`choose_route`; the route of the bounds is decided
        once, here, and kept by copies (a copy made for a worker rebuilds its
        HiGHS instances, never its route).

    Attributes
    ----------
    route : str
        The route of the relevance bounds.
    fallbacks : collections.Counter
        How often each fast path failed and its exact route answered instead
        (keys: :data:`FALLBACKS`). A copy starts counting from 0.
    failed_probes : set
        ``(privileged, index)`` of the probes whose LP no route could decide
        (they are dropped like infeasible ones).
    """

    def __init__(self, layout, solver="auto"):
        self.layout = layout
        self.solver = solver
        self.route = choose_route(layout, solver, "bounds")
        self._model_result = None
        self._reset_backends()
        self._points = []   # feasible points of the budget set, the optimal model first
        self._signed = {}   # task.target -> (max w, max -w) of a regular weight
        self.screened = set()  # targets whose maxrel is a certified upper bound (screening)
        self.fallbacks = Counter()
        self.failed_probes = set()

    def _reset_backends(self):
        self._warm = self._dual = self._cert = self._fold_dual = None

    def __getstate__(self):
        state = self.__dict__.copy()
        state.update(_warm=None, _dual=None, _cert=None,  # HiGHS: rebuilt in each process
                     _fold_dual=None,
                     # a copy (a worker's chunk, a parallel fold) counts its own
                     fallbacks=Counter(), failed_probes=set())
        return state

    def _solve_lp(self, c, A, b, bounds, what):
        """A cold solve (:func:`~lupikit.relevance._highs.solve_lp`), its retries counted."""
        try:
            res = solve_lp(c, A, b, bounds, what=what)
        except LinearProgramError as exc:
            self.fallbacks["lp_retry"] += exc.retries
            raise
        self.fallbacks["lp_retry"] += res.retries
        return res

    # ---------------------------------------------------------------- backends
    def warm(self):
        """The warm-started primal simplex, or None on the ``"cold"`` route."""
        if self._warm is None:
            self._warm = (WarmPrimal(self.layout, _highs_api(), self.fallbacks)
                          if self.route != "cold" else False)
        return self._warm or None

    def dual(self):
        """The parametric dual search (route ``"dual_path"``), or None."""
        if self._dual is None:
            self._dual = (_dual_path.DualPath(self.layout, _highs_api(),
                                              fallbacks=self.fallbacks)
                          if self.route == "dual_path" else False)
        return self._dual or None

    def certifier(self):
        """The LUPI certifier (route ``"lupi_certified"``), or None."""
        if self._cert is None:
            self._cert = (_lupi_dual.LupiCertifier(self.layout, _highs_api())
                          if self.route == "lupi_certified" else False)
        return self._cert or None

    # ------------------------------------------------------------------- model
    def solve_model(self):
        """Solve the ordinal SVM itself (no budget row); return the result.

        For the relevance LPs (with a probe slot) on the dual route the
        optimum is read off the dual search's own first solve, which it needs
        anyway, and for a LUPI model with a probe slot off the certifier's
        first solve (its LP dual); the result then carries the same fields
        (``x``, ``fun`` and the dual's value ``dual_fun``).
        """
        lp = self.layout

        def from_dual(x, dual_fun, module):
            return OptimizeResult(x=x, fun=float(lp.c_model @ x), dual_fun=dual_fun, status=0,
                                  success=True, message=f"dual simplex on the LP dual ({module})")

        if self._model_result is None and lp.probe and self.route == "dual_path":
            dual = self.dual()
            if dual.model is not None:
                self._model_result = from_dual(lp.point(dual.model[1], dual.model_thresholds),
                                               dual.model_dual_value, _dual_path.__name__)
        if self._model_result is None and lp.probe and self.route == "lupi_certified":
            cert = self.certifier()  # it solves the model's dual first, checked
            if cert.model_x is not None:
                self._model_result = from_dual(cert.model_x, cert.model_dual_value,
                                               _lupi_dual.__name__)
        if self._model_result is None:
            self._model_result = self._solve_lp(
                lp.c_model, lp.A[: lp.r_budget], lp.b[: lp.r_budget], lp.bounds,
                "ordinal regression LP")
        return self._model_result

    def solve_path(self, C_values, gammas=None, samples=None):
        """Solve the model for several C (and gamma), each warm-started from the last.

        Only the objective changes between the solves (the regularisation
        weights and the slack weight), so every optimal basis stays feasible
        and primal simplex restarts from it. On the dual routes (see
        :func:`choose_route`) the model takes its LP dual instead and dual
        simplex restarts from the last basis: for the plain model C bounds the
        dual's columns, for LUPI (without a probe slot) the costs are the
        dual's row bounds.

        Parameters
        ----------
        C_values : sequence of float
        gammas : sequence of float or None
            Weight of the correcting functions' L1 norm for each solve (LUPI
            only; default: the layout's ``gamma``).
        samples : array-like of int or None
            Solve the model of these samples (rows of ``X``) alone, e.g. a
            training fold, on this LP's dual with the other samples' margin
            columns held at 0 (route ``"dual_path"`` only; one dual search
            is kept for all such calls, see
            :meth:`~lupikit.relevance._dual_path.DualPath.model_path`).

        Returns
        -------
        list of ndarray or None
            Solution vectors, in the order of ``C_values``. None only with
            ``samples``, if the fold's path on this LP's dual fails (counted as
            ``"fold_path"`` in :attr:`fallbacks`): the caller then solves the
            fold as its own LP, the exact route.
        """
        lp = self.layout
        route = choose_route(lp, self.solver, "path")
        api = _highs_api()
        if samples is not None and route != "dual_path":
            raise ValueError(f"samples= needs the route 'dual_path', not {route!r}.")
        if route == "dual_path":
            if samples is None:
                path = _dual_path.DualPath(lp, api, fallbacks=self.fallbacks).model_path(
                    C_values)
            else:
                if self._fold_dual is None:
                    self._fold_dual = _dual_path.DualPath(lp, api, fallbacks=self.fallbacks)
                path = self._fold_dual.model_path(C_values, samples)
            if path is not None:
                return [lp.point(w, b) for w, b in path]
            if samples is not None:  # the caller solves the fold's own LP
                self.fallbacks["fold_path"] += 1
                return None
            self.fallbacks["model_path"] += 1  # the primal simplex below answers
        c_reg, c_loss = lp.cost_parts()
        c_w = np.zeros(lp.n_vars)
        plus, minus = lp.weight_pair_cols()
        c_w[plus[: lp.D]] = c_w[minus[: lp.D]] = 0.5
        c_v = c_reg - c_w  # 0.5 * gamma on the correcting functions' weights
        if gammas is None:
            gammas = [lp.gamma] * len(C_values)
        costs = [c_w + (g / lp.gamma) * c_v + C * c_loss for C, g in zip(C_values, gammas)]
        A, b = lp.A[: lp.r_budget], lp.b[: lp.r_budget]
        if route == "cold":  # pragma: no cover - no HiGHS classes
            return [self._solve_lp(c, A, b, lp.bounds, "ordinal regression LP").x
                    for c in costs]
        if route == "lupi_dual":
            path = _lupi_dual.model_path(lp, api, costs)
            self.fallbacks["model_path"] += sum(x is None for x in path)
            return [x if x is not None else self._solve_lp(
                        c, A, b, lp.bounds, f"ordinal regression LP (C={C})").x
                    for x, c, C in zip(path, costs, C_values)]
        return WarmPrimal(lp, api, self.fallbacks).model_path(
            costs, [f"ordinal regression LP (C={C})" for C in C_values])

    # ------------------------------------------------------------------ bounds
    def run_tasks(self, tasks, budget, progress=None, screen_below=None):
        """Solve a list of :class:`~lupikit.relevance._tasks.RelevanceTask`; return their
        values in order.

        With ``screen_below`` (on the ``"dual_path"`` route), the maxrel of a
        regular feature comes from signed searches that may stop early
        (:meth:`~lupikit.relevance._dual_path.DualPath.screen_signed`, the
        optimal model's sign first): a side stops at a certified upper bound
        below ``screen_below`` (from the optimal model's multipliers or a
        checked evaluation) once a model with that sign of the weight (or 0)
        is known, and otherwise runs to its exact maximum. If the larger of
        the two values lies below ``screen_below`` and came from a stop, it is
        returned in place of the exact maxrel and the task's target is added
        to :attr:`screened`; the minrel read off the two values stays exact
        (0 unless a side's exact maximum is negative). A caller that sets
        ``screen_below`` to the noise threshold thereby classifies every
        feature exactly.

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
        if not self._points:
            self._points.append(self.solve_model().x)
        order = sorted(range(len(tasks)),
                       key=lambda i: (tasks[i].probe is not None, tasks[i].is_lower))
        out = [None] * len(tasks)
        for i in order:
            out[i] = self._run_task(tasks[i], budget, screen_below)
            if progress is not None:
                progress.update(1)
        return out

    def _screen(self, task, budget, threshold):
        """A regular feature's maxrel, or a certified upper bound on it below
        ``threshold`` (the feature is then marked screened); None if the dual route
        cannot give it (see :meth:`run_tasks`)."""
        dual = self.dual()
        if dual is None or dual.model is None or task.probe is not None:
            return None
        dual.probe_off()
        j = task.column
        # the optimal model's sign first (for a weight of 0 the side of the likelier
        # larger maximum); the other side's search may stop below the threshold, or
        # below the first side's exact maximum if that is larger (then that is the
        # maxrel, exactly), once it also knows a feasible value >= 0 on its side
        w0 = dual.model[1][j]
        first = dual.cheaper_sign(j) if abs(w0) <= 1e-12 else float(np.sign(w0))
        v1, stopped1 = dual.screen_signed(j, first, budget, threshold)
        if v1 is None:
            return None
        v2, stopped2 = dual.screen_signed(j, -first, budget,
                                          threshold if stopped1 else max(threshold, v1))
        if v2 is None:
            return None
        # (max w_j, max -w_j), an upper bound in place of a stopped side's maximum: both
        # are >= 0 unless a side's search ran to a negative exact maximum, and min |w_j|
        # follows from them as in _run_task
        self._signed[task.target] = tuple([v1, v2][:: int(first)])
        value = max(v1, v2)
        if (stopped1 or stopped2) and value < threshold:
            self.screened.add(task.target)
        return value

    def _run_task(self, task, budget, screen_below=None):
        lp = self.layout
        kind, j, probe = task.kind, task.column, task.probe
        if kind == "min" and task.target in self._signed:
            # w_j ranges over [lo, hi] on the convex feasible set, and the two maxrel
            # LPs gave hi = max w_j and -lo = max -w_j: min |w_j| follows exactly
            hi, neg_lo = self._signed[task.target]
            return max(0.0, -min(hi, neg_lo))
        if probe is None and task.is_lower:
            if any(lp.weight(x, kind, j) <= 1e-12 for x in self._points):
                return 0.0
        if probe is not None and task.is_lower and probe.replaces is None:
            return 0.0  # appended probe: the optimal model (probe weight 0) is feasible
        if kind == "max" and screen_below is not None and probe is None:
            value = self._screen(task, budget, screen_below)
            if value is not None:
                return value
            if self.dual() is not None:  # the screening search failed: the exact one
                self.fallbacks["screening"] += 1
        if kind == "max" and task.zero_feature is None:
            value = self._max_by_dual_path(task, budget)
            if value is not None:
                return value
            if self.dual() is not None:  # the search did not close: the primal LP
                self.fallbacks["dual_search"] += 1
        return self._solve_by_primal(task, budget)

    def _max_by_dual_path(self, task, budget):
        """A regular maxrel by the parametric dual search, or None (not this route, or
        the search did not close: the primal LP settles it)."""
        dual = self.dual()
        if dual is None or dual.model is None:  # not this route, or its model failed its check
            return None
        j, probe = task.column, task.probe
        if probe is None:
            dual.probe_off()
        else:
            dual.load_probe(probe.values)
        # the larger signed maximum is max |w_j|; the other one matters only if it is
        # negative (then min |w_j| = -it > 0). So the likelier larger sign goes first
        # (the optimal model's, or for a weight of 0 the side where the loss rises
        # least), and the other search may stop once it certifies a value in
        # [0, first): then min |w_j| = 0. That value (a feasible one) is kept in
        # place of its maximum.
        w0 = 0.0 if probe is not None else dual.model[1][j]
        first = dual.cheaper_sign(j) if abs(w0) <= 1e-12 else float(np.sign(w0))
        v1 = dual.max_signed(j, first, budget)
        v2 = None if v1 is None else dual.max_signed(j, -first, budget, beat=v1)
        if v2 is None:
            return None
        signed = [v1, v2][:: int(first)]
        self._signed[task.target] = tuple(signed)
        return max(max(signed), 0.0)

    def _solve_by_primal(self, task, budget):
        """A bound by warm-started primal simplex (LUPI: with the certifier's skips)."""
        lp = self.layout
        kind, j, probe = task.kind, task.column, task.probe
        warm = self.warm()
        if probe is not None:
            lp.set_probe(probe.values, privileged=task.privileged)
            lp.set_probe_bounds(regular=not task.privileged, privileged=task.privileged)
        else:
            lp.set_probe_bounds(regular=False, privileged=False)
        bounds = lp.bounds_without(task.zero_feature)
        objectives = lp.relevance_objectives(kind, j)
        order = list(range(len(objectives)))
        cert = None
        if not task.is_lower and task.zero_feature is None and warm is not None:
            cert = self.certifier()
        if cert is not None:
            # LUPI: the cheapest direction first; every other objective is solved only
            # if a single solve of the tilted model's dual cannot rule it out
            cert.sync_probe(probe)
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
                lows = [-c @ x for x in self._points] if probe is None else [0.0]
                if point is not None and point[0] <= budget:
                    lows.append(point[1])
                low = max(lows) if lows else -np.inf
                if upper < best - 1e-9 * max(1.0, abs(best)) and (kind == "pmax" or low >= 0):
                    signed[i] = max(low, 0.0) if kind == "max" else low
                    continue
            what = f"relevance LP ({kind}, {j})"
            try:
                if warm is not None:
                    fun, x = warm.solve(c, bounds, budget, probe=probe, what=what)
                else:  # pragma: no cover - no HiGHS classes
                    res = self._solve_lp(c, lp.A, lp.rhs(budget), bounds, what)
                    fun, x = res.fun, res.x
            except LinearProgramError as exc:
                if probe is None:  # a feature's own bound: no route decided it
                    raise
                # a probe is one sample of the noise threshold: an infeasible one is
                # dropped (nan), and so is one that no route decides (cold, interior
                # point, tight tolerances), recorded in failed_probes
                if exc.status != 2:
                    self.failed_probes.add((probe.privileged, probe.index))
                return np.nan
            if probe is None:
                self._points.append(x)
            val = sign * fun
            signed[i] = val
            best = val if best is None else max(best, val)
            if cert is not None and tau is None and warm.budget_dual < -1e-12:
                tau = -1.0 / warm.budget_dual  # where this LP's frontier has its slope
        if kind == "max":
            self._signed[task.target] = tuple(signed)
        return max(best, 0.0)

    def solve_relevance(self, kind, j, budget, *, zero_feature=None):
        """One relevance bound from scratch (cold HiGHS solves): the reference."""
        lp = self.layout
        b = lp.rhs(budget)
        bounds = lp.bounds_without(zero_feature)
        best = None
        for c, sign in lp.relevance_objectives(kind, j):
            res = solve_lp(c, lp.A, b, bounds, what=f"relevance LP ({kind}, feature {j})")
            val = sign * res.fun
            if kind in ("min", "pmin"):
                return max(val, 0.0)
            best = val if best is None else max(best, val)
        return max(best, 0.0)
