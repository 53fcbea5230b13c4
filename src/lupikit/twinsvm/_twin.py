"""Twin support vector classifiers: TWSVM, Pin-TWSVM, TWSVMPI, Pin-TWSVMPI.

Plane ``k`` (``k = 1`` for the positive class ``A``, ``k = 2`` for the
negative class ``B``) is ``f_k(x) = <w_k, phi(x)> + b_k``. Writing ``O`` for
its own class and ``N`` for the other one, ``s = -1`` for plane 1 and
``s = +1`` for plane 2 (the side of the plane the other class must lie on),
and ``r_j = 1 - s f_k(x_j)`` for ``j in N``, the primals are

Pin-TWSVM (``tau = 0``: TWSVM)::

    min  rho/2 |w|^2 + 1/2 sum_{i in O} f(x_i)^2 + C sum_{j in N} xi_j
    s.t. xi_j >= r_j,  xi_j >= -tau r_j

Pin-TWSVMPI (``tau = 0``: TWSVMPI), with the correcting function
``xi(x*) = <w*, phi*(x*)> + b*`` in place of the slacks::

    min  rho/2 |w|^2 + 1/2 sum_{i in O} f(x_i)^2
         + gamma/2 (|w*|^2 + sum_{i in O} xi(x*_i)^2) + C sum_{j in N} xi(x*_j)
    s.t. xi(x*_j) >= r_j,  xi(x*_j) >= -tau r_j

(``rho = reg``; ``gamma = correction_weight``; the paper has ``rho = 1``).
Their duals, derived in the book, are

- Pin-TWSVM: ``min 1/2 nu'Q nu - e'nu`` on the box ``-tau C <= nu <= C``;
- Pin-TWSVMPI: ``min 1/2 (a - tau b)'Q (a - tau b) + 1/(2 gamma)
  (a + b - Ce)'Q* (a + b - Ce) - e'a + tau e'b`` with ``a, b >= 0``,

with ``Q = G S^{-1} G'`` computed by :class:`~._core.PlaneGram` (``Q*`` the
same on the privileged kernel with ``rho = 1``). Neither has an equality
constraint: the intercepts are inside the squared terms.
"""

import warnings

import numpy as np

from .._validation import POSITIVE, UNIT_CLOSED
from ._base import PRIVILEGED_PARAMS, BaseLUPIClassifier, _DualMatrix, _primal_rounding
from ._core import PlaneGram, split_kernel
from ._qp import make_qp

__all__ = [
    "TwinSVC",
    "PinballTwinSVC",
    "PrivilegedTwinSVC",
    "PrivilegedPinballTwinSVC",
]


class DegeneratePlaneWarning(UserWarning):
    """A twin plane collapsed to ``w = 0``: no point is at a finite distance from it.

    This happens for some hyperparameters (e.g. a large ``C`` with privileged
    correcting functions that absorb every constraint). The model then
    assigns every point to the other plane's class, or, when both planes
    collapsed, to the majority class of its training labels, instead of
    comparing distances that are numerically meaningless.
    """


#: ``||w|| <= DEGENERATE_TOL * max(1, |b|)`` marks a collapsed plane
DEGENERATE_TOL = 1e-5


class _TwinModel:
    """A fitted binary twin model (two planes; plane 0 belongs to class 1)."""

    def __init__(self, X, kernel, planes, dual_problems, duality_gap, kkt, positive_rate=0.5):
        self.X = X
        self.kernel = kernel
        self.planes = planes
        self.primal = planes
        self.dual_problems = tuple(dual_problems)
        self.duality_gap = duality_gap
        self.kkt_residuals = kkt
        self.degenerate = tuple(
            p["w_norm"] <= DEGENERATE_TOL * max(1.0, abs(float(p["intercept"]))) for p in planes)
        self.positive_rate = float(positive_rate)

    def plane_values(self, X):
        K = self.kernel(X, self.X)
        return [K @ p["coef"] + p["intercept"] for p in self.planes]

    def decision_function(self, X):
        d1, d2 = self.degenerate
        if d1 or d2:
            # a collapsed plane is infinitely far from every point: the other plane
            # wins; with both collapsed the labels' majority class is predicted
            if d1 and d2:
                value = 1.0 if self.positive_rate > 0.5 else -1.0
            else:
                value = -1.0 if d1 else 1.0
            return np.full(X.shape[0], value)
        f1, f2 = self.plane_values(X)
        return np.abs(f2) / self.planes[1]["w_norm"] - np.abs(f1) / self.planes[0]["w_norm"]


