"""Single-plane baselines: Pin-SVM (Huang et al. 2014) and SVM+ (Vapnik & Vashist 2009).

Pin-SVM::

    min 1/2 |w|^2 + C sum_i xi_i   s.t.  xi_i >= r_i,  xi_i >= -tau r_i,
    r_i = 1 - y_i (<w, phi(x_i)> + b)

dual: ``min 1/2 lam'(yy' o K)lam - e'lam``, ``y'lam = 0``,
``-tau C <= lam <= C`` (one equality constraint; ``b`` is its multiplier).

SVM+ (the paper's "SVMPI")::

    min 1/2 |w|^2 + gamma/2 |w*|^2 + C sum_i xi(x*_i)
    s.t. y_i f(x_i) >= 1 - xi(x*_i),  xi(x*_i) >= 0,

dual in ``(alpha, beta) >= 0``: ``min 1/2 alpha'(yy' o K)alpha +
1/(2 gamma)(alpha + beta - C)'K*(alpha + beta - C) - e'alpha`` with the two
equality constraints ``y'alpha = 0`` and ``e'(alpha + beta - C) = 0``, whose
multipliers are ``b`` and ``b*``.
"""

import numpy as np

from .._validation import POSITIVE, UNIT_CLOSED
from ._base import PRIVILEGED_PARAMS, BaseLUPIClassifier, _DualMatrix, _primal_rounding
from ._qp import make_qp
from ._twin import _COMMON_PARAMS, _FIT_ATTRS, _PRIV_ATTRS, _PRIV_PARAMS

__all__ = ["PinballSVC", "SVMPlus"]


def _pinball_svc_matrix(K, Ks, y):
    """``P = yy' o K`` of the Pin-SVM dual (``Ks`` is unused)."""
    return np.outer(y, y) * K


def _svm_plus_matrix(K, Ks, y, gam):
    """``P`` of the SVM+ dual in ``(alpha, beta)``."""
    return np.block([[np.outer(y, y) * K + Ks / gam, Ks / gam], [Ks / gam, Ks / gam]])


class _PlaneModel:
    def __init__(self, X, kernel, primal, qp, gap, kkt):
        self.X = X
        self.kernel = kernel
        self.primal = [primal]
        self.dual_problems = (qp,)
        self.duality_gap = gap
        self.kkt_residuals = kkt

    def decision_function(self, X):
        p = self.primal[0]
        return self.kernel(X, self.X) @ p["coef"] + p["intercept"]


