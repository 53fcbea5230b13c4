"""Dual QPs in standard form and the two solvers (``"smo"``, ``"cvxopt"``).

A :class:`DualQP` holds ``min 0.5 z'Pz + q'z + constant`` s.t. ``A z = b``,
``lo <= z <= hi``. :func:`solve_dual` solves it with either solver and returns
the solution together with the multipliers of the equality constraints (the
intercepts of SVM+ and Pin-SVM), found from the KKT conditions by a tiny
linear programme (HiGHS) that minimises the largest KKT violation (centred
where that leaves them free), given which variables are at a bound: exactly
on it for SMO, and, for cvxopt's interior-point solution, where the bound's
multiplier exceeds the slack.

Where free variables pin the multipliers down, the LP's answer (accurate to
HiGHS' tolerance) is finished by least squares on them, exact to rounding.
Both solvers work on the QP shifted to its ``center`` when it has one (the
privileged duals; see :class:`DualQP`).

Fast routes fall back to exact ones, and every fallback is counted in the
solved QP's ``fallbacks`` dict (``FALLBACK_KEYS``): SMO's interior-point
and active-set phases (``"interior_point"``, ``"active_set"``; plain SMO goes
on), a cvxopt solve that raises or stalls without an optimal status
(``"cvxopt"``; SMO solves the QP instead, from cvxopt's point when it has
one), the Newton steps on the free face of a polish (``"face_newton"``; the
point before them stays), a warm start of SMO whose point cannot be made
feasible (``"warm_start"``; SMO starts from ``x0``) and a solution whose
recovered primal fails its certificate (``"polish"``; :func:`refine_dual`
re-solves the QP from the solution at a tighter tolerance, see
:func:`certificate_failures`).
"""

import time
import warnings

import numpy as np
from scipy.linalg import lstsq
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning

from ._smo import _project_affine_box, smo_solve

__all__ = ["DualQP", "solve_dual", "cvxopt_solve", "equality_multipliers", "refine_dual",
           "kkt_violation", "certificate_failures", "rounding_floor", "FALLBACK_KEYS"]

SOLVERS = ("smo", "cvxopt")

#: the fast routes whose failures are counted (the keys of ``qp["fallbacks"]``
#: and of the estimators' ``fallbacks_``)
FALLBACK_KEYS = ("interior_point", "active_set", "face_newton", "cvxopt", "warm_start", "polish")

#: the face-Newton step of :func:`refine_dual` runs on at most this many free variables
_FACE_MAX = 2500

#: the smallest tolerance a certificate applies (machine precision times a margin)
_CERT_FLOOR = 64 * np.finfo(np.float64).eps

#: safety factor of the rounding estimates of :func:`rounding_floor`
_ROUNDING_FACTOR = 16.0


def no_fallbacks():
    """A ``fallbacks`` dict with every count at 0."""
    return dict.fromkeys(FALLBACK_KEYS, 0)


def _add_fallbacks(total, more):
    for key, count in (more or {}).items():
        total[key] = total.get(key, 0) + int(count)
    return total


