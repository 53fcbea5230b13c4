"""Primal-dual interior-point solver of a convex QP with box and equality constraints.

:func:`interior_point` solves

.. math::

    \\min_z \\tfrac12 z^\\top P z + q^\\top z \\quad\\text{s.t.}\\quad
    A z = b,\\; \\ell \\le z \\le u

(``P`` positive semi-definite, either bound possibly infinite) by Mehrotra's
predictor-corrector method. It is the interior-point phase of
:func:`~lupikit.twinsvm.smo_solve`: about a dozen Cholesky factorisations,
insensitive to the degeneracy that makes SMO's path very long.

With slacks ``s_l = z - lo``, ``s_u = hi - z`` (finite bounds only) and
their multipliers ``w_l, w_u``, each iteration solves the Newton system of
the perturbed KKT conditions (:class:`_NewtonSystem`): one Cholesky
factorisation of ``P + diag(w_l / s_l + w_u / s_u)`` (plus a tiny ridge)
serves the predictor and the corrector, and the ``r`` equality constraints
enter by their ``r x r`` Schur complement. The iterates stay strictly
inside the box (fraction-to-the-boundary 0.99); the equality constraints
and the stationarity hold only in the limit (infeasible start).

A low-rank ``P = F F'`` (the linear-kernel duals: rank at most the number
of features plus one) is found once by a pivoted Cholesky factorisation
that stops at :data:`_MAX_RANK` columns (:func:`low_rank_factor`; LAPACK's
``?pstrf`` cannot stop early on a full-rank matrix). The Newton matrix is
then ``F F' + diag(d)`` and its solves use the Woodbury identity, ``O(n k^2)``
per factorisation instead of ``O(n^3)``; each solve is checked against the
exact ``P`` and refined, and an iteration whose solve does not reach the
accuracy of a Cholesky solve falls back to the dense factorisation, as do
all later ones (:class:`_WoodburySolver`).

The stages of an iteration are the methods of :class:`_IPMState`:
:meth:`~_IPMState.residuals` and :meth:`~_IPMState.converged` (the
stopping test), :meth:`~_IPMState.newton_system` (the factorisation),
:meth:`~_IPMState.step_lengths` (fraction to the boundary) and
:meth:`~_IPMState.predictor_corrector` (the two solves and the move).
"""

from collections import namedtuple

import numpy as np
from scipy.linalg import cho_factor, cho_solve

__all__ = ["interior_point", "low_rank_factor"]

#: the KKT residuals of an iterate: dual (stationarity) ``rd``, primal
#: (equality constraints) ``rp``, slack definitions ``rL``, ``rU``, the
#: complementarity gap and ``|objective|``
_Residuals = namedtuple("_Residuals", "rd rp rL rU gap obj")

#: a Newton direction: primal ``dz``, equality multipliers ``dy``, slacks
#: ``dsl``, ``dsu`` and bound multipliers ``dwl``, ``dwu``
_Direction = namedtuple("_Direction", "dz dy dsl dsu dwl dwu")