class PinballSVC(BaseLUPIClassifier):
    __doc__ = f"""SVM with the pinball loss (Pin-SVM, Huang, Shi & Suykens 2014).

    Parameters
    ----------
    C : float, default=1.0
        Loss weight (finite, > 0).
    tau : float, default=0.1
        Pinball parameter in [0, 1]; ``tau = 0`` is the hinge-loss SVM.
    {_COMMON_PARAMS}
    Attributes
    ----------
    classes_ : ndarray
        Class labels.{_FIT_ATTRS}
    models_ : list
        One fitted binary model per binary problem, as in :class:`PinballTwinSVC`.
    dual_problems_ : tuple of DualQP
        The dual QP (one; ``primal_[0]["coef"]`` is ``lam * y``), as in :class:`PinballTwinSVC`; a list of such tuples with
        more than two classes.
    primal_ : list of dict
        The plane: ``coef``, ``intercept``, ``w_norm``, ``alpha``, ``beta`` and the
        primal and dual objectives, as in :class:`PinballTwinSVC`.
    duality_gap_ : float
        Relative duality gap of the plane.
    kkt_residuals_ : dict
        ``stationarity``, ``primal_feasibility``, ``dual_feasibility`` and
        ``complementary_slackness``, as in :class:`PinballTwinSVC`.
    fit_time_ : float
        Seconds spent in the dual solver.
    fallbacks_ : dict
        How many times a fast route of the solvers failed and an exact one
        took over (keys ``"interior_point"``, ``"active_set"``,
        ``"face_newton"``, ``"cvxopt"``, ``"warm_start"``, ``"polish"``), as
        in :class:`PinballTwinSVC`.

    Notes
    -----
    The default ``tau = 0.1`` (with SVC's ``C = 1``) was chosen by
    measurement against :class:`sklearn.svm.SVC` with its defaults, linear
    and RBF kernels, on standardised data sets
    (``benchmarks/bench_twinsvm_defaults.py``): a larger pinball term pulls
    the plane towards the bulk of the data and costs accuracy with the
    linear kernel (breast cancer).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from lupikit.twinsvm import PinballSVC
    >>> X, y = make_classification(n_samples=80, random_state=0)
    >>> clf = PinballSVC(tau=0.3, kernel="linear").fit(X, y)
    >>> clf.score(X, y) > 0.8
    True
    """

    _parameter_constraints = {
        **BaseLUPIClassifier._parameter_constraints,
        "C": [POSITIVE],
        "tau": [UNIT_CLOSED],
    }

    def __init__(self, C=1.0, tau=0.1, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 solver="smo", tol=1e-6, max_iter=None, multi_class="ovo"):
        self.C = C
        self.tau = tau
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.multi_class = multi_class

    def _fit_binary(self, X, Xs, y01, label="the binary problem"):
        C, tau = float(self.C), float(self.tau)
        y = 2.0 * y01 - 1.0
        K = self.kernel_(X)
        n = y.size
        qp = make_qp(_pinball_svc_matrix(K, None, y), -np.ones(n), -tau * C, C, A=y[None, :],
                     b=[0.0])

        def recover(qp):
            lam = qp["x"]
            b = float(qp["multipliers"][0])
            coef = lam * y
            f = K @ coef + b
            r = 1.0 - y * f
            xi = np.maximum(r, -tau * r)
            w_sq = float(coef @ K @ coef)
            primal_obj = 0.5 * w_sq + C * xi.sum()
            dual_obj = -qp["objective"]
            alpha = (lam + tau * C) / (1 + tau)
            beta = C - alpha
            scale = max(1.0, float(np.abs(lam).max()))
            kkt = {
                "stationarity": abs(float(lam @ y)) / scale,
                "primal_feasibility": 0.0,
                "dual_feasibility": float(max(0.0, (qp["lo"] - lam).max(), (lam - qp["hi"]).max())),
                "complementary_slackness": float(
                    max(np.abs(alpha * (xi - r)).max(), np.abs(beta * (xi + tau * r)).max())
                ) / scale,
            }
            primal = {"coef": coef, "intercept": b, "slack": xi,
                      "primal_objective": float(primal_obj), "dual_objective": float(dual_obj)}
            gap = float((primal_obj - dual_obj) / max(1.0, abs(primal_obj)))
            rows = np.arange(n)
            return primal, kkt, gap, lambda: _primal_rounding([(0.5, coef, K, None, rows)],
                                                              primal_obj, C)

        primal, kkt, gap = self._solve_certified(qp, recover, label)
        if self.kernel_.kernel == "linear":
            primal["w"] = X.T @ primal["coef"]
        # the fitted model keeps its dual without P (quadratic in n): it is
        # rebuilt from the training data when read
        qp.drop_matrix(_DualMatrix(_pinball_svc_matrix, X, self.kernel_, y=y))
        return _PlaneModel(X, self.kernel_, primal, qp, gap, kkt)


