"""Sequential minimal optimisation for the dual QPs of this part.

Every dual in :mod:`lupikit.twinsvm` has the form

.. math::

    \\min_z \\tfrac12 z^\\top P z + q^\\top z \\quad\\text{s.t.}\\quad
    A z = b,\\; \\ell \\le z \\le u,

with ``A`` having 0 (twin SVMs), 1 (Pin-SVM) or 2 (SVM+) rows whose columns
take only a few distinct values. Variables with the same column of ``A`` form a
*group*. A feasible direction that keeps ``A z = b`` and moves as few variables
as possible is

- one variable, when there are no equality constraints;
- two variables of the same group, in opposite directions (classic SMO pair);
- ``r + 1`` variables from ``r + 1`` different groups whose columns have a
  one-dimensional null space (with two constraints this is the
  three-variable working set of Pechyony et al., 2010).

At each iteration the solver picks, for each move type, the most violating
variables (largest decrease of the directional derivative), keeps the move with
the largest second-order gain, and performs the exact line search along it,
clipped to the box. It stops when no move has a directional derivative below
``-tol`` (a first-order KKT violation), or after ``max_iter`` iterations.
The gradient is kept up to date with one row of the cached ``P`` per moved
variable, so one iteration costs ``O(n)`` vectorised numpy work.

Periodically an active-set phase (ridge-regularised Newton steps on the free
variables; see ``polish_every`` of :func:`smo_solve`) finishes what
first-order steps do slowly: ill-conditioned or singular duals (duplicate
points, low-rank privileged kernels).

Some duals defeat both: SMO's path is very long and the Newton steps, stopped
at the first bound they meet or cut short by near-singular directions, make
no headway. Two kinds were measured (``benchmarks/bench_twinsvm.py``): the
linear-kernel SVM+ and Pin-SVM duals of standardised breast cancer (``P`` of
rank about 40 for 1138 variables; the solution moves a mass of about 500 onto
36 variables in steps limited by each coordinate's curvature ``|x_i|^2``, so
SMO needs 15 n iterations, 4 s, against cvxopt's 1 s), and SVM+ with
duplicated, discrete privileged features (digits pairs: an ill-conditioned
face of about 450 free variables; SMO stalled at 100 000 iterations). When
the work spent reaches a share of its estimated cost, an interior-point phase
(Mehrotra's predictor-corrector on the whole QP, about 12 Cholesky
factorisations, insensitive to degeneracy) solves the QP, its solution is
put exactly on the bounds it identifies (crossover), and SMO with the
active-set phase finishes from there, usually in no iteration at all. A dual
that SMO solves in a few times ``n`` iterations never reaches it.

Both phases are fast routes that can fail (a factorisation that breaks
down, a crossover that misidentifies the active bounds, rounding that leaves
an infeasible or worse point). Every result of a phase is checked before it
is kept: finite, inside the box, on ``A z = b`` to rounding, a gradient that
matches ``P z + q`` on the moved variables, and an objective no higher than
before. A phase that raises or fails a check leaves the iterate as it was
(the active-set phase is then switched off for the rest of the solve), plain
SMO finishes the solve, and the fallback is counted in the result's
``fallbacks`` (``{"interior_point": k, "active_set": k}``).

The steps (working-set selection with and without equality constraints, the
line searches, the active-set and interior-point phases) are the methods of
``_SMOState``; ``_smo_impl`` is the loop that runs them. The interior-point
solver itself is :func:`~._interior_point.interior_point`.
"""

import itertools
import warnings

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from threadpoolctl import ThreadpoolController
from sklearn.exceptions import ConvergenceWarning

from ._interior_point import interior_point, low_rank_factor

__all__ = ["smo_solve", "SMOResult"]

#: Iterations assumed for the cost estimate of the interior-point phase
#: (Mehrotra's method takes 10 to 20 on these duals).
_IPM_ITERS = 15

#: The interior-point phase runs once the work spent (SMO iterations and
#: active-set phases) reaches this share of its estimated cost.
_IPM_SHARE = 0.25

#: Floating-point operations charged per variable for one SMO iteration (its
#: O(n) vector work plus numpy's per-call overhead, as an equivalent number of
#: operations): the unit of the active-set phase's work budget.
_SMO_ITER_FLOPS_PER_VAR = 1000.0


class SMOResult(dict):
    """Result of :func:`smo_solve` (a dict with attribute access).

    Keys: ``x`` (solution), ``objective``, ``n_iter`` (SMO iterations),
    ``n_ipm_iter`` (iterations of the interior-point phase, 0 if it did not
    run), ``converged``, ``violation`` (final maximal KKT violation),
    ``trace`` (list of ``(iteration, objective, violation)``, empty unless
    requested) and ``fallbacks`` (how many times the interior-point and the
    active-set phase failed and plain SMO went on instead: a dict with the
    keys ``"interior_point"`` and ``"active_set"``).
    """

    __getattr__ = dict.__getitem__


def _move_types(columns):
    """Feasible move types for the distinct constraint columns (k, r)."""
    n_groups, r = columns.shape
    moves = []
    if r == 0:
        return [((0, 1.0),)]
    for k in range(n_groups):
        moves.append(((k, 1.0), (k, -1.0)))
    for combo in itertools.combinations(range(n_groups), r + 1):
        M = columns[list(combo)].T  # r x (r+1)
        _, s, vt = np.linalg.svd(M)
        rank = int((s > 1e-10 * max(1.0, s.max())).sum())
        if rank != r:
            continue
        null = vt[-1]
        if np.any(np.abs(null) < 1e-10):
            continue
        null = null / np.abs(null).max()
        moves.append(tuple((k, float(c)) for k, c in zip(combo, null)))
    return moves