def interior_point(P, q, lo, hi, A, b, *, max_iter=80, rtol=1e-11, low_rank="auto"):
    """Solve a box- and equality-constrained convex QP by Mehrotra's method.

    Minimises ``0.5 z'Pz + q'z`` s.t. ``A z = b``, ``lo <= z <= hi`` (the
    Newton system and the stages of an iteration: see the module docstring).

    Parameters
    ----------
    P : ndarray of shape (n, n)
        Symmetric positive semi-definite matrix.
    q, lo, hi : ndarray of shape (n,)
        Linear term and box bounds (either bound may be infinite).
    A : ndarray of shape (r, n)
        Equality constraints (``r`` may be 0).
    b : ndarray of shape (r,)
    max_iter : int, default=80
    rtol : float, default=1e-11
        Stop when the complementarity gap and the residuals are below
        ``rtol`` times the problem's scale.
    low_rank : "auto", ndarray of shape (n, k) or None, default="auto"
        ``F`` with ``P = F F'`` to rounding, whose Newton systems are solved
        by the Woodbury identity; "auto" looks for one
        (:func:`low_rank_factor`), None uses dense factorisations.

    Returns
    -------
    z, s_l, w_l, s_u, w_u : ndarray of shape (n,)
        The solution (strictly inside the box, on ``A z = b`` to ``rtol``),
        the slacks ``z - lo``, ``hi - z`` and the bound multipliers (0 where
        the bound is infinite).
    n_iter : int
        Newton systems solved.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.twinsvm._interior_point import interior_point
    >>> P, q, inf = np.eye(2), np.array([-2.0, 1.0]), np.inf
    >>> z = interior_point(P, q, np.zeros(2), np.ones(2), np.ones((1, 2)), np.ones(1))[0]
    >>> np.round(z, 6).tolist()
    [1.0, 0.0]
    >>> z, s_l, w_l, s_u, w_u, n_iter = interior_point(  # no upper bounds, no A
    ...     P, q, np.zeros(2), np.full(2, inf), np.zeros((0, 2)), np.zeros(0))
    >>> np.round(z, 6).tolist(), np.round(w_l, 6).tolist(), w_u.tolist()
    ([2.0, 0.0], [0.0, 1.0], [0.0, 0.0])
    """
    state = _IPMState(P, q, lo, hi, A, b, low_rank)
    it = 0
    for it in range(1, max_iter + 1):
        res = state.residuals()
        if state.converged(res, rtol):
            it -= 1
            break
        if not state.iterate(res):  # pragma: no cover - a PSD matrix plus a ridge factorises
            break
    return state.z, state.sl, state.wl, state.su, state.wu, it


class _InexactSolve(Exception):
    """A Woodbury solve that missed the accuracy of a Cholesky solve."""


def _longest_step(v, dv):
    """The longest step ``a <= 1`` that keeps ``v + a dv >= 0``."""
    neg = dv < 0
    return min(1.0, float((-v[neg] / dv[neg]).min())) if neg.any() else 1.0


#: the largest rank of ``P`` solved by the Woodbury identity (and the
#: smallest ``n`` for which a low-rank factor is looked for: below it a dense
#: factorisation costs less than the bookkeeping)
_MAX_RANK = 200
_MIN_LOW_RANK_N = 400

#: a Woodbury solve is accepted when, row by row, ``|r - M x|`` is below
#: this times ``|r| + ||M_i||_1 ||x||_inf`` after at most ``_REFINE``
#: refinement steps: about the backward error of a Cholesky solve
#: (``c n eps ||M|| ||x||``) at the sizes of the duals (a few thousand
#: variables), and stricter for larger ones, where a refused solve costs
#: time (the dense factorisation), never accuracy
_SOLVE_RTOL = 1e-12
_REFINE = 3