def _plane_matrix(gram, gram_s, tau, gam):
    """``P`` of the dual of one plane from its :class:`PlaneGram` (and the
    privileged one's, None without privileged features)."""
    Q = gram.Q
    if gram_s is None:
        return Q
    Qs = gram_s.Q
    return np.block([
        [Q + Qs / gam, -tau * Q + Qs / gam],
        [-tau * Q + Qs / gam, tau * tau * Q + Qs / gam],
    ])


def _rebuild_plane_matrix(K, Ks, n_pos, plane, tau, reg, gam):
    """``P`` of the dual of plane ``plane`` (1 or 2) from the kernel matrices
    of the training points sorted by class (``n_pos`` positive ones first),
    as :meth:`_BaseTwin._fit_plane` builds it (see :class:`~._base._DualMatrix`)."""
    pos, neg = np.arange(n_pos), np.arange(n_pos, K.shape[0])
    own, other = (pos, neg) if plane == 1 else (neg, pos)
    gram = PlaneGram(*split_kernel(K, own, other), reg)
    gram_s = None if Ks is None else PlaneGram(*split_kernel(Ks, own, other), 1.0)
    return _plane_matrix(gram, gram_s, tau, gam)


def _merge_kkt(dicts):
    keys = dicts[0].keys()
    return {k: float(max(d[k] for d in dicts)) for k in keys}