class DualQP(dict):
    """A dual QP ``min 0.5 z'Pz + q'z + constant``, ``Az = b``, ``lo <= z <= hi``.

    A dict with attribute access and the keys ``P``, ``q``, ``A``, ``b``,
    ``lo``, ``hi``, ``constant``, ``x0`` (a feasible start), ``center``
    (None or a point ``c``, see below) and, after solving, ``x``,
    ``objective`` (including ``constant``), ``n_iter``, ``solve_time``,
    ``solver``, ``converged`` and ``fallbacks``.

    **Center.** The privileged duals carry large terms that cancel at the
    solution: ``1/(2 gamma)(a + b - Ce)'Q*(a + b - Ce)`` expands into
    ``z'Pz``, ``q'z`` and ``constant`` of size ``C^2 / gamma`` whose sum is
    small, so that the gradient ``Pz + q`` and the objective lose as many
    digits as ``C / gamma`` has (a duality gap of 1e-6 then cannot be
    certified), and cvxopt's stopping test, relative to the norms of ``q``
    and ``constant``, is as much looser. The builder of such a QP gives a
    point ``c`` at which the
    large terms vanish with the exact gradient ``q_center = q + Pc`` and
    value ``constant_center`` there; the solvers then work in ``z - c``
    (``0.5 (z-c)'P(z-c) + q_center'(z-c) + constant_center``), and
    :meth:`value` and :meth:`gradient` evaluate that form.

    **Compact form.** ``P`` is the only entry whose size grows with the
    square of the number of variables. The QPs a fitted estimator keeps
    hold no ``P`` (see :meth:`drop_matrix`): it is rebuilt from the
    training data when first read (``qp["P"]``, :meth:`value`,
    :meth:`gradient`), kept in memory from then on, and never pickled.
    """

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __missing__(self, key):
        rebuild = self.__dict__.get("_rebuild_matrix")
        if key != "P" or rebuild is None:
            raise KeyError(key)
        P = self.__dict__.get("_matrix")
        if P is None:
            P = rebuild()
            P.flags.writeable = False
            self.__dict__["_matrix"] = P
        return P

    def __contains__(self, key):
        return dict.__contains__(self, key) or (
            key == "P" and self.__dict__.get("_rebuild_matrix") is not None)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __getstate__(self):
        # the rebuilt P stays out of pickles (it is rebuilt after loading)
        return {k: v for k, v in self.__dict__.items() if k != "_matrix"}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def drop_matrix(self, rebuild):
        """Drop ``P``, which ``rebuild()`` recomputes when it is next read.

        Parameters
        ----------
        rebuild : callable
            Returns ``P`` (a picklable callable: it is stored with the QP).

        Returns
        -------
        self : DualQP
        """
        self.pop("P", None)
        self.__dict__.pop("_matrix", None)
        self.__dict__["_rebuild_matrix"] = rebuild
        return self

    def _centered(self, z):
        z = np.asarray(z, dtype=np.float64)
        c = self.get("center")
        if c is None:
            return z, self["q"], self["constant"]
        return z - c, self["q_center"], self["constant_center"]

    def value(self, z):
        """Objective ``0.5 z'Pz + q'z + constant`` at ``z``."""
        u, q, constant = self._centered(z)
        return float(0.5 * u @ self["P"] @ u + q @ u + constant)

    def gradient(self, z):
        """Gradient ``Pz + q`` at ``z``."""
        u, q, _ = self._centered(z)
        return self["P"] @ u + q

    def shifted(self):
        """The QP in ``u = z - center``: ``(P, q, lo, hi, A, b, x0, center)``
        (``center`` is zero without one)."""
        c = self.get("center")
        if c is None:
            c = np.zeros(self["q"].size)
            q = self["q"]
        else:
            q = self["q_center"]
        return (self["P"], q, self["lo"] - c, self["hi"] - c, self["A"],
                self["b"] - self["A"] @ c, self["x0"] - c, c)


def qp_matrix(P, assume_symmetric=False):
    """``P`` as :func:`make_qp` stores it: float64, C-contiguous, symmetrised
    (``(P + P')/2``) unless ``assume_symmetric``."""
    P = np.asarray(P, dtype=np.float64)
    if not assume_symmetric:
        P = 0.5 * (P + P.T)
    return np.ascontiguousarray(P)


def make_qp(P, q, lo, hi, A=None, b=None, constant=0.0, x0=None, *, assume_symmetric=False,
            center=None, q_center=None, constant_center=None):
    """A :class:`DualQP`; ``P`` is symmetrised unless ``assume_symmetric``
    (for matrices built exactly symmetric, which saves a dense copy).
    ``center``, ``q_center`` (the gradient there) and ``constant_center``
    (the value there) give the centred form (see :class:`DualQP`); they
    must be computed without the cancellation they avoid."""
    n = len(q)
    if A is None:
        A, b = np.zeros((0, n)), np.zeros(0)
    qp = DualQP(
        P=qp_matrix(P, assume_symmetric),
        q=np.asarray(q, dtype=np.float64),
        A=np.atleast_2d(np.asarray(A, dtype=np.float64)).reshape(-1, n),
        b=np.atleast_1d(np.asarray(b, dtype=np.float64)),
        lo=np.broadcast_to(np.asarray(lo, dtype=np.float64), (n,)).copy(),
        hi=np.broadcast_to(np.asarray(hi, dtype=np.float64), (n,)).copy(),
        constant=float(constant),
        x0=np.zeros(n) if x0 is None else np.asarray(x0, dtype=np.float64),
        center=None,
    )
    if center is not None:
        c = np.asarray(center, dtype=np.float64)
        qp["center"] = c
        qp["q_center"] = (qp["q"] + qp["P"] @ c if q_center is None
                          else np.asarray(q_center, dtype=np.float64))
        qp["constant_center"] = (qp["constant"] + float(qp["q"] @ c)
                                 + 0.5 * float(c @ qp["P"] @ c)
                                 if constant_center is None else float(constant_center))
    return qp


