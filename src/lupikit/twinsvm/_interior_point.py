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

The stages of an iteration are the methods of :class:`_IPMState`:
:meth:`~_IPMState.residuals` and :meth:`~_IPMState.converged` (the
stopping test), :meth:`~_IPMState.newton_system` (the factorisation),
:meth:`~_IPMState.step_lengths` (fraction to the boundary) and
:meth:`~_IPMState.predictor_corrector` (the two solves and the move).
"""

from collections import namedtuple

import numpy as np
from scipy.linalg import cho_factor, cho_solve

__all__ = ["interior_point"]

#: the KKT residuals of an iterate: dual (stationarity) ``rd``, primal
#: (equality constraints) ``rp``, slack definitions ``rL``, ``rU``, the
#: complementarity gap and ``|objective|``
_Residuals = namedtuple("_Residuals", "rd rp rL rU gap obj")

#: a Newton direction: primal ``dz``, equality multipliers ``dy``, slacks
#: ``dsl``, ``dsu`` and bound multipliers ``dwl``, ``dwu``
_Direction = namedtuple("_Direction", "dz dy dsl dsu dwl dwu")


def interior_point(P, q, lo, hi, A, b, *, max_iter=80, rtol=1e-11):
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
    state = _IPMState(P, q, lo, hi, A, b)
    it = 0
    for it in range(1, max_iter + 1):
        res = state.residuals()
        if state.converged(res, rtol):
            it -= 1
            break
        system = state.newton_system(res)
        if system is None:  # pragma: no cover - a PSD matrix plus a ridge factorises
            break
        state.predictor_corrector(system, res.gap / state.m)
    return state.z, state.sl, state.wl, state.su, state.wu, it


def _longest_step(v, dv):
    """The longest step ``a <= 1`` that keeps ``v + a dv >= 0``."""
    neg = dv < 0
    return min(1.0, float((-v[neg] / dv[neg]).min())) if neg.any() else 1.0


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

    ``cf`` is the Cholesky factor of ``P + diag(w_l / s_l + w_u / s_u)``
    (plus a ridge), ``res`` the residuals of the iterate, ``sl_d``, ``su_d``
    the division-safe slacks (1 where the bound is infinite). With equality
    constraints ``Y = cf^{-1} A'`` and the Schur complement ``S = A Y``.
    """

    def __init__(self, state, res, cf, sl_d, su_d):
        self.A, self.wl, self.wu, self.L, self.U = state.A, state.wl, state.wu, state.L, state.U
        self.res, self.cf, self.sl_d, self.su_d = res, cf, sl_d, su_d
        A = self.A
        if A.shape[0]:
            self.Y = cho_solve(cf, A.T, check_finite=False)
            self.S = A @ self.Y

    def solve(self, rcl, rcu):
        """The direction for the complementarity right-hand sides ``rcl``,
        ``rcu`` (the targets of ``s_l w_l`` and ``s_u w_u``)."""
        res, wl, wu, sl_d, su_d = self.res, self.wl, self.wu, self.sl_d, self.su_d
        rhs = -res.rd + (rcl - wl * res.rL) / sl_d - (rcu - wu * res.rU) / su_d
        dz = cho_solve(self.cf, rhs, check_finite=False)
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

    def __init__(self, P, q, lo, hi, A, b):
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
        factorisation fails)."""
        sl_d, su_d = self.sl + self.one_l, self.su + self.one_u
        cf = _newton_cholesky(self.P, self.wl / sl_d + self.wu / su_d, self.ridge)
        if cf is None:  # pragma: no cover - a PSD matrix plus a ridge factorises
            return None
        return _NewtonSystem(self, res, cf, sl_d, su_d)

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