class _BaseTwin(BaseLUPIClassifier):
    _pinball = True

    _parameter_constraints = {
        **BaseLUPIClassifier._parameter_constraints,
        "C1": [POSITIVE],
        "C2": [POSITIVE],
        "reg": [POSITIVE],
    }

    @property
    def _tau(self):
        return float(self.tau) if self._pinball else 0.0

    def _fit_binary(self, X, Xs, y01, label="the binary problem"):
        # sort the points by class once: every kernel block of both twin
        # problems is then a contiguous slice of one kernel matrix (no copies)
        pos = np.flatnonzero(y01 == 1)
        neg = np.flatnonzero(y01 == 0)
        perm = np.r_[pos, neg]
        K = self.kernel_(X[perm])
        Ks = self.privileged_kernel_(Xs[perm]) if self._uses_privileged else None
        pos_s = np.arange(pos.size)
        neg_s = np.arange(pos.size, perm.size)
        planes, qps, kkts, gaps = [], [], [], []
        for k, (own, other, side, C) in enumerate(((pos_s, neg_s, -1.0, self.C1),
                                                    (neg_s, pos_s, 1.0, self.C2)), start=1):
            where = f"plane {k} (C{k}={C}) of {label}"
            plane, qp, kkt, gap = self._fit_plane(K, Ks, own, other, side, float(C), where)
            planes.append(plane)
            qps.append(qp)
            kkts.append(kkt)
            gaps.append(gap)
        for p in planes:  # back to the order of X
            for key in ("coef", "coef_privileged"):
                if key in p:
                    sorted_coef = p[key]
                    p[key] = np.empty_like(sorted_coef)
                    p[key][perm] = sorted_coef
        for p in planes:
            if self.kernel_.kernel == "linear":
                p["w"] = X.T @ p["coef"]
            if self._uses_privileged and self.privileged_kernel_.kernel == "linear":
                p["w_privileged"] = Xs.T @ p["coef_privileged"]
        # the fitted model keeps its duals without P (quadratic in n): it is
        # rebuilt from the training data when read
        priv = self._uses_privileged
        for k, qp in enumerate(qps, start=1):
            qp.drop_matrix(_DualMatrix(
                _rebuild_plane_matrix, X, self.kernel_, Xs=Xs if priv else None,
                privileged_kernel=self.privileged_kernel_ if priv else None, order=perm,
                assume_symmetric=True, n_pos=pos.size, plane=k, tau=self._tau,
                reg=float(self.reg), gam=float(self.correction_weight) if priv else None))
        model = _TwinModel(X, self.kernel_, planes, qps, float(max(gaps)), _merge_kkt(kkts),
                           positive_rate=float(np.mean(y01)))
        if any(model.degenerate):
            which = " and ".join(name for name, d in zip(("positive", "negative"), model.degenerate)
                                 if d)
            fallback = ("the majority class of the training labels" if all(model.degenerate)
                        else "the other plane's class")
            warnings.warn(
                f"{type(self).__name__}(C1={self.C1}, C2={self.C2}): the plane of the {which} "
                f"class collapsed to w = 0, so no point lies at a finite distance from it; "
                f"every point is assigned to {fallback}. Other hyperparameters (usually a "
                "smaller C) give a usable model.", DegeneratePlaneWarning, stacklevel=4)
        return model

    # one plane -----------------------------------------------------------
    def _fit_plane(self, K, Ks, own, other, side, C, where="a plane"):
        tau = self._tau
        reg = float(self.reg)
        gram = PlaneGram(*split_kernel(K, own, other), reg)
        m = other.size
        e = np.ones(m)
        if not self._uses_privileged:
            qp = make_qp(_plane_matrix(gram, None, tau, None), -e, -tau * C, C,
                         assume_symmetric=True)
            partner, gram_s = None, None
        else:
            gam = float(self.correction_weight)
            gram_s = PlaneGram(*split_kernel(Ks, own, other), 1.0)
            Qse = gram_s.Q @ e
            P = _plane_matrix(gram, gram_s, tau, gam)
            q = np.r_[-e - (C / gam) * Qse, tau * e - (C / gam) * Qse]
            # both quadratic terms vanish at a - tau b = 0, a + b = C e: the
            # solvers work around that point (see DualQP), where the gradient
            # is (-e, tau e) and the value 0, free of the C^2 / gamma terms
            center = np.r_[np.full(m, tau * C / (1 + tau)), np.full(m, C / (1 + tau))]
            qp = make_qp(P, q, 0.0, np.inf, constant=C * C / (2 * gam) * (e @ Qse),
                         assume_symmetric=True, center=center, q_center=np.r_[-e, tau * e],
                         constant_center=0.0)
            partner = np.r_[np.arange(m, 2 * m), np.arange(m)]

        def recover(qp):
            return self._recover_plane(qp, K, Ks, own, other, side, C, gram, gram_s)

        plane, kkt, gap = self._solve_certified(qp, recover, where, partner=partner)
        return plane, qp, kkt, gap

    def _recover_plane(self, qp, K, Ks, own, other, side, C, gram, gram_s):
        """The primal of one plane from the dual solution ``qp["x"]``:
        ``(plane, kkt, gap)``."""
        tau = self._tau
        reg = float(self.reg)
        m = other.size
        e = np.ones(m)
        n = K.shape[0]
        if not self._uses_privileged:
            nu = qp["x"]
            lam = -side * nu
            alpha = (nu + tau * C) / (1 + tau)
            beta = C - alpha
        else:
            gam = float(self.correction_weight)
            alpha, beta = qp["x"][:m], qp["x"][m:]
            lam = -side * (alpha - tau * beta)
            lam_s = (C * e - alpha - beta) / gam
        a, c, b = gram.recover(lam)
        coef = np.zeros(n)
        coef[own] = a
        coef[other] = c
        Kc = K @ coef
        w_sq = float(coef @ Kc)
        eta = Kc[own] + b
        f_other = Kc[other] + b
        r = 1.0 - side * f_other
        plane = {"coef": coef, "intercept": b, "w_norm": float(np.sqrt(max(w_sq, 0.0))),
                 "alpha": alpha, "beta": beta}
        stat = [np.abs(reg * a + eta).max(initial=0), np.abs(reg * c + lam).max(initial=0),
                abs(eta.sum() + lam.sum())]
        primal_obj = 0.5 * reg * w_sq + 0.5 * eta @ eta
        terms = [(reg, coef, K, None, None), (1.0, coef, K, (own, eta), None)]
        if self._uses_privileged:
            a_s, c_s, b_s = gram_s.recover(lam_s)
            coef_s = np.zeros(n)
            coef_s[own] = a_s
            coef_s[other] = c_s
            Ksc = Ks @ coef_s
            ws_sq = float(coef_s @ Ksc)
            eta_s = Ksc[own] + b_s
            xi = Ksc[other] + b_s
            plane.update(coef_privileged=coef_s, intercept_privileged=b_s,
                         correction=xi)
            stat += [np.abs(a_s + eta_s).max(initial=0), np.abs(c_s + lam_s).max(initial=0),
                     abs(eta_s.sum() + lam_s.sum())]
            primal_obj += 0.5 * gam * (ws_sq + eta_s @ eta_s) + C * xi.sum()
            dual_feas = max(0.0, -alpha.min(initial=0), -beta.min(initial=0))
            terms += [(gam, coef_s, Ks, (own, eta_s), other), (0.0, coef, K, None, other)]
        else:
            terms.append((0.0, coef, K, None, other))
            xi = np.maximum(r, -tau * r)
            plane["slack"] = xi
            primal_obj += C * xi.sum()
            dual_feas = max(0.0, float((qp["lo"] - qp["x"]).max()), float((qp["x"] - qp["hi"]).max()))
        s_a = xi - r
        s_b = xi + tau * r
        scale = max(1.0, float(np.abs(qp["x"]).max(initial=0)))
        kkt = {
            "stationarity": float(max(stat)) / scale,
            "primal_feasibility": float(max(0.0, -s_a.min(initial=0), -s_b.min(initial=0))),
            "dual_feasibility": float(dual_feas),
            "complementary_slackness": float(
                max(np.abs(alpha * s_a).max(initial=0), np.abs(beta * s_b).max(initial=0))
            ) / scale,
        }
        dual_obj = -qp["objective"]
        plane["primal_objective"] = float(primal_obj)
        plane["dual_objective"] = float(dual_obj)
        gap = float((primal_obj - dual_obj) / max(1.0, abs(primal_obj)))
        return plane, kkt, gap, lambda: _primal_rounding(terms, primal_obj, C)