def cvxopt_solve(P, q, lo, hi, A=None, b=None, *, tol=1e-9, max_iter=200, return_duals=False,
                 warn=True):
    """Solve the QP with cvxopt's interior-point ``solvers.qp``.

    Parameters
    ----------
    P, q, lo, hi, A, b : see :class:`DualQP`.
    tol : float, default=1e-9
        Used for cvxopt's ``abstol``, ``reltol`` and ``feastol``.
    max_iter : int, default=200
    return_duals : bool, default=False
        Also return the multipliers of the bounds.
    warn : bool, default=True
        Warn (:class:`~sklearn.exceptions.ConvergenceWarning`) when cvxopt
        stops without an optimal status.

    Returns
    -------
    x : ndarray
    n_iter : int
    duals : dict, only if ``return_duals``
        ``"lower"`` and ``"upper"``: the multipliers (>= 0) of ``x >= lo``
        and ``x <= hi`` (0 where the bound is infinite); ``"equality"``:
        those of ``A x = b`` (the sign convention of
        ``lupikit.twinsvm._qp.equality_multipliers``).
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
    if warn and sol["status"] != "optimal":
        warnings.warn(
            f"cvxopt stopped with status {sol['status']!r} after "
            f"{sol['iterations']} iterations (max_iter={max_iter}).",
            ConvergenceWarning,
            stacklevel=2,
        )
    x = np.array(sol["x"]).ravel()
    if not return_duals:
        return np.clip(x, lo, hi), int(sol["iterations"])
    z = np.array(sol["z"]).ravel()
    lower, upper = np.zeros(n), np.zeros(n)
    lower[fin_lo] = z[: fin_lo.sum()]
    upper[fin_hi] = z[fin_lo.sum():]
    y = np.array(sol["y"]).ravel() if len(args) > 4 else np.zeros(0)
    duals = {"lower": lower, "upper": upper, "equality": y, "status": sol["status"]}
    return np.clip(x, lo, hi), int(sol["iterations"]), duals


def equality_multipliers(qp, x, *, rtol=1e-8, at_lo=None, at_hi=None):
    """Multipliers ``nu`` of ``A z = b`` from the KKT conditions at ``x``.

    At a solution, ``g = Pz + q`` satisfies ``g_i + a_i'nu = 0`` for free
    variables, ``>= 0`` at the lower bound and ``<= 0`` at the upper bound.
    We pick the ``nu`` minimising the largest violation (an LP solved with
    HiGHS); with free variables present it equals their common value. Where
    that leaves ``nu`` free along some direction (no free variable pins it
    down: the intercept of an SVM without free support vectors), a second
    LP centres it: it maximises the smallest slack of the bound variables'
    inequalities, which for one constraint is the middle of the admissible
    interval (as libsvm does for ``b``).

    Which variables are at a bound decides the result. By default a
    variable within ``rtol`` (relative) of a bound is at it, right for
    SMO's iterates, which are exactly on their bounds; an interior-point
    solution has its bound variables only near them (``1e-6`` away is not
    rare), and taking those as free forces ``g_i + a_i'nu = 0`` on them and
    shifts ``nu``. Pass ``at_lo`` / ``at_hi`` (boolean arrays) to give the
    classification instead; :func:`solve_dual` does so for cvxopt, from its
    bound multipliers (at a bound where the multiplier exceeds the slack).

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
    if at_lo is None or at_hi is None:
        span = np.where(np.isfinite(hi), hi - lo, np.inf)
        eps = rtol * np.maximum(1.0, np.where(np.isfinite(span), span, np.abs(x).max() + 1))
        at_lo = x <= lo + eps
        at_hi = x >= hi - eps
    at_lo = np.asarray(at_lo, dtype=bool)
    at_hi = np.asarray(at_hi, dtype=bool) & ~at_lo
    free = ~at_lo & ~at_hi
    # rows in the variables (nu_1..nu_r, t): free ones bound |g_i + a'nu| by
    # t, bound ones one side of it; one row per group and kind
    fixed_rows, fixed_rhs, bound_rows, bound_rhs = [], [], [], []
    cols, inv = np.unique(A.T.round(12), axis=0, return_inverse=True)
    inv = inv.ravel()
    for k in range(cols.shape[0]):
        a = cols[k]
        m = inv == k
        for sel, rows, rhs in ((m & free, fixed_rows, fixed_rhs),
                               (m & at_hi, bound_rows, bound_rhs)):
            if sel.any():  # g_i + a'nu <= t  ->  a'nu - t <= -g_i
                rows.append(np.r_[a, -1.0])
                rhs.append(-g[sel].max())
        for sel, rows, rhs in ((m & free, fixed_rows, fixed_rhs),
                               (m & at_lo, bound_rows, bound_rhs)):
            if sel.any():  # g_i + a'nu >= -t  ->  -a'nu - t <= g_i
                rows.append(np.r_[-a, -1.0])
                rhs.append(g[sel].min())
    rows, rhs = np.array(fixed_rows + bound_rows), np.array(fixed_rhs + bound_rhs)
    c = np.r_[np.zeros(r), 1.0]
    bounds = [(None, None)] * r + [(0, None)]
    res = linprog(c, A_ub=rows, b_ub=rhs, bounds=bounds, method="highs")
    if not res.success:  # pragma: no cover - the LP is always feasible
        return np.zeros(r), np.inf
    nu, t = res.x[:r], float(res.x[r])
    if bound_rows:
        # centre: at the optimal violation t (plus rounding), maximise the
        # slack s of the bound rows, s <= scale (bounded LP)
        scale = max(1.0, float(np.abs(g).max()))
        t_fix = t + 1e-9 * scale
        R = rows[:, :r]
        s_col = np.r_[np.zeros(len(fixed_rows)), np.ones(len(bound_rows))]
        res2 = linprog(np.r_[np.zeros(r), -1.0], A_ub=np.c_[R, s_col], b_ub=rhs + t_fix,
                       bounds=[(None, None)] * r + [(0, scale)], method="highs")
        if res2.success:
            nu = res2.x[:r]
    if free.any():
        # HiGHS solves the LPs to its feasibility tolerance (1e-7) and the
        # centring allows t + 1e-9 scale: where free variables pin nu down,
        # finish by least squares on them, exact to rounding (the minimum-norm
        # correction only moves nu along the directions they determine)
        AF = A[:, free]
        delta = np.linalg.lstsq(AF.T, -(g[free] + AF.T @ nu), rcond=None)[0]
        nu = nu + delta
        ga = g + A.T @ nu
        t = float(max(np.abs(ga[free]).max(initial=0.0), (-ga[at_lo]).max(initial=0.0),
                      ga[at_hi].max(initial=0.0)))
    return nu, t