class SVMPlus(BaseLUPIClassifier):
    __doc__ = f"""SVM+ of Vapnik & Vashist (2009), the paper's "SVMPI".

    The slack of sample ``i`` is a correcting function of its privileged
    features, ``xi(x*_i) = <w*, phi*(x*_i)> + b* >= 0``. The dual has two
    equality constraints; SMO moves two variables of the same kind or three
    of different kinds (Pechyony, Izmailov, Vashist & Vapnik, 2010).

    Parameters
    ----------
    C : float, default=1.0
        Weight of the correcting function (finite, > 0).
    {_PRIV_PARAMS}
    {_COMMON_PARAMS}
    Attributes
    ----------
    classes_ : ndarray
        Class labels.{_FIT_ATTRS}{_PRIV_ATTRS}
    models_ : list
        One fitted binary model per binary problem, as in :class:`PinballTwinSVC`.
    dual_problems_ : tuple of DualQP
        The dual QP (one, in the variables ``(alpha, beta)``), as in :class:`PinballTwinSVC`; a list of such tuples with
        more than two classes.
    primal_ : list of dict
        The plane: ``coef``, ``intercept``, ``w_norm``, ``alpha``, ``beta`` and the
        primal and dual objectives, as in :class:`PinballTwinSVC`.
    duality_gap_ : float
        Relative duality gap of the plane.
    kkt_residuals_ : dict
        ``stationarity``, ``primal_feasibility``, ``dual_feasibility`` and
        ``complementary_slackness``, as in :class:`PinballTwinSVC`.
    fit_time_ : float
        Seconds spent in the dual solver.
    fallbacks_ : dict
        How many times a fast route of the solvers failed and an exact one
        took over (keys ``"interior_point"``, ``"active_set"``,
        ``"face_newton"``, ``"cvxopt"``, ``"warm_start"``, ``"polish"``), as
        in :class:`PinballTwinSVC`.

    Notes
    -----
    The defaults (SVC's ``C = 1``) were measured against
    :class:`sklearn.svm.SVC` with its defaults, linear and RBF kernels, on
    standardised data sets (``benchmarks/bench_twinsvm_defaults.py``); no
    other ``C`` of the grid closes the remaining gap on
    ``make_lupi_classification`` with the true ``X*``, where the correcting
    function absorbs most constraints and ``w`` stays small; with the linear
    kernel it is also about two points below SVC on breast cancer.

    Examples
    --------
    >>> from lupikit.datasets import make_lupi_classification
    >>> from lupikit.twinsvm import SVMPlus
    >>> X, Xs, y = make_lupi_classification(80, random_state=0)
    >>> clf = SVMPlus().fit(X, y, privileged_features=Xs)
    >>> clf.score(X, y) > 0.8
    True
    >>> abs(clf.duality_gap_) < 1e-6
    True
    >>> clf.fallbacks_["cvxopt"]
    0
    """

    _uses_privileged = True

    _parameter_constraints = {
        **BaseLUPIClassifier._parameter_constraints,
        "C": [POSITIVE],
        **PRIVILEGED_PARAMS,
    }

    def __init__(self, C=1.0, correction_weight=1.0, *, kernel="rbf", gamma="scale", degree=3,
                 coef0=1.0, privileged_kernel=None, privileged_gamma="scale", solver="smo",
                 tol=1e-6, max_iter=None, multi_class="ovo"):
        self.C = C
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

    def _fit_binary(self, X, Xs, y01, label="the binary problem"):
        C, gam = float(self.C), float(self.correction_weight)
        y = 2.0 * y01 - 1.0
        n = y.size
        K = self.kernel_(X)
        Ks = self.privileged_kernel_(Xs)
        e = np.ones(n)
        Kse = Ks @ e
        P = _svm_plus_matrix(K, Ks, y, gam)
        q = np.r_[-e - (C / gam) * Kse, -(C / gam) * Kse]
        A = np.vstack([np.r_[y, np.zeros(n)], np.ones(2 * n)])
        # both quadratic terms vanish at (alpha, beta) = (0, C e): the solvers
        # work around that point (see DualQP), where the gradient is (-e, 0)
        # and the value 0, free of the C^2 / gamma terms
        x0 = np.r_[np.zeros(n), C * e]
        qp = make_qp(P, q, 0.0, np.inf, A=A, b=[0.0, n * C],
                     constant=C * C / (2 * gam) * (e @ Kse), x0=x0, center=x0,
                     q_center=np.r_[-e, np.zeros(n)], constant_center=0.0)

        def recover(qp):
            alpha, beta = qp["x"][:n], qp["x"][n:]
            b, b_s = (float(v) for v in qp["multipliers"])
            coef = alpha * y
            coef_s = (alpha + beta - C) / gam
            f = K @ coef + b
            xi = Ks @ coef_s + b_s
            w_sq = float(coef @ K @ coef)
            ws_sq = float(coef_s @ Ks @ coef_s)
            primal_obj = 0.5 * w_sq + 0.5 * gam * ws_sq + C * xi.sum()
            dual_obj = -qp["objective"]
            s_a = y * f - 1.0 + xi
            scale = max(1.0, float(np.abs(qp["x"]).max()))
            kkt = {
                "stationarity": float(max(abs(alpha @ y), abs((alpha + beta - C).sum()) / n))
                / scale,
                "primal_feasibility": float(max(0.0, -s_a.min(), -xi.min())),
                "dual_feasibility": float(max(0.0, -alpha.min(), -beta.min())),
                "complementary_slackness": float(
                    max(np.abs(alpha * s_a).max(), np.abs(beta * xi).max())
                ) / scale,
            }
            primal = {"coef": coef, "intercept": b, "coef_privileged": coef_s,
                      "intercept_privileged": b_s, "correction": xi, "alpha": alpha,
                      "beta": beta, "primal_objective": float(primal_obj),
                      "dual_objective": float(dual_obj)}
            gap = float((primal_obj - dual_obj) / max(1.0, abs(primal_obj)))
            rows = np.arange(n)
            return primal, kkt, gap, lambda: _primal_rounding(
                [(0.5, coef, K, None, rows), (0.5 * gam, coef_s, Ks, None, rows)], primal_obj, C)

        primal, kkt, gap = self._solve_certified(qp, recover, label)
        if self.kernel_.kernel == "linear":
            primal["w"] = X.T @ primal["coef"]
        # the fitted model keeps its dual without P (quadratic in n): it is
        # rebuilt from the training data when read
        qp.drop_matrix(_DualMatrix(_svm_plus_matrix, X, self.kernel_, Xs=Xs,
                                   privileged_kernel=self.privileged_kernel_, y=y, gam=gam))
        return _PlaneModel(X, self.kernel_, primal, qp, gap, kkt)