_COMMON_PARAMS = """
    kernel : {"linear", "rbf", "poly"} or callable, default="rbf"
        Kernel of the decision space (any name of :mod:`lupikit.kernels`),
        or a callable ``k(X, Y)`` returning a finite array of shape
        ``(len(X), len(Y))``.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel width (a finite float > 0), resolved as in
        :class:`sklearn.svm.SVC`.
    degree : int, default=3
        Degree of the polynomial kernel (an integer >= 0).
    coef0 : float, default=1.0
        Independent term of the polynomial kernel (finite).
    solver : {"smo", "cvxopt"}, default="smo"
        Dual solver: our SMO (:func:`smo_solve`) or cvxopt's interior point
        (the reference).
    tol : float, default=1e-6
        SMO stopping tolerance on the KKT violation, a finite float > 0
        (cvxopt runs with ``min(1e-9, tol/1000)``), and the tolerance of the
        certificate of every fit: the relative duality gap and the KKT
        residuals of the recovered primal must be at most ``tol`` (a
        solution that fails is polished; what still fails raises a
        :class:`~sklearn.exceptions.ConvergenceWarning`).
    max_iter : int, default=None
        Iteration cap of the solver, an integer >= 1 (a
        :class:`ConvergenceWarning` when hit); None uses the solver's default.
    multi_class : {"ovo", "ovr"}, default="ovo"
        Multi-class scheme (one binary twin model per pair of classes, or
        per class against the rest).
"""