def _feasible_start(lo, hi, A, b, u):
    """``u`` moved onto ``{A z = b, lo <= z <= hi}`` (clipped, then projected),
    or None when the projection fails."""
    z = np.clip(np.asarray(u, dtype=np.float64), lo, hi)
    if not np.all(np.isfinite(z)):
        return None
    if A.shape[0] == 0:
        return z
    return _project_affine_box(z, lo, hi, A, b)


def _smo_from(qp, x_start, fallbacks, **kwargs):
    """SMO on ``qp`` warm-started from ``x_start`` (made feasible); from
    ``qp["x0"]`` when that fails (counted as a ``"warm_start"`` fallback).
    The result's ``x`` is in the QP's variables (not shifted)."""
    P, q, lo, hi, A, b, x0, c = qp.shifted()
    args = (P, q, lo, hi) + ((A, b) if A.shape[0] else (None, None))
    z = None if x_start is None else _feasible_start(lo, hi, A, b, x_start - c)
    if z is not None:
        try:
            res = smo_solve(*args, x0=z, **kwargs)
        except ValueError:
            z = None  # x0 judged infeasible: start cold (a real error recurs there)
    if z is None:
        if x_start is not None:
            fallbacks["warm_start"] += 1
        res = smo_solve(*args, x0=x0, **kwargs)
    _add_fallbacks(fallbacks, res.fallbacks)
    res["x"] = res["x"] + c
    return res