def _box_2d(h11, h12, h22, g1, g2, l1, u1, l2, u2):
    """Exact minimiser of a 2-variable QP on a box (steps ``d1, d2``)."""
    best = (0.0, 0.0)
    best_val = 0.0

    def val(d1, d2):
        return 0.5 * (h11 * d1 * d1 + 2 * h12 * d1 * d2 + h22 * d2 * d2) + g1 * d1 + g2 * d2

    det = h11 * h22 - h12 * h12
    if det > 1e-12 * max(h11 * h22, 1e-300):
        d1 = (-h22 * g1 + h12 * g2) / det
        d2 = (h12 * g1 - h11 * g2) / det
        if l1 <= d1 <= u1 and l2 <= d2 <= u2:
            return d1, d2
    # minimum lies on the boundary: fix one coordinate at a bound
    for fix1 in (l1, u1):
        if not np.isfinite(fix1):
            continue
        d2 = -(g2 + h12 * fix1) / h22 if h22 > 1e-300 else 0.0
        d2 = min(max(d2, l2), u2)
        v = val(fix1, d2)
        if v < best_val:
            best, best_val = (fix1, d2), v
    for fix2 in (l2, u2):
        if not np.isfinite(fix2):
            continue
        d1 = -(g1 + h12 * fix2) / h11 if h11 > 1e-300 else 0.0
        d1 = min(max(d1, l1), u1)
        v = val(d1, fix2)
        if v < best_val:
            best, best_val = (d1, fix2), v
    return best


#: relative ridge ``delta / max diag(H_FF)`` of the active-set Newton systems
_RIDGE_REL = 1e-10

#: what a failing fast phase (interior point, active set) may raise: plain SMO
#: then takes over (a real error, e.g. an unbounded QP, recurs in plain SMO)
_PHASE_ERRORS = (np.linalg.LinAlgError, ValueError, ArithmeticError)


def _ridge_cholesky(H, attempts=6):
    """Cholesky factor of ``H + delta I``, ``delta = _RIDGE_REL max diag(H)``
    grown 100x after each failure; None if all ``attempts`` fail."""
    nF = H.shape[0]
    delta = _RIDGE_REL * max(float(H.diagonal().max()), 1e-300)
    for _ in range(attempts):
        R = H.copy()
        R.flat[:: nF + 1] += delta
        try:
            return cho_factor(R, lower=True, check_finite=False, overwrite_a=True)
        except np.linalg.LinAlgError:
            delta *= 100.0
    return None  # pragma: no cover - a PSD matrix plus a ridge factorises


def _snap_to_bounds(v, lo, hi, eps):
    """``v`` with the entries within ``eps`` of a bound put on it (the upper
    bound first, then the lower)."""
    v = np.where(hi - v <= eps, hi, v)
    return np.where(v - lo <= eps, lo, v)


def _project_affine_box(v, lo, hi, A, c, max_iter=50):
    """Euclidean projection of ``v`` onto ``{z : A z = c, lo <= z <= hi}``.

    The projection is ``z(nu) = clip(v - A' nu, lo, hi)`` for the ``nu``
    (``r`` numbers, ``r = A.shape[0]``) that solves ``A z(nu) = c``: the
    maximiser of the concave, piecewise-quadratic dual function
    ``L(nu) = |z(nu) - v|^2 / 2 + nu'(A z(nu) - c)``, found by semismooth
    Newton steps (Hessian ``-A_f A_f'`` over the unclipped entries ``f``,
    with a tiny ridge) and a backtracking search on ``L``. Costs ``O(n r)``
    per evaluation. Returns ``z`` (satisfying ``A z = c`` to rounding), or
    None when the Newton iteration does not reach that accuracy (the
    crossover of the interior-point phase then keeps the SMO iterate).

    >>> import numpy as np
    >>> z = _project_affine_box(np.array([2.0, 0.0, -1.0]), np.zeros(3), np.ones(3),
    ...                         np.ones((1, 3)), np.array([1.5]))
    >>> np.round(z, 12).tolist()
    [1.0, 0.5, 0.0]
    """
    r = A.shape[0]
    nu = np.zeros(r)
    absA = np.abs(A)
    c_size = float(np.abs(c).max(initial=0.0))

    def at(nu):
        w = v - A.T @ nu
        z = np.clip(w, lo, hi)
        res = A @ z - c
        d = z - v
        # rounding error of A z: relative to the sizes of its terms
        ok = np.abs(res).max() <= 1e-12 * max(1.0, c_size, float((absA @ np.abs(z)).max()))
        return w, z, res, 0.5 * float(d @ d) + float(nu @ res), ok

    w, z, res, L, ok = at(nu)
    ridge = 1e-12 * max(1.0, float((A * A).sum(axis=1).max()))
    for _ in range(max_iter):
        if ok:
            return z
        f = (w > lo) & (w < hi)
        Af = A[:, f]
        H = Af @ Af.T
        H.flat[:: r + 1] += ridge
        step = np.linalg.solve(H, res)
        slope = float(res @ step)  # dL/ds at s = 0 along nu + s step
        s = 1.0
        for _ in range(60):
            w2, z2, res2, L2, ok2 = at(nu + s * step)
            if ok2 or L2 >= L + 1e-4 * s * slope:
                break
            s *= 0.5
        else:
            return None
        nu, w, z, res, L, ok = nu + s * step, w2, z2, res2, L2, ok2
    return z if ok else None