_FIT_ATTRS = """
    n_features_in_ : int
        Number of features of ``X`` seen in ``fit``.
    kernel_ : callable
        The kernel of ``X``, its ``gamma`` resolved on the training data
        (``"scale"`` and ``"auto"`` become numbers): ``kernel_(A, B)`` is the
        Gram matrix of the rows of ``A`` and ``B``.
    problems_ : list of tuple
        The binary problems, as class indices into ``classes_``: ``(pos,
        neg)`` per pair (one with two classes, ``multi_class="ovo"``), or
        ``(k, None)`` for class ``k`` against the rest (``"ovr"``).
    n_iter_ : ndarray of int
        Iterations of the dual solver, one per dual QP of ``dual_problems_``
        in order."""

_PRIV_ATTRS = """
    privileged_kernel_ : callable
        The kernel of the privileged features, its ``privileged_gamma``
        resolved on the training ``X*`` (as ``kernel_``)."""

_ATTRS = """
    Attributes
    ----------
    classes_ : ndarray
        Class labels.""" + _FIT_ATTRS + """
    models_ : list
        One fitted binary model per binary problem (``problems_``).
    dual_problems_ : tuple of DualQP
        The two dual QPs (``P``, ``q``, ``A``, ``b``, ``lo``, ``hi``,
        ``constant`` and the solution ``x``, ``objective``, ``n_iter``,
        ``solve_time``); a list of such tuples with more than two classes.
        ``P``, quadratic in the number of samples, is not stored: it is
        rebuilt from the training data when first read (the fitted model
        keeps ``X``, and ``X*`` for the privileged models).
    primal_ : list of dict
        Per plane: ``coef`` (expansion of ``w`` over the training points),
        ``intercept``, ``w_norm``, ``alpha``, ``beta``, the primal and dual
        objectives, and for the privileged models ``coef_privileged``,
        ``intercept_privileged`` and ``correction`` (values of the
        correcting function on the other class).
    duality_gap_ : float
        Largest relative duality gap of the two planes.
    kkt_residuals_ : dict
        ``stationarity``, ``primal_feasibility``, ``dual_feasibility``,
        ``complementary_slackness`` (largest over the planes; stationarity
        and complementarity are divided by ``max(1, max|z|)``).
    fit_time_ : float
        Seconds spent in the dual solver.
    fallbacks_ : dict
        How many times a fast route of the solvers failed and an exact one
        took over, over all the dual QPs: ``"interior_point"`` and
        ``"active_set"`` (a phase of SMO raised or returned an unusable
        point; plain SMO went on), ``"face_newton"`` (the Newton steps on
        the free face of a polish; SMO's point was kept), ``"cvxopt"``
        (cvxopt raised or stalled; SMO solved the QP), ``"warm_start"`` (a
        polish could not start from the solution; SMO started from scratch)
        and ``"polish"`` (rounds in which a recovered primal failed its
        certificate -- a duality gap or KKT residual above ``tol`` -- and
        the dual was re-solved from its solution). What still fails the
        certificate raises a :class:`~sklearn.exceptions.ConvergenceWarning`.
"""

#: The Attributes of a model with privileged features.
_PRIV_ATTRS_SECTION = _ATTRS.rstrip("\n") + _PRIV_ATTRS + "\n"

_DEFAULTS_NOTE = """
    The defaults (``C1 = C2 = 0.1`` for every twin estimator, ``tau = 0.1``
    for the pinball ones) were chosen by measurement against
    :class:`sklearn.svm.SVC` with its defaults, linear and RBF kernels, on
    standardised data sets (``benchmarks/bench_twinsvm_defaults.py``): each
    twin plane's loss sums over the other class only, so its ``C`` is on a
    smaller scale than SVC's, and a large pinball term pulls the planes
    towards the bulk of the other class."""