def low_rank_factor(P):
    """``F`` with ``P = F F'`` to rounding if ``P`` has ``n >=``
    :data:`_MIN_LOW_RANK_N` rows and rank at most ``min(`` :data:`_MAX_RANK`
    ``, n / 4)``, else None (:func:`_low_rank_factor`)."""
    n = P.shape[0]
    return _low_rank_factor(P, min(_MAX_RANK, n // 4)) if n >= _MIN_LOW_RANK_N else None


def _low_rank_factor(P, max_rank, rtol=1e-14):
    """``F`` of shape ``(n, k)`` with ``P = F F'`` to rounding, or None.

    Pivoted (partial) Cholesky factorisation: each step takes the largest
    remaining diagonal entry as pivot and reads one column of ``P``; it
    stops when the remaining diagonal is below ``rtol`` times the largest
    diagonal entry of ``P`` (then the remainder ``P - F F'``, positive
    semi-definite, has no entry above that) and gives up (None) after
    ``max_rank`` columns. The cost is ``O(n k^2)``, not ``O(n^3)``.
    """
    n = P.shape[0]
    d = np.array(P.diagonal(), dtype=np.float64)
    thresh = rtol * max(float(d.max(initial=0.0)), 0.0)
    F = np.zeros((n, max_rank))
    for j in range(max_rank + 1):
        i = int(np.argmax(d))
        if d[i] <= thresh:
            return F[:, :j]
        if j == max_rank:
            return None
        col = P[i] - F[:, :j] @ F[i, :j]  # row i: column i of the symmetric P, contiguous
        col /= np.sqrt(d[i])
        F[:, j] = col
        d -= col * col
        d[i] = 0.0
    return None  # pragma: no cover - the loop returns


class _DenseSolver:
    """Solves with the Cholesky factor ``cf`` of the Newton matrix."""

    def __init__(self, cf):
        self.cf = cf

    def solve(self, R):
        return cho_solve(self.cf, R, check_finite=False)


class _WoodburySolver:
    """Solves ``(P + diag(d)) x = r`` with ``P = F F'`` to rounding
    (``P_row_norm``: the 1-norms of the rows of ``P``).

    The Woodbury identity gives ``(F F' + D)^{-1} = D^{-1} - D^{-1} F C^{-1}
    F' D^{-1}`` with the ``k x k`` capacitance ``C = I + F' D^{-1} F``. That
    solve is exact for ``F F' + D``; it is checked against the exact ``P``
    (one product with ``P``) and refined; :meth:`solve` returns None when
    the residual does not fall below the tolerance of a Cholesky solve
    (``d`` spanning too many orders of magnitude for the identity).
    """

    def __init__(self, P, F, d, P_row_norm):
        self.P, self.F, self.d = P, F, d
        self.row_norm = P_row_norm + np.abs(d)
        self.DF = F / d[:, None]
        C = F.T @ self.DF
        C.flat[:: C.shape[0] + 1] += 1.0
        try:
            self.cC = cho_factor(C, lower=True, check_finite=False)
        except np.linalg.LinAlgError:  # I + F'D^{-1}F is SPD: only rounding fails it
            raise _InexactSolve from None

    def _apply(self, R):
        d = self.d if R.ndim == 1 else self.d[:, None]
        DR = R / d
        return DR - self.DF @ cho_solve(self.cC, self.F.T @ DR, check_finite=False)

    def solve(self, R):
        X = self._apply(R)
        d = self.d if R.ndim == 1 else self.d[:, None]
        row_norm = self.row_norm if R.ndim == 1 else self.row_norm[:, None]
        for step in range(_REFINE + 1):
            E = R - (self.P @ X + d * X)
            bound = np.abs(R) + row_norm * np.abs(X).max(axis=0)
            if np.all(np.abs(E) <= _SOLVE_RTOL * bound):
                return X
            if step < _REFINE:
                X = X + self._apply(E)
        return None


def _newton_cholesky(P, D, ridge, attempts=8):
    """Cholesky factor of ``P + diag(D) + delta I``, ``delta`` starting at
    ``ridge`` and grown 100x after each failure; None if all ``attempts``
    fail."""
    n = P.shape[0]
    delta = ridge
    for _ in range(attempts):
        M = P.copy()
        M.flat[:: n + 1] += D + delta
        try:
            return cho_factor(M, lower=True, check_finite=False, overwrite_a=True)
        except np.linalg.LinAlgError:
            delta *= 100.0
    return None  # pragma: no cover - a PSD matrix plus a ridge factorises


class _NewtonSystem:
    """The Newton system of one iteration, factorised once for the predictor
    and the corrector.

    ``solver`` solves with ``P + diag(w_l / s_l + w_u / s_u)`` (plus a
    ridge): a :class:`_DenseSolver` or a :class:`_WoodburySolver`, whose
    failed solve raises :class:`_InexactSolve`; ``res`` the residuals of the iterate, ``sl_d``, ``su_d``
    the division-safe slacks (1 where the bound is infinite). With equality
    constraints ``Y = M^{-1} A'`` and the Schur complement ``S = A Y``.
    """

    def __init__(self, state, res, solver, sl_d, su_d):
        self.A, self.wl, self.wu, self.L, self.U = state.A, state.wl, state.wu, state.L, state.U
        self.res, self.solver, self.sl_d, self.su_d = res, solver, sl_d, su_d
        A = self.A
        if A.shape[0]:
            self.Y = self._solve(np.ascontiguousarray(A.T))
            self.S = A @ self.Y

    def _solve(self, R):
        X = self.solver.solve(R)
        if X is None:
            raise _InexactSolve
        return X

    def solve(self, rcl, rcu):
        """The direction for the complementarity right-hand sides ``rcl``,
        ``rcu`` (the targets of ``s_l w_l`` and ``s_u w_u``)."""
        res, wl, wu, sl_d, su_d = self.res, self.wl, self.wu, self.sl_d, self.su_d
        rhs = -res.rd + (rcl - wl * res.rL) / sl_d - (rcu - wu * res.rU) / su_d
        dz = self._solve(rhs)
        if self.A.shape[0]:
            dy = np.linalg.lstsq(self.S, self.A @ dz + res.rp, rcond=1e-14)[0]
            dz -= self.Y @ dy
        else:
            dy = np.zeros(0)
        dsl = np.where(self.L, dz + res.rL, 0.0)
        dsu = np.where(self.U, res.rU - dz, 0.0)
        dwl = np.where(self.L, (rcl - wl * dsl) / sl_d, 0.0)
        dwu = np.where(self.U, (rcu - wu * dsu) / su_d, 0.0)
        return _Direction(dz, dy, dsl, dsu, dwl, dwu)


class _IPMState:
    """The iterate of :func:`interior_point` (``z``, slacks ``sl``, ``su``,
    bound multipliers ``wl``, ``wu``, equality multipliers ``y``), the
    problem and its scales; the methods are the stages of an iteration.

    The start is the middle of each finite box (1 inside a one-sided bound,
    0 if unbounded), with unit multipliers on the finite bounds.
    """

    def __init__(self, P, q, lo, hi, A, b, low_rank="auto"):
        self.P, self.q, self.A, self.b = P, q, A, b
        self.L, self.U = L, U = np.isfinite(lo), np.isfinite(hi)
        self.m = max(int(L.sum() + U.sum()), 1)
        self.loL, self.hiU = loL, hiU = np.where(L, lo, 0.0), np.where(U, hi, 0.0)
        self.z = z = np.where(L & U, 0.5 * (loL + hiU),
                              np.where(L, lo + 1.0, np.where(U, hi - 1.0, 0.0)))
        self.sl = np.where(L, z - loL, 0.0)
        self.su = np.where(U, hiU - z, 0.0)
        self.wl, self.wu = L.astype(float), U.astype(float)
        # division-safe slacks (1 where the bound is infinite: those entries of
        # the multipliers stay 0)
        self.one_l, self.one_u = np.where(L, 0.0, 1.0), np.where(U, 0.0, 1.0)
        self.y = np.zeros(A.shape[0])
        self.scale = max(1.0, float(np.abs(q).max(initial=0.0)),
                         float(np.abs(np.diag(P)).max()))
        self.ridge = 1e-13 * self.scale
        self.b_scale = max(1.0, float(np.abs(b).max(initial=0.0)))
        #: ``F`` with ``P = F F'`` (None: dense factorisations) and the
        #: iterations that fell back from it to the dense factorisation
        if isinstance(low_rank, str) and low_rank != "auto":
            raise ValueError(f"low_rank={low_rank!r} must be 'auto', a factor F or None.")
        self.F = low_rank_factor(P) if isinstance(low_rank, str) else low_rank
        self.low_rank_fallbacks = 0
        self.P_row_norm = None if self.F is None else np.abs(P).sum(axis=1)

    def iterate(self, res):
        """One Newton iteration from the residuals ``res`` (False if the
        Newton matrix does not factorise). A Woodbury solve that misses the
        accuracy of a Cholesky solve sends this iteration and all later ones
        to the dense factorisation."""
        try:
            system = self.newton_system(res)
            if system is not None:
                self.predictor_corrector(system, res.gap / self.m)
            return system is not None
        except _InexactSolve:
            self.F = None
            self.low_rank_fallbacks += 1
            return self.iterate(res)

    def residuals(self):
        """The :data:`_Residuals` of the KKT conditions at the iterate."""
        z, L, U = self.z, self.L, self.U
        Pz = self.P @ z
        rd = Pz + self.q + self.A.T @ self.y - self.wl + self.wu
        rp = self.A @ z - self.b
        rL = np.where(L, z - self.loL - self.sl, 0.0)
        rU = np.where(U, self.hiU - z - self.su, 0.0)
        gap = float(self.sl @ self.wl + self.su @ self.wu)
        obj = abs(0.5 * float(z @ Pz) + float(self.q @ z))
        return _Residuals(rd, rp, rL, rU, gap, obj)

    def converged(self, res, rtol):
        """The stopping test: the gap below ``rtol`` relative to the
        objective, the residuals below ``10 rtol`` relative to the scales of
        ``P, q`` (stationarity) and of ``b`` (feasibility)."""
        scale, b_scale = self.scale, self.b_scale
        return bool(res.gap <= rtol * max(1.0, res.obj)
                    and np.abs(res.rd).max() <= rtol * scale * 10
                    and np.abs(res.rp).max(initial=0.0) <= rtol * b_scale * 10
                    and max(np.abs(res.rL).max(), np.abs(res.rU).max()) <= rtol * b_scale * 10)

    def newton_system(self, res):
        """The factorised :class:`_NewtonSystem` at the iterate (None if the
        dense factorisation fails), by the Woodbury identity when ``P`` has
        a low-rank factor."""
        sl_d, su_d = self.sl + self.one_l, self.su + self.one_u
        D = self.wl / sl_d + self.wu / su_d
        if self.F is not None:
            return _NewtonSystem(self, res, _WoodburySolver(
                self.P, self.F, D + self.ridge, self.P_row_norm), sl_d, su_d)
        cf = _newton_cholesky(self.P, D, self.ridge)
        if cf is None:  # pragma: no cover - a PSD matrix plus a ridge factorises
            return None
        return _NewtonSystem(self, res, _DenseSolver(cf), sl_d, su_d)

    def step_lengths(self, d):
        """The longest primal and dual steps (at most 1) along ``d`` that keep
        the slacks and the bound multipliers nonnegative."""
        ap = min(_longest_step(self.sl, d.dsl), _longest_step(self.su, d.dsu))
        ad = min(_longest_step(self.wl, d.dwl), _longest_step(self.wu, d.dwu))
        return ap, ad

    def predictor_corrector(self, system, mu):
        """One iteration from the complementarity ``mu``: the predictor (affine
        scaling) direction sets the centring ``sigma``, and the iterate moves
        along Mehrotra's corrector, 0.99 of the way to the boundary."""
        sl, su, wl, wu, L, U = self.sl, self.su, self.wl, self.wu, self.L, self.U
        d = system.solve(-sl * wl, -su * wu)
        ap, ad = self.step_lengths(d)
        mu_aff = float((sl + ap * d.dsl) @ (wl + ad * d.dwl)
                       + (su + ap * d.dsu) @ (wu + ad * d.dwu)) / self.m
        sigma = min(1.0, (mu_aff / max(mu, 1e-300)) ** 3)
        rcl = np.where(L, sigma * mu - sl * wl - d.dsl * d.dwl, 0.0)
        rcu = np.where(U, sigma * mu - su * wu - d.dsu * d.dwu, 0.0)
        d = system.solve(rcl, rcu)
        ap, ad = self.step_lengths(d)
        ap, ad = 0.99 * ap, 0.99 * ad
        self.z += ap * d.dz
        self.sl += ap * d.dsl
        self.su += ap * d.dsu
        self.y += ad * d.dy
        self.wl += ad * d.dwl
        self.wu += ad * d.dwu