def _prepare_problem(P, q, lo, hi, A, b, x0, partner):
    """Validate the QP and reorder its variables so that each group is contiguous.

    A *group* is the set of variables sharing one column of ``A`` (all the
    variables, in one group, without equality constraints). Returns the
    reordered ``P, q, lo, hi, A, x, partner``, the distinct ``columns`` of
    ``A`` (one row per group), the group ``bounds`` (group ``k`` is
    ``bounds[k]:bounds[k + 1]``) and ``order`` (new position ``i`` holds the
    original variable ``order[i]``).
    """
    P = np.ascontiguousarray(P, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    n = q.shape[0]
    lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), (n,)).copy()
    hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), (n,)).copy()
    if not np.all(np.isfinite(lo)):
        # the bound tolerance and the first feasible point are taken from lo
        raise ValueError("lo must be finite (hi may be inf); got a non-finite lower bound.")
    if np.any(np.isnan(hi)) or np.any(hi < lo):
        raise ValueError("hi must be at least lo (and not NaN) for every variable.")
    if A is None or np.size(A) == 0:
        A = np.zeros((0, n))
        b = np.zeros(0)
    A = np.atleast_2d(np.asarray(A, dtype=np.float64))
    b = np.atleast_1d(np.asarray(b, dtype=np.float64))
    x = np.zeros(n) if x0 is None else np.array(x0, dtype=np.float64)
    if np.any(x < lo - 1e-12) or np.any(x > hi + 1e-12):
        raise ValueError("x0 must satisfy the bounds lo <= x0 <= hi.")
    if A.shape[0] and np.abs(A @ x - b).max() > 1e-8 * max(1.0, np.abs(b).max()):
        raise ValueError("x0 must satisfy the equality constraints A x0 = b.")
    x = np.clip(x, lo, hi)

    if A.shape[0]:
        columns, inverse = np.unique(A.T.round(12), axis=0, return_inverse=True)
        inverse = inverse.ravel()
    else:
        columns, inverse = np.zeros((1, 0)), np.zeros(n, dtype=int)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(columns.shape[0] + 1))
    if not np.all(order == np.arange(n)):
        P = P[np.ix_(order, order)]
    A = A[:, order]
    if partner is not None:
        if A.shape[0]:
            raise ValueError("partner is only supported without equality constraints.")
        # partner indices refer to the original order: map them to the new one
        partner = np.asarray(partner)[order]
        where = np.empty(n, dtype=int)
        where[order] = np.arange(n)
        partner = np.where(partner >= 0, where[np.maximum(partner, 0)], -1)
    q, lo, hi, x = q[order], lo[order], hi[order], x[order]
    return P, q, lo, hi, A, x, partner, columns, bounds, order