class PinballTwinSVC(_BaseTwin):
    __doc__ = f"""Twin SVM with the pinball loss (Pin-TWSVM, Mehrkanoon et al.).

    Two non-parallel planes, each close to its own class; the other class is
    pushed beyond distance 1 with the pinball loss ``L_tau`` (hinge for
    ``tau = 0``). A point goes to the class whose plane is nearer
    (``|f_k(x)| / ||w_k||``).

    Parameters
    ----------
    C1, C2 : float, default=0.1
        Loss weights (finite, > 0) of plane 1 (positive class) and plane 2.
    tau : float, default=0.1
        Pinball parameter in [0, 1] (0 is the hinge loss).
    reg : float, default=1.0
        Weight ``rho`` of ``||w||^2``; Jayadeva's TWSVM is ``rho -> 0``, which
        leaves ``H'H`` singular with kernels, so ``rho > 0`` is required.
    {_COMMON_PARAMS}
    {_ATTRS}
    Notes
    -----{_DEFAULTS_NOTE}

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from lupikit.twinsvm import PinballTwinSVC
    >>> X, y = make_classification(n_samples=80, random_state=0)
    >>> clf = PinballTwinSVC(tau=0.2).fit(X, y)
    >>> clf.score(X, y) > 0.8
    True
    >>> clf.duality_gap_ < 1e-6
    True
    """

    _parameter_constraints = {**_BaseTwin._parameter_constraints, "tau": [UNIT_CLOSED]}

    def __init__(self, C1=0.1, C2=0.1, tau=0.1, reg=1.0, *, kernel="rbf", gamma="scale",
                 degree=3, coef0=1.0, solver="smo", tol=1e-6, max_iter=None,
                 multi_class="ovo"):
        self.C1 = C1
        self.C2 = C2
        self.tau = tau
        self.reg = reg
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.multi_class = multi_class


class TwinSVC(_BaseTwin):
    __doc__ = f"""Twin SVM with the hinge loss (TWSVM, Jayadeva et al. 2007).

    :class:`PinballTwinSVC` with ``tau = 0``.

    Parameters
    ----------
    C1, C2 : float, default=0.1
        Loss weights (finite, > 0) of plane 1 (positive class) and plane 2.
    reg : float, default=1.0
        Weight of ``||w||^2`` (the regularisation that keeps the problem
        well posed; see :class:`PinballTwinSVC`).
    {_COMMON_PARAMS}
    {_ATTRS}
    Notes
    -----{_DEFAULTS_NOTE}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lupikit.twinsvm import TwinSVC
    >>> X, y = load_iris(return_X_y=True)
    >>> TwinSVC().fit(X, y).score(X, y) > 0.9
    True
    """

    _pinball = False

    def __init__(self, C1=0.1, C2=0.1, reg=1.0, *, kernel="rbf", gamma="scale",
                 degree=3, coef0=1.0, solver="smo", tol=1e-6, max_iter=None,
                 multi_class="ovo"):
        self.C1 = C1
        self.C2 = C2
        self.reg = reg
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.multi_class = multi_class


_PRIV_PARAMS = """
    correction_weight : float, default=1.0
        The paper's ``gamma`` (a finite float > 0): weight of the
        correcting-space terms ``|w*|^2 + sum_i xi(x*_i)^2``.
    privileged_kernel : str or callable, default=None
        Kernel of the correcting space (as ``kernel``); None uses ``kernel``.
    privileged_gamma : {"scale", "auto"} or float, default="scale"
        Width of the privileged kernel (a finite float > 0), resolved on
        ``X*``.
"""