def _finish(qp, x, n_iter, solver, t0, duals=None):
    qp["solve_time"] = qp.get("solve_time", 0.0) + time.perf_counter() - t0
    qp["x"] = x
    qp["n_iter"] = n_iter
    qp["solver"] = solver
    qp["objective"] = qp.value(x)
    if duals is None:
        qp["multipliers"], _ = equality_multipliers(qp, x)
    else:
        # the interior point leaves bound variables near, not on, their
        # bounds: classify them by complementarity (multiplier > slack)
        at_lo = np.isfinite(qp["lo"]) & (duals["lower"] > x - qp["lo"])
        at_hi = np.isfinite(qp["hi"]) & (duals["upper"] > qp["hi"] - x)
        qp["multipliers"], _ = equality_multipliers(qp, x, at_lo=at_lo, at_hi=at_hi)
    return qp


def solve_dual(qp, solver="smo", *, tol=1e-6, max_iter=None, trace_every=0, partner=None,
               polish_every=None, warn=True):
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
    warn : bool, default=True
        Raise a :class:`~sklearn.exceptions.ConvergenceWarning` when the
        solver stops at ``max_iter`` (``qp["converged"]`` is False either way).

    Notes
    -----
    cvxopt runs with ``abstol = reltol = feastol = min(1e-9, tol * 1e-3)`` so
    that it serves as the reference solution. If it raises, returns a
    non-finite point, or stops without the status ``"optimal"`` although
    no ``max_iter`` was given (a numerical stall, not a cap), SMO solves
    the QP (from cvxopt's point when there is one), ``qp["solver"]`` says
    ``"smo"`` and ``qp["fallbacks"]["cvxopt"]`` counts it.
    ``qp["fallbacks"]`` also counts the failed fast phases of SMO (see
    ``FALLBACK_KEYS``). ``qp["status"]`` holds cvxopt's status and
    ``qp["violation"]`` SMO's final KKT violation.
    """
    if solver not in SOLVERS:
        raise ValueError(f"solver={solver!r} must be one of {list(SOLVERS)}.")
    t0 = time.perf_counter()
    P, q, lo, hi, A, b, x0, c = qp.shifted()
    if not A.shape[0]:
        A = b = None
    fallbacks = qp.setdefault("fallbacks", no_fallbacks())
    qp["solve_time"] = 0.0
    qp["trace"] = []
    if solver == "cvxopt":
        try:
            u, n_iter, duals = cvxopt_solve(P, q, lo, hi, A, b, tol=min(1e-9, tol * 1e-3),
                                            max_iter=200 if max_iter is None else max_iter,
                                            return_duals=True, warn=False)
            x = u + c
            status = duals["status"]
            finite = bool(np.all(np.isfinite(x)))
            # a status other than "optimal" at the caller's max_iter is a cap
            # (reported); without one it is a numerical stall (a fallback)
            capped = status != "optimal" and max_iter is not None and finite
            ok = (status == "optimal" and finite) or capped
        except (ValueError, ArithmeticError):
            x, ok, capped, status = None, False, False, "error"
        qp["status"] = status
        if ok:
            qp["converged"] = not capped
            if capped and warn:
                warnings.warn(
                    f"cvxopt stopped with status {status!r} after {n_iter} iterations "
                    f"(max_iter={max_iter}).", ConvergenceWarning, stacklevel=2)
            return _finish(qp, x, n_iter, "cvxopt", t0, duals)
        # the exact route: SMO (from cvxopt's point if it has one)
        fallbacks["cvxopt"] += 1
        res = _smo_from(qp, x, fallbacks, tol=tol, partner=partner, polish_every=polish_every,
                        warn=warn)
        qp["converged"], qp["violation"] = res.converged, res.violation
        return _finish(qp, res.x, res.n_iter, "smo", t0)
    res = smo_solve(P, q, lo, hi, A, b, x0=x0, tol=tol, max_iter=max_iter,
                    trace_every=trace_every, partner=partner, polish_every=polish_every,
                    warn=warn)
    _add_fallbacks(fallbacks, res.fallbacks)
    constant = qp["constant"] if qp.get("center") is None else qp["constant_center"]
    qp["trace"] = [(it, obj + constant, v) for it, obj, v in res.trace]
    qp["converged"], qp["violation"] = res.converged, res.violation
    return _finish(qp, res.x + c, res.n_iter, "smo", t0)


def kkt_violation(qp, x):
    """Largest first-order KKT violation at ``x`` (with bound variables exactly
    on their bounds): the projected gradient, with equality constraints
    after adding ``A'nu`` for the multipliers that the free variables
    determine by least squares (the LP of :func:`equality_multipliers` when
    they do not determine them all)."""
    g = qp.gradient(x)
    lo, hi, A = qp["lo"], qp["hi"], qp["A"]
    if A.shape[0]:
        free = (x > lo) & (x < hi)
        if np.linalg.matrix_rank(A[:, free]) < A.shape[0]:
            return float(equality_multipliers(qp, x)[1])  # the LP
        # the free variables pin the multipliers down: least squares, no LP
        nu = np.linalg.lstsq(A[:, free].T, -g[free], rcond=None)[0]
        g = g + A.T @ nu
    pg = np.where(x > lo, g, np.minimum(g, 0.0))
    pg = np.where(x < hi, pg, np.maximum(pg, 0.0))
    return float(np.abs(pg).max(initial=0.0))


def _face_newton(qp, x, max_steps=8):
    """Newton steps on the free face of ``x``: the bound variables stay, the
    free ones ``F`` move by the minimum-norm solution ``d`` of
    ``P_FF d + A_F' nu = -g_F``, ``A_F d = 0`` (least squares: exact on the
    singular faces of duplicate points and low-rank kernels, where a ridge
    turns the step into a long null-space move). A step that would leave
    the box stops at the first bound it meets (ratio test), which joins the
    bound set, and the next step starts from there (at most ``max_steps``).
    Every step descends (the objective is a convex quadratic along ``d``).
    Returns the new point, or None when no step moved."""
    P, lo, hi, A = qp["P"], qp["lo"], qp["hi"], qp["A"]
    r = A.shape[0]
    z, moved = np.array(x, dtype=np.float64), False
    for _ in range(max_steps):
        F = np.flatnonzero((z > lo) & (z < hi))
        nF = F.size
        if nF == 0 or nF > _FACE_MAX:
            break
        g = qp.gradient(z)[F]
        K = np.zeros((nF + r, nF + r))
        K[:nF, :nF] = P[np.ix_(F, F)]
        if r:
            K[:nF, nF:] = A[:, F].T
            K[nF:, :nF] = A[:, F]
        d = lstsq(K, np.r_[-g, np.zeros(r)], cond=1e-13, lapack_driver="gelsy",
                  check_finite=False)[0][:nF]
        if not np.all(np.isfinite(d)) or not np.any(d):
            break
        zF = z[F]
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(d > 0, (hi[F] - zF) / d, np.where(d < 0, (lo[F] - zF) / d, np.inf))
        k = int(np.argmin(room))
        t = min(1.0, float(room[k]))
        if t <= 0.0:
            break
        z[F] = np.clip(zF + t * d, lo[F], hi[F])
        moved = True
        if t >= 1.0:
            break
        z[F[k]] = hi[F[k]] if d[k] > 0 else lo[F[k]]  # the bound met joins the bound set
    return z if moved else None


def _feasible(qp, z):
    """``z`` is finite, in the box and on ``A z = b`` to rounding."""
    z = np.asarray(z, dtype=np.float64)
    if z.shape != qp["q"].shape or not np.all(np.isfinite(z)):
        return False
    if np.any(z < qp["lo"]) or np.any(z > qp["hi"]):
        return False
    A = qp["A"]
    if A.shape[0] == 0:
        return True
    scale = max(1.0, float(np.abs(qp["b"]).max()), float(np.abs(z).max()))
    return bool(np.abs(A @ z - qp["b"]).max() <= 1e-10 * scale * z.size)


def _try_face_newton(qp, x, fallbacks):
    """:func:`_face_newton` from ``x``, kept only if its point is feasible
    (:func:`_feasible`) and lowers the KKT violation without raising the
    objective beyond rounding; else ``x`` (a ``"face_newton"`` fallback).
    Returns ``(point, violation)``."""
    v_x = kkt_violation(qp, x)
    try:
        z = _face_newton(qp, x)
        if z is not None and _feasible(qp, z):
            obj_x, obj_z = qp.value(x), qp.value(z)
            v_z = kkt_violation(qp, z)
            # no higher objective, up to the rounding of its evaluation
            if v_z < v_x and obj_z <= obj_x + rounding_floor(qp, x)[1]:
                return z, v_z
    except (np.linalg.LinAlgError, ValueError):
        pass
    fallbacks["face_newton"] += 1
    return x, v_x


def refine_dual(qp, tol, *, max_iter=None, partner=None):
    """Polish a solved :class:`DualQP` in place, to a KKT violation of ``tol``.

    An SMO solution (bound variables exactly on their bounds) first gets
    minimum-norm Newton steps on its free face (:func:`_face_newton`),
    which finish at once what SMO does slowly on a singular or
    ill-conditioned face. If the violation is still above ``tol`` (or the
    solution is cvxopt's, whose bound variables are only near their
    bounds), SMO (with its active-set and interior-point phases) runs from
    the solution at tolerance ``tol``, then the face steps again. Their
    point is kept only if it lowers the KKT violation without raising the
    objective beyond the rounding of its evaluation (otherwise the point
    stays: a ``"face_newton"`` fallback).

    SMO's start is made feasible first (clipped to the box and projected
    onto ``A z = b``: an interior-point solution satisfies them only to
    cvxopt's tolerance); if that fails, SMO starts from ``qp["x0"]`` (a
    ``"warm_start"`` fallback). The multipliers of ``A z = b`` are
    recomputed; ``qp["n_iter"]`` and ``qp["solve_time"]`` accumulate,
    ``qp["n_polish"]`` and ``qp["fallbacks"]["polish"]`` count the call;
    ``qp["converged"]`` says whether the violation reached ``tol``. No
    :class:`~sklearn.exceptions.ConvergenceWarning` is raised here (the
    caller checks the result).

    Returns
    -------
    qp : DualQP
    """
    t0 = time.perf_counter()
    fallbacks = qp.setdefault("fallbacks", no_fallbacks())
    fallbacks["polish"] += 1
    qp["n_polish"] = qp.get("n_polish", 0) + 1
    x, n_iter, violation = qp["x"], qp.get("n_iter", 0), np.inf
    if qp.get("solver") == "smo":
        x, violation = _try_face_newton(qp, x, fallbacks)
    if not violation <= tol:
        res = _smo_from(qp, x, fallbacks, tol=tol, max_iter=max_iter, partner=partner,
                        warn=False)
        n_iter += res.n_iter
        x, violation = _try_face_newton(qp, res.x, fallbacks)
    qp["converged"], qp["violation"] = bool(violation <= tol), violation
    return _finish(qp, x, n_iter, qp.get("solver", "smo"), t0)


def rounding_floor(qp, x=None):
    """Estimated rounding errors at ``x`` (default: the solution
    ``qp["x"]``): ``(gradient, objective)``.

    ``gradient`` bounds the error of one entry of ``Pz + q`` (hence of a
    KKT residual in the units of the primal constraints, the margins) and
    ``objective`` the absolute error of ``z'(Pz + q)`` (hence of the
    duality gap): machine precision times the sizes of the terms summed,
    ``sum_j |P_ij||z_j| <= sqrt(P_ii) sum_j sqrt(P_jj)|z_j|`` (``P`` is
    positive semi-definite) plus ``|q_i|``, in the centred form if the QP
    has one (see :class:`DualQP`), times a safety factor. A QP
    whose floors exceed a tolerance cannot be certified to it by any
    solver in double precision (a badly scaled kernel: unscaled features,
    a tiny ``reg``).
    """
    u, q, constant = qp._centered(qp["x"] if x is None else x)
    u, q = np.abs(u), np.abs(q)
    d = np.sqrt(np.maximum(np.diag(qp["P"]), 0.0))
    s = float(u @ d)
    eps = _ROUNDING_FACTOR * np.finfo(np.float64).eps
    grad = eps * float((d * s + q).max(initial=0.0))
    obj = eps * (s * s + float(q @ u) + abs(constant))
    return grad, obj


def certificate_failures(gap, kkt, tol):
    """The checks of a recovered primal that fail: a list of ``(name, value,
    tolerance)``.

    The relative duality gap (``|gap|``) and each KKT residual of ``kkt``
    (``stationarity``, ``primal_feasibility``, ``dual_feasibility``,
    ``complementary_slackness``) must be at most ``max(tol, 64 eps)``; a
    NaN fails.
    """
    t = max(float(tol), _CERT_FLOOR)
    bad = []
    if not abs(gap) <= t:
        bad.append(("duality gap", float(gap), t))
    for key, value in kkt.items():
        if not value <= t:
            bad.append((key.replace("_", " "), float(value), t))
    return bad