class _SMOState:
    """The iterate of one SMO solve and the steps that move it.

    Holds the (group-ordered) QP, the iterate ``x``, its gradient
    ``g = Px + q`` and the flags ``up`` / ``down`` (``x_i`` can still
    increase / decrease, i.e. is not at its upper / lower bound up to
    ``eps_b``). Every step keeps ``g`` exact by adding the rows of ``P`` of
    the moved variables. The methods are the solver's steps:

    - :meth:`projected_gradient` and :meth:`select_variable`, the working-set
      selection without equality constraints (one variable, or the pair of
      ``partner``);
    - :meth:`select_working_set`, the selection with equality constraints
      (the best pair or ``r + 1``-tuple over the move types);
    - :meth:`single_step` / :meth:`group_step`, the exact line searches, which
      write through :meth:`commit`;
    - :meth:`polish`, the active-set phase (:meth:`release_set`,
      :meth:`subspace_step`);
    - :meth:`result`, the solution in the caller's variable order.
    """

    def __init__(self, P, q, lo, hi, A, x, *, tol, partner, columns, bounds, order):
        self.P, self.q, self.lo, self.hi, self.A, self.x = P, q, lo, hi, A, x
        self.tol = tol
        self.partner = partner
        self.columns, self.bounds, self.order = columns, bounds, order
        self.moves = _move_types(columns)
        self.n = n = q.shape[0]
        self.single = A.shape[0] == 0
        self.g = P @ x + q
        # curvature of a one-variable step, floored so that it can be divided by
        self.diag = np.maximum(np.diag(P).copy(), 1e-12)
        # a value within eps_b of a bound is at the bound (and snapped to it)
        self.eps_b = 1e-12 * np.maximum(
            1.0, np.maximum(np.abs(lo), np.where(np.isfinite(hi), np.abs(hi), 0)))
        self.up = x < hi - self.eps_b
        self.down = x > lo + self.eps_b
        self.n_iter = 0
        # floating-point operations spent by the active-set phase so far
        self.polish_work = 0.0
        # iterations of the interior-point phase (run at most once) and the
        # low-rank factor of P its Newton systems use (None: dense; looked
        # for once, when the phase may become due)
        self.ipm_iter = 0
        self.ipm_done = False
        self.low_rank = None
        self._factor_sought = False
        # fast phases that failed (their result was discarded) and whether
        # the active-set phase may still run
        self.fallbacks = {"interior_point": 0, "active_set": 0}
        self.active_set_ok = True
        if self.single:  # scratch vectors of the projected gradient
            self._g_pos = np.empty(n)
            self._work = np.empty(n)

    def objective(self):
        """``0.5 x'Px + q'x`` at the current iterate."""
        return float(0.5 * self.x @ (self.g + self.q))

    def commit(self, k, xk):
        """Set x[k] = xk, update the gradient and the bound flags of k."""
        self.g[:] += (xk - self.x[k]) * self.P[k]
        self.x[k] = xk
        self.up[k] = xk < self.hi[k] - self.eps_b[k]
        self.down[k] = xk > self.lo[k] + self.eps_b[k]

    def _snap(self, k, xk):
        """``xk`` moved onto the bound of variable ``k`` it is within ``eps_b`` of."""
        if self.hi[k] - xk <= self.eps_b[k]:
            xk = self.hi[k]
        if xk - self.lo[k] <= self.eps_b[k]:
            xk = self.lo[k]
        return xk

    # ------------------------------------------- no equality constraints
    def projected_gradient(self):
        """Largest KKT violation without equality constraints.

        Leaves ``|projected gradient|`` (how much each variable can descend
        in the direction its bounds allow) in the scratch vector used by
        :meth:`select_variable`.
        """
        g, work, g_pos = self.g, self._work, self._g_pos
        np.copyto(work, g)
        np.minimum(work, 0.0, out=g_pos)  # descent by increasing
        work[~self.down] = 0.0
        np.maximum(work, 0.0, out=work)  # descent by decreasing
        g_pos[~self.up] = 0.0
        np.subtract(work, g_pos, out=work)  # |projected gradient|
        return float(work.max())

    def select_variable(self):
        """The variable of the largest second-order gain ``g_i^2 / P_ii``
        (after :meth:`projected_gradient`)."""
        work = self._work
        np.multiply(work, work, out=work)
        np.divide(work, self.diag, out=work)
        return int(np.argmax(work))

    def single_step(self, i):
        """Exact line search on variable ``i`` (with its partner, if any)."""
        P, g, x, lo, hi, eps_b = self.P, self.g, self.x, self.lo, self.hi, self.eps_b
        partner = self.partner
        if partner is not None and partner[i] >= 0:
            j = int(partner[i])
            di, dj = _box_2d(P[i, i], P[i, j], P[j, j], g[i], g[j],
                             lo[i] - x[i], hi[i] - x[i], lo[j] - x[j], hi[j] - x[j])
            for k, dk in ((i, di), (j, dj)):
                if dk == 0.0:
                    continue
                self.commit(k, self._snap(k, x[k] + dk))
            return
        gi = g[i]
        c = -1.0 if gi > 0 else 1.0
        t = -gi * c / self.diag[i]
        t = min(t, (hi[i] - x[i]) if c > 0 else (x[i] - lo[i]))
        xi = x[i] + c * t
        if c > 0 and hi[i] - xi <= eps_b[i]:
            xi = hi[i]
        elif c < 0 and xi - lo[i] <= eps_b[i]:
            xi = lo[i]
        self.commit(i, xi)

    # ---------------------------------------------- equality constraints
    def _group_candidates(self):
        """Per group, the most violating variables: ``(i_up, g[i_up], i_down,
        g[i_down])`` for the smallest gradient among those that can increase
        and the largest among those that can decrease (None for an empty
        group; an infinite gradient marks a missing candidate)."""
        g, bounds = self.g, self.bounds
        gu = np.where(self.up, g, np.inf)
        gd = np.where(self.down, g, -np.inf)
        best = []
        for k in range(self.columns.shape[0]):
            s0, s1 = int(bounds[k]), int(bounds[k + 1])
            if s1 == s0:
                best.append(None)
                continue
            iu = s0 + int(gu[s0:s1].argmin())
            idn = s0 + int(gd[s0:s1].argmax())
            best.append((iu, float(gu[iu]), idn, float(gd[idn])))
        return best

    def _second_order_partner(self, k, i):
        """The partner in group ``k`` of the increasing variable ``i`` with the
        largest second-order gain (Fan, Chen & Lin 2005), or None."""
        g, diag = self.g, self.diag
        s0, s1 = int(self.bounds[k]), int(self.bounds[k + 1])
        bgap = g[s0:s1] - g[i]
        curv = self.P[i, s0:s1] * -2.0
        curv += diag[s0:s1]
        curv += diag[i]
        np.maximum(curv, 1e-12, out=curv)
        score = bgap * bgap
        score /= curv
        score[~(self.down[s0:s1] & (bgap > 0))] = -1.0
        jj = int(score.argmax())
        return s0 + jj if score[jj] > 0 else None

    def select_working_set(self):
        """Working set with equality constraints.

        For each move type and direction, take the most violating variable
        of each group involved; the directional derivative ``D < 0`` of the
        move gives the KKT violation ``-D``, and the move kept is the one of
        the largest second-order gain ``D^2 / kappa`` (``kappa`` its
        curvature). Returns ``(violation, choice)`` with ``choice = (W, cs,
        D, kappa)`` (the variables, their coefficients along the move, the
        derivative and the curvature), or None when no move descends.

        One iteration's cost is mostly numpy's per-call overhead: the
        candidates of all groups come from two masked copies of the
        gradient, and the curvatures from scalar entries of ``P``.
        """
        g, P = self.g, self.P
        best = self._group_candidates()
        cand_best = None
        violation = 0.0
        for move in self.moves:
            same_group = len(move) == 2 and move[0][0] == move[1][0]
            for sign in ((1.0,) if same_group else (1.0, -1.0)):
                idx = []
                cs = []
                D = 0.0
                for k, c in move:
                    bk = best[k]
                    if bk is None:
                        break
                    c = c * sign
                    i, gi = (bk[0], bk[1]) if c > 0 else (bk[2], bk[3])
                    if gi == np.inf or gi == -np.inf:
                        break
                    idx.append(i)
                    cs.append(c)
                    D += c * gi
                else:
                    if len(set(idx)) < len(idx) or D >= 0:
                        continue
                    violation = max(violation, -D)
                    if same_group:
                        j = self._second_order_partner(move[0][0], idx[0])
                        if j is not None:
                            idx[1] = j
                            D = float(g[idx[0]] - g[j])
                    # cs' P_WW cs from scalar entries, (cs' P_WW) cs as numpy would
                    kappa = 0.0
                    for b_, cb in zip(idx, cs):
                        u = 0.0
                        for a_, ca in zip(idx, cs):
                            u += ca * float(P[a_, b_])
                        kappa += u * cb
                    gain = D * D / max(kappa, 1e-12)
                    if cand_best is None or gain > cand_best[0]:
                        cand_best = (gain, idx, cs, D, kappa)
        return violation, None if cand_best is None else cand_best[1:]

    def group_step(self, W, cs, D, kappa):
        """Exact line search along the move ``x[W] += t cs``, clipped to the box."""
        x, lo, hi = self.x, self.lo, self.hi
        t = -D / kappa if kappa > 1e-12 else np.inf
        for i, c in zip(W, cs):
            room = (hi[i] - x[i]) / c if c > 0 else (x[i] - lo[i]) / (-c)
            t = min(t, room)
        if not np.isfinite(t):
            raise ValueError("the dual QP is unbounded along a feasible direction.")
        for i, c in zip(W, cs):
            self.commit(i, self._snap(i, x[i] + t * c))

    # ------------------------------------------------- active-set phase
    def subspace_step(self, F, prune=False):
        """One ridge-regularised Newton step on the variables ``F``.

        Direction: ``d = -(H_FF + delta I)^{-1}(g_F + A_F' mu)`` with ``mu``
        such that ``A_F d = 0`` and the tiny ridge ``delta = 1e-10 max diag``
        (:meth:`_face_direction`). On a nonsingular face this is the Newton
        step; along (near-)null directions of a singular dual (duplicate
        points, low-rank kernels) it is a long descent direction of zero
        curvature. The step length is the exact minimiser along ``d``, found
        by the projected search of :meth:`_projected_search` (box only) or
        clipped by the ratio test of :meth:`_ratio_test_step` (a bound is
        hit), so the objective never increases. Returns ``(moved, full,
        blocked)``: whether it moved, whether the step was the exact
        minimiser (no new bound), and the variables of ``F`` at a bound that
        the direction would push outside (then nothing moves).
        """
        PF = self.P.take(F, axis=0)  # rows of F (contiguous copies): H and the gradient update
        H = PF.take(F, axis=1)
        gF = self.g[F]
        d = self._face_direction(F, H, gF)
        if d is None:
            return False, False, None
        slope = float(gF @ d)
        if not np.isfinite(slope) or slope >= -1e-300:
            return False, False, None
        curv = float(d @ (H @ d))
        t_star = -slope / curv if curv > 1e-300 else np.inf
        xF = self.x[F]
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(d > 0, (self.hi[F] - xF) / d,
                            np.where(d < 0, (self.lo[F] - xF) / d, np.inf))
        box_only = not self.A.shape[0]
        if box_only and prune:
            # bound variables that the Newton direction pushes outwards stay
            # where they are: drop them and recompute the direction
            out = ((d < 0) & ~self.down[F]) | ((d > 0) & ~self.up[F])
            if out.any() and not out.all():
                return False, False, F[out]
        if box_only and t_star > 0:
            found = self._projected_search(F, PF, H, gF, xF, d, t_star, room)
            if found is not None:
                return found
        return self._ratio_test_step(F, PF, xF, d, t_star, room)

    def _face_direction(self, F, H, gF):
        """The ridge-Newton direction of :meth:`subspace_step` on the face
        ``F`` (``H = P_FF``, ``gF = g_F``), projected onto ``A_F d = 0``;
        None if the factorisation fails or the projection leaves more than
        rounding of ``A_F d``."""
        cf = _ridge_cholesky(H)
        if cf is None:  # pragma: no cover - a PSD matrix plus a ridge factorises
            return None
        d = -cho_solve(cf, gF, check_finite=False)
        if self.A.shape[0]:
            AF = self.A[:, F]
            Y = cho_solve(cf, AF.T, check_finite=False)
            S = AF @ Y
            mu = np.linalg.lstsq(S, AF @ d, rcond=1e-12)[0]
            d -= Y @ mu
            # S is as ill-conditioned as H: remove what rounding left of A_F d
            # (Euclidean projection onto the null space of A_F, well posed)
            d -= AF.T @ np.linalg.lstsq(AF @ AF.T, AF @ d, rcond=1e-12)[0]
            if np.abs(AF @ d).max(initial=0) > 1e-9 * max(1.0, np.abs(d).max()):
                return None
        return d

    def _projected_search(self, F, PF, H, gF, xF, d, t_star, room):
        """Box only: the projected search of :meth:`subspace_step` along
        ``clip(x + t d)``, which lets many variables reach their bounds in
        one step (projected Newton). Starts at ``t_star`` (or, at zero
        curvature, the last finite break point) and halves ``t`` until the
        objective decreases enough (at most 12 times). Returns ``(True,
        full, None)`` after the move, or None if no ``t`` did."""
        loF, hiF, epsF = self.lo[F], self.hi[F], self.eps_b[F]
        if np.isfinite(t_star):
            t = t_star
        else:  # zero curvature along d: go as far as the last finite break point
            finite = np.isfinite(room)
            t = float(room[finite].max()) if finite.any() else 1.0 / max(np.abs(d).max(), 1e-300)
        for _ in range(12):
            newF = _snap_to_bounds(np.clip(xF + t * d, loF, hiF), loF, hiF, epsF)
            step = newF - xF
            lin = float(gF @ step)
            change = lin + 0.5 * float(step @ (H @ step))
            if change < 0 and change <= 1e-4 * lin:
                self._move_face(F, PF, xF, newF)
                return True, bool(np.all((newF > loF) & (newF < hiF)) or t >= t_star), None
            t *= 0.5
        return None

    def _ratio_test_step(self, F, PF, xF, d, t_star, room):
        """The step of :meth:`subspace_step` to ``min(t_star, first bound
        met)`` along ``d`` (the variable that meets it put exactly on its
        bound). Returns ``(moved, full, blocked)``: nothing moves if a bound
        variable of ``F`` has no room along ``d`` (``blocked``)."""
        blocked = room <= 0.0
        if blocked.any():
            return False, False, F[blocked]
        k = int(np.argmin(room))
        t_max = float(room[k])
        t = min(t_star, t_max)
        if not np.isfinite(t):
            raise ValueError("the dual QP is unbounded along a feasible direction.")
        loF, hiF = self.lo[F], self.hi[F]
        newF = np.clip(xF + t * d, loF, hiF)
        if t_max <= t_star:
            newF[k] = hiF[k] if d[k] > 0 else loF[k]
        self._move_face(F, PF, xF, _snap_to_bounds(newF, loF, hiF, self.eps_b[F]))
        return True, t_star <= t_max, None

    def _move_face(self, F, PF, xF, newF):
        """Move the variables ``F`` from ``xF`` to ``newF``: the iterate, the
        gradient (by the rows ``PF`` of ``P``) and the bound flags."""
        step = newF - xF
        self.x[F] = newF
        self.g[:] += step @ PF
        self.up[F] = newF < self.hi[F] - self.eps_b[F]
        self.down[F] = newF > self.lo[F] + self.eps_b[F]

    def release_set(self):
        """Free variables plus the bound ones whose release decreases the objective."""
        A, g, tol = self.A, self.g, self.tol
        inner = self.up & self.down
        if A.shape[0]:
            I = np.flatnonzero(inner)
            if I.size == 0:
                return None
            nu = np.linalg.lstsq(A[:, I].T, -g[I], rcond=None)[0]
            ga = g + A.T @ nu
        else:
            ga = g
        rel = inner | (~self.down & (ga < -tol)) | (~self.up & (ga > tol))
        return np.flatnonzero(rel)

    def interior_point_cost(self):
        """Estimated floating-point operations of the interior-point phase:
        ``_IPM_ITERS`` iterations of one Cholesky factorisation (``n^3 / 3``),
        the solves and products (``(8 + 2r) n^2``) and numpy's per-call
        overhead (measured: about five SMO iterations, ``5 *
        _SMO_ITER_FLOPS_PER_VAR * n``, which matters only for small ``n``).
        With a rank-``k`` factor of ``P`` the factorisation is a Woodbury
        update (``n k^2``) and each solve is checked by a product with ``P``
        and refined (``(16 + 4r) n^2`` in all)."""
        n = float(self.n)
        r = self.A.shape[0]
        if self.low_rank is not None:
            k = float(self.low_rank.shape[1])
            factor, products = n * k * k, (16.0 + 4.0 * r) * n * n
        else:
            factor, products = n ** 3 / 3.0, (8.0 + 2.0 * r) * n * n
        return _IPM_ITERS * (factor + products + 5.0 * _SMO_ITER_FLOPS_PER_VAR * n)

    def interior_point_due(self):
        """Whether to run the interior-point phase now: once, when the work
        spent so far (SMO iterations and active-set phases, in the units of
        :meth:`polish_budget_left`) reaches ``_IPM_SHARE`` times its
        estimated cost. SMO then has not converged in many times ``n``
        iterations, which happens on the duals where it needs a very long
        path: low-rank (linear-kernel) duals whose solution moves a large
        mass over many variables in steps limited by the curvature of each
        coordinate, and ill-conditioned degenerate faces (duplicated
        privileged points) on which neither SMO nor the Newton steps of
        :meth:`polish` make progress. Its own work is not charged to the
        budget of :meth:`polish`, whose Newton steps after it keep the
        budget of the SMO iterations."""
        if self.ipm_done:
            return False
        spent = _SMO_ITER_FLOPS_PER_VAR * self.n * self.n_iter + self.polish_work
        if not self._factor_sought:
            # the phase costs at least its products with P, factor or not: the
            # factor is sought only once the work spent reaches that share
            n, r = float(self.n), self.A.shape[0]
            floor = _IPM_ITERS * ((8.0 + 2.0 * r) * n * n + 5.0 * _SMO_ITER_FLOPS_PER_VAR * n)
            if spent < _IPM_SHARE * floor:
                return False
            self.low_rank = low_rank_factor(self.P)
            self._factor_sought = True
        return spent >= _IPM_SHARE * self.interior_point_cost()

    def interior_point_phase(self):
        """Solve the whole QP by :func:`~._interior_point.interior_point` and
        move to its solution, made exact on the bounds (crossover).

        A variable whose bound multiplier exceeds its slack is put on that
        bound; the others are projected onto ``{A z = b, lo <= z <= hi}``
        (:func:`_project_affine_box`), so that the point is feasible to
        rounding. The point replaces the iterate only if it passes
        :meth:`acceptable` (finite, feasible to rounding, an objective no
        higher than the iterate's); SMO and the active-set phase then finish
        from it (usually at once: the interior-point solution is far more
        accurate than ``tol``). Otherwise -- or if the phase raises -- the
        iterate stays, plain SMO goes on, and ``fallbacks["interior_point"]``
        counts it.
        """
        lo, hi = self.lo, self.hi
        self.ipm_done = True
        both = np.isfinite(lo) & np.isfinite(hi)
        if np.any(hi[both] - lo[both] <= self.eps_b[both]):
            return  # a fixed variable: no interior (the phase does not apply)
        obj = self.objective()
        try:
            z = self._interior_point_candidate()
            gz = None if z is None else self.P @ z + self.q
            ok = z is not None and self.acceptable(z, gz, obj, self.x)
        except _PHASE_ERRORS:
            ok = False
        if not ok:
            self.fallbacks["interior_point"] += 1
            return
        if 0.5 * float(z @ (gz + self.q)) > obj:
            return  # as good as the iterate to rounding (SMO had nearly finished): keep it
        self.x[:] = z
        self.g[:] = gz
        self.up[:] = z < hi - self.eps_b
        self.down[:] = z > lo + self.eps_b

    def _interior_point_candidate(self):
        """The interior-point solution after crossover, or None if the
        projection onto the equality constraints failed."""
        P, q, lo, hi, A = self.P, self.q, self.lo, self.hi, self.A
        b = A @ self.x  # the equality constraints the iterate satisfies
        z, sl, wl, su, wu, it = interior_point(P, q, lo, hi, A, b, low_rank=self.low_rank)
        self.ipm_iter = it
        z, sl, wl, su, wu = (np.asarray(v, dtype=np.float64) for v in (z, sl, wl, su, wu))
        if z.shape != self.x.shape or not np.all(np.isfinite(z)):
            return None
        at_lo = np.isfinite(lo) & (wl > sl)
        at_hi = np.isfinite(hi) & (wu > su) & ~at_lo
        z = np.clip(z, lo, hi)
        z[at_lo] = lo[at_lo]
        z[at_hi] = hi[at_hi]
        if A.shape[0]:
            free = ~(at_lo | at_hi)
            zf = _project_affine_box(z[free], lo[free], hi[free], A[:, free],
                                     b - A[:, ~free] @ z[~free])
            if zf is None:
                return None
            z[free] = zf
        return z

    def acceptable(self, z, gz, objective_before, x_before, *, moved=None, slack=1e-9):
        """Whether a fast phase's point ``z`` (gradient ``gz``) may replace
        the iterate ``x_before`` of objective ``objective_before``.

        Checks that ``z`` and ``gz`` are finite, that ``z`` lies in the box
        and on the equality constraints ``x_before`` satisfies (to
        rounding), that the objective did not increase by more than
        ``slack`` (relative) and, for the rows ``moved`` (if given; a spread
        sample of 32 of them if more), that ``gz`` is ``P z + q``.
        """
        P, q, lo, hi, A = self.P, self.q, self.lo, self.hi, self.A
        if not (np.all(np.isfinite(z)) and np.all(np.isfinite(gz))):
            return False
        if np.any(z < lo) or np.any(z > hi):
            return False
        scale = float(np.abs(z).max(initial=0.0)) + 1.0
        if A.shape[0]:
            b = A @ x_before
            if np.abs(A @ z - b).max() > 1e-9 * scale * max(1.0, float(np.abs(A).max())):
                return False
        obj = 0.5 * float(z @ (gz + q))
        if not obj <= objective_before + slack * max(1.0, abs(objective_before)):
            return False
        if moved is not None and moved.size:
            if moved.size > 32:  # a spread sample of the rows: O(32 n), not O(|moved| n)
                moved = moved[np.linspace(0, moved.size - 1, 32).astype(int)]
            g_true = P[moved] @ z + q[moved]
            # the size of the terms summed (|P_ij| <= sqrt(P_ii P_jj)): the
            # rounding that the incremental gradient updates accumulate
            root = np.sqrt(self.diag)
            g_scale = (float(root[moved].max()) * float(root @ np.abs(z))
                       + float(np.abs(q).max(initial=0.0)) + 1.0)
            if np.abs(g_true - gz[moved]).max() > 1e-8 * g_scale:
                return False
        return True

    def polish_budget_left(self):
        """Whether the active-set phase may still run.

        Its Newton steps may cost, in floating-point operations, at most as
        much as the SMO iterations run so far (one iteration counted as
        ``_SMO_ITER_FLOPS_PER_VAR * n``). Where SMO converges well the phase
        stays a small add-on to it; where SMO stalls, the budget grows with
        every iteration. Counting operations rather than seconds keeps the
        solver's path deterministic.
        """
        return self.polish_work < _SMO_ITER_FLOPS_PER_VAR * self.n * max(self.n_iter, 1)

    def polish(self):
        """Active-set phase: ridge-Newton steps on the free face, releasing
        the bound variables with the wrong sign of the (multiplier-adjusted)
        gradient, until a full step leaves nothing to release (or the work
        budget is spent).

        The phase's result is checked by :meth:`acceptable` (on the moved
        variables); if it fails, or the phase raises, the iterate is put
        back as it was, the phase is switched off for the rest of the solve
        (plain SMO finishes it) and ``fallbacks["active_set"]`` counts it.
        """
        if not self.active_set_ok:
            return
        x0, g0, up0, down0 = self.x.copy(), self.g.copy(), self.up.copy(), self.down.copy()
        obj0 = self.objective()
        try:
            self._polish_steps()
            moved = np.flatnonzero(self.x != x0)
            ok = self.acceptable(self.x, self.g, obj0, x0, moved=moved)
        except _PHASE_ERRORS:
            ok = False
        if not ok:
            self.x[:], self.g[:], self.up[:], self.down[:] = x0, g0, up0, down0
            self.active_set_ok = False
            self.fallbacks["active_set"] += 1

    def _polish_steps(self):
        """The Newton steps of :meth:`polish`."""
        n = self.n
        max_steps = 10 + int(4 * np.sqrt(n))
        for _ in range(max_steps):
            if not self.polish_budget_left():
                return
            F = self.release_set()
            if F is None or F.size == 0 or F.size > 4000:
                return
            for attempt in range(5):
                moved, full, blocked = self.subspace_step(F, prune=attempt < 3)
                # cost of the step: Cholesky of H_FF, the solves and the
                # products with H_FF, and the gradient update
                m = float(F.size)
                self.polish_work += m ** 3 / 3.0 + 4.0 * m * m + m * n
                if blocked is None:
                    break
                F = np.setdiff1d(F, blocked, assume_unique=True)
                if F.size == 0:
                    return
            if not moved:
                return
            if full:
                F2 = self.release_set()
                if F2 is None or np.array_equal(F2, np.flatnonzero(self.up & self.down)):
                    return

    # ----------------------------------------------------------- result
    def result(self, *, converged, violation, trace):
        """The :class:`SMOResult`, with ``x`` in the caller's variable order."""
        x_out = np.empty(self.n)
        x_out[self.order] = self.x
        return SMOResult(
            x=x_out,
            objective=self.objective(),
            n_iter=self.n_iter,
            n_ipm_iter=self.ipm_iter,
            converged=converged,
            violation=float(violation),
            trace=trace,
            fallbacks=dict(self.fallbacks),
        )