class PrivilegedPinballTwinSVC(_BaseTwin):
    __doc__ = f"""Pinball twin SVM with privileged information (Pin-TWSVMPI).

    The slacks of :class:`PinballTwinSVC` are replaced by a correcting
    function of the privileged features, ``xi(x*) = <w*, phi*(x*)> + b*``,
    learned jointly (Section 3 of the paper; kernel form in the RKHS of the
    chosen kernels). ``privileged_features`` are needed by ``fit`` only.

    Parameters
    ----------
    C1, C2 : float, default=0.1
        Weights (finite, > 0) of the correcting functions of plane 1 and
        plane 2.
    tau : float, default=0.1
        Pinball parameter in [0, 1]; ``tau = 0`` gives
        :class:`PrivilegedTwinSVC`.
    reg : float, default=1.0
        Weight of ``||w||^2`` (1 in the paper).
    {_PRIV_PARAMS}
    {_COMMON_PARAMS}
    {_PRIV_ATTRS_SECTION}
    Notes
    -----{_DEFAULTS_NOTE}

    With the linear kernel it stays about two points below SVC on breast
    cancer (the PCA privileged features add little there), and far below on
    ``make_lupi_classification`` with the true ``X*``, where a linear
    correcting function absorbs every constraint and the planes collapse.

    Examples
    --------
    >>> from lupikit.datasets import make_lupi_classification
    >>> from lupikit.twinsvm import PrivilegedPinballTwinSVC
    >>> X, Xs, y = make_lupi_classification(100, random_state=0)
    >>> clf = PrivilegedPinballTwinSVC(tau=0.3).fit(X, y, privileged_features=Xs)
    >>> clf.predict(X[:3]).shape
    (3,)
    >>> max(clf.kkt_residuals_.values()) < 1e-6
    True
    """

    _uses_privileged = True

    _parameter_constraints = {**PinballTwinSVC._parameter_constraints, **PRIVILEGED_PARAMS}

    def __init__(self, C1=0.1, C2=0.1, tau=0.1, reg=1.0, correction_weight=1.0, *,
                 kernel="rbf", gamma="scale", degree=3, coef0=1.0, privileged_kernel=None,
                 privileged_gamma="scale", solver="smo", tol=1e-6, max_iter=None,
                 multi_class="ovo"):
        self.C1 = C1
        self.C2 = C2
        self.tau = tau
        self.reg = reg
        self.correction_weight = correction_weight
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.privileged_kernel = privileged_kernel
        self.privileged_gamma = privileged_gamma
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.multi_class = multi_class


class PrivilegedTwinSVC(_BaseTwin):
    __doc__ = f"""Twin SVM with privileged information and the hinge loss (TWSVMPI).

    Correcting functions replace the slacks of the hinge twin SVM;
    :class:`PrivilegedPinballTwinSVC` with ``tau = 0`` (constraint
    ``xi(x*_j) >= 0``). This is the twin counterpart of SVM+; it is not the
    FTWSVMPI of Qi et al. (2014), which learns the correcting functions by
    two extra QPs.

    Parameters
    ----------
    C1, C2 : float, default=0.1
        Weights (finite, > 0) of the correcting functions of plane 1 and
        plane 2.
    reg : float, default=1.0
        Weight of ``||w||^2``.
    {_PRIV_PARAMS}
    {_COMMON_PARAMS}
    {_PRIV_ATTRS_SECTION}
    Notes
    -----{_DEFAULTS_NOTE}

    With linear kernels it stays far below SVC on
    ``make_lupi_classification`` with the true ``X*``, where a linear
    correcting function absorbs every constraint and the planes collapse.

    Examples
    --------
    >>> from lupikit.datasets import make_lupi_classification
    >>> from lupikit.twinsvm import PrivilegedTwinSVC
    >>> X, Xs, y = make_lupi_classification(100, random_state=0)
    >>> clf = PrivilegedTwinSVC().fit(X, y, privileged_features=Xs)
    >>> clf.duality_gap_ < 1e-6
    True
    """

    _uses_privileged = True
    _pinball = False

    _parameter_constraints = {**_BaseTwin._parameter_constraints, **PRIVILEGED_PARAMS}

    def __init__(self, C1=0.1, C2=0.1, reg=1.0, correction_weight=1.0, *,
                 kernel="rbf", gamma="scale", degree=3, coef0=1.0, privileged_kernel=None,
                 privileged_gamma="scale", solver="smo", tol=1e-6, max_iter=None,
                 multi_class="ovo"):
        self.C1 = C1
        self.C2 = C2
        self.reg = reg
        self.correction_weight = correction_weight
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.privileged_kernel = privileged_kernel
        self.privileged_gamma = privileged_gamma
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.multi_class = multi_class