def _smo_impl(
    P,
    q,
    lo,
    hi,
    A=None,
    b=None,
    *,
    x0=None,
    tol=1e-6,
    max_iter=None,
    trace_every=0,
    warn=True,
    partner=None,
    polish_every=None,
):
    """Minimise ``0.5 z'Pz + q'z`` s.t. ``Az = b``, ``lo <= z <= hi`` by SMO.

    The loop runs many small vector operations: it runs with BLAS limited to
    one thread, which is much faster than letting a threaded BLAS spin on
    2000-element vectors.

    Parameters
    ----------
    P : ndarray of shape (n, n)
        Symmetric positive semi-definite matrix (cached in full).
    q : ndarray of shape (n,)
    lo, hi : ndarray of shape (n,)
        Box bounds; ``hi`` may be ``inf``.
    A : ndarray of shape (r, n), default=None
        Equality constraints (``r`` in {0, 1, 2}, few distinct columns).
    b : ndarray of shape (r,), default=None
    x0 : ndarray of shape (n,), default=None
        Feasible starting point; zero if None (must then be feasible).
    tol : float, default=1e-6
        Stop when the largest first-order KKT violation is below ``tol``.
    max_iter : int, default=None
        Iteration cap; None means ``max(100_000, 50 * n)``. Reaching it
        raises a :class:`~sklearn.exceptions.ConvergenceWarning`.
    trace_every : int, default=0
        Record ``(iteration, objective, violation)`` every that many
        iterations (0: no trace).
    warn : bool, default=True
        Whether to warn on non-convergence.
    partner : ndarray of shape (n,) of int, default=None
        Without equality constraints only: ``partner[i] = j`` makes the
        selected variable ``i`` move together with ``j`` (a two-variable
        working set solved exactly on its box); -1 for none. The
        twin-SVM duals with privileged information pair ``alpha_j`` with
        ``beta_j``, whose columns of ``P`` are nearly parallel.
    polish_every : int, default=None
        Every that many iterations, run an active-set phase on top of SMO:
        Newton steps on the free variables (the ones strictly inside their
        bounds plus the bound ones whose -- multiplier-adjusted -- gradient
        says they should leave their bound), keeping ``Az = b``. Without
        equality constraints the step is a projected-Newton step (a search
        along ``clip(x + t d)``, so many bounds change at once; bound
        variables that the direction pushes outwards are dropped first);
        with them it is an exact line search stopped at the first bound
        met (ratio test). The phase repeats until a full step leaves
        nothing to release (or a step cap). SMO identifies the active
        bounds quickly but converges slowly on the free variables when
        ``P`` is ill-conditioned or singular; this phase finishes that part.
        **Tiny ridge:** the Newton systems are solved with
        ``H_FF + delta I``, ``delta = 1e-10 max diag(H_FF)`` (grown by 100x
        if Cholesky still fails), which makes them well posed on the
        singular duals of duplicate points and low-rank kernels: along a
        (near-)null direction the step becomes a long zero-curvature descent
        direction that the line search stops at a bound. The ridge only
        shapes the direction; the objective and the KKT test use the exact
        ``P``. Likewise SMO's one-, two- and three-variable steps divide by
        the curvature floored at ``1e-12``. **Budget:** the phase's Newton
        steps (counted in floating-point operations, about ``|F|^3 / 3``
        each) may cost at most as much as the SMO iterations run so far, so
        it never dominates a solve that SMO handles well. None means
        ``max(50, n // 4)`` without equality constraints and
        ``max(100, n // 2)`` with them; 0 disables it (pure SMO, without
        the interior-point phase either). **Interior-point phase:** once
        the work spent (SMO iterations, counted as above, plus the
        active-set phases) reaches ``_IPM_SHARE = 0.25`` of the estimated
        cost of an interior-point solve (``15 (n^3 / 3 + (8 + 2r) n^2 +
        5000 n)`` operations), that solve runs once on the whole QP and its
        solution, put exactly on the bounds it identifies, replaces the
        iterate if it is better; SMO finishes from it.

    Returns
    -------
    result : SMOResult

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.twinsvm import smo_solve
    >>> P = np.array([[2.0, 0.0], [0.0, 2.0]]); q = np.array([-2.0, -8.0])
    >>> res = smo_solve(P, q, np.zeros(2), np.full(2, 3.0))
    >>> np.round(res.x, 6).tolist()
    [1.0, 3.0]
    """
    P, q, lo, hi, A, x, partner, columns, bounds, order = _prepare_problem(
        P, q, lo, hi, A, b, x0, partner)
    state = _SMOState(P, q, lo, hi, A, x, tol=tol, partner=partner, columns=columns,
                      bounds=bounds, order=order)
    n = state.n
    if max_iter is None:
        max_iter = max(100_000, 50 * n)
    if polish_every is None:
        polish_every = max(50, n // 4) if state.single else max(100, n // 2)
    next_polish = polish_every if polish_every else -1
    state.ipm_done = not polish_every  # pure SMO: no interior-point phase either
    trace = []
    violation = np.inf
    converged = False
    while state.n_iter < max_iter:
        if state.interior_point_due():
            state.interior_point_phase()
            state.polish()
        if state.n_iter == next_polish:
            state.polish()
            next_polish += polish_every
        if state.single:
            violation = state.projected_gradient()
            choice = ()
        else:
            violation, choice = state.select_working_set()
        if trace_every and state.n_iter % trace_every == 0:
            trace.append((state.n_iter, state.objective(), violation))
        if violation < tol or choice is None:
            converged = True
            break
        if state.single:
            state.single_step(state.select_variable())
        else:
            state.group_step(*choice)
        state.n_iter += 1

    if not converged and warn:
        warnings.warn(
            f"SMO did not converge in max_iter={max_iter} iterations "
            f"(KKT violation {violation:.3g} > tol={tol:.3g}); increase "
            "max_iter or tol.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return state.result(converged=converged, violation=violation, trace=trace)

_CONTROLLER = None


def _blas_controller():
    # inspecting the loaded libraries costs milliseconds: do it once
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def smo_solve(P, q, lo, hi, A=None, b=None, **kwargs):  # noqa: D103
    with _blas_controller().limit(limits=1, user_api="blas"):
        return _smo_impl(P, q, lo, hi, A, b, **kwargs)


smo_solve.__doc__ = _smo_impl.__doc__
