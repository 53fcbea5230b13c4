"""FERM: SVM under an equal-opportunity constraint (Donini et al., 2018).

The baseline of Section 7.1. For a binary sensitive attribute with groups
:math:`a, b` let :math:`u = \\hat\\mu^+_a - \\hat\\mu^+_b` be the difference of
the mean feature vectors of the *positive* training examples of each group.
FERM solves

.. math::

    \\min_{w, b, \\xi}\\ \\tfrac12\\|w\\|^2 + C\\sum_i \\xi_i \\quad\\text{s.t.}\\quad
    y_i(\\langle w, \\varphi(x_i)\\rangle + b) \\ge 1 - \\xi_i,\\ \\xi_i \\ge 0,\\
    |\\langle w, u\\rangle| \\le \\epsilon,

which makes the average score of the positive examples equal across groups
(the empirical version of equal opportunity). With :math:`u = \\sum_i c_i
\\varphi(x_i)` and multipliers :math:`\\alpha_i \\in [0, C]` for the margin
constraints and :math:`\\mu_\\pm \\ge 0` for the two sides of the fairness
constraint, :math:`w = \\sum_i (\\alpha_i y_i - (\\mu_+ - \\mu_-) c_i)\\varphi(x_i)`
and the dual is the QP

.. math::

    \\max_{\\alpha, \\mu_\\pm}\\ \\mathbf 1^\\top\\alpha - \\tfrac12
    (Y\\alpha - \\delta c)^\\top K (Y\\alpha - \\delta c) - \\epsilon(\\mu_+ + \\mu_-),
    \\quad y^\\top\\alpha = 0,\\ 0 \\le \\alpha \\le C,\\ \\delta = \\mu_+ - \\mu_-,

solved here with cvxopt. For :math:`\\epsilon = 0` the constraint says
:math:`w \\perp u`, so FERM is exactly an ordinary SVM on the projected kernel
:math:`\\tilde K = K - K c\\, c^\\top K / (c^\\top K c)` (the kernel form of
Donini et al.'s feature projection); ``solver="auto"`` uses that faster exact
route with :class:`sklearn.svm.SVC`.

Scale. Multiplying ``X`` by :math:`s` (linear kernel) multiplies :math:`K` by
:math:`s^2`, which is the same problem as ``C`` times :math:`s^2`: FERM, like
:class:`~sklearn.svm.SVC`, is not scale invariant, and for a large
:math:`C\\,k(x, x)` libsvm's SMO needs a number of iterations of that order
(``FERM().fit(1e4 * X, ...)`` would run for hours). The dual QP is therefore
solved on the normalised kernel :math:`K / d` with :math:`C d` (:math:`d` the
mean of :math:`\\operatorname{diag} K`), an equivalent problem on which
cvxopt's tolerances mean the same at every scale, and the projection route
(``solver="auto"`` or ``"projection"``) switches to it when SMO would not
finish. Normalising alone would not help libsvm: its iterates on
:math:`(K / d, C d)` are those on :math:`(K, C)` scaled by :math:`d`, so
its number of iterations is set by :math:`C\\,k(x, x)` itself. Since the
problem on ``s * X`` is the problem on ``X`` with ``C s^2``, the fitted
model is scale-equivariant: ``FERM(C=C).fit(s * X)`` predicts on ``s * X``
what ``FERM(C=C * s**2).fit(X)`` predicts on ``X``, whichever route.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils._param_validation import InvalidParameterError, StrOptions
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import KERNEL_PARAMS, NON_NEGATIVE, POSITIVE
from ..kernels import resolve_gamma
from ._kernel import _checked_kernel, check_sensitive_for

__all__ = ["FERM"]

_USES_GAMMA = {"rbf", "poly", "sigmoid", "laplacian", "chi2"}
#: the projection route goes straight to cvxopt above this ``C * mean(diag(K))``:
#: SMO then needs at least about as many iterations.
_SMO_MAX_BOX = 1e6


def _smo_max_iter(n):
    """libsvm's own iteration limit, max(10^7, 100 n), for the projection route."""
    return max(10**7, 100 * n)


class FERM(ClassifierMixin, BaseEstimator):
    """Fair empirical risk minimisation SVM with an equal-opportunity constraint.

    A binary classifier (``y`` and the sensitive attribute both binary).

    Parameters
    ----------
    C : float, default=1.0
        SVM regularisation parameter (finite, > 0).
    kernel : str or callable, default="linear"
        See :func:`lupikit.kernels.kernel_matrix`. A callable's output must be
        a finite ``(n_X, n_Y)`` array.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel width for kernels that use one (finite, > 0).
    degree : int, default=3
        Degree of the polynomial kernel (>= 0).
    coef0 : float, default=1.0
        Independent term of the polynomial and sigmoid kernels (finite).
    epsilon : float, default=0.0
        Tolerance of the constraint :math:`|\\langle w, u\\rangle| \\le \\epsilon`
        (finite, >= 0).
    solver : {"auto", "cvxopt", "projection"}, default="auto"
        ``"projection"`` (only for ``epsilon=0``) trains
        :class:`~sklearn.svm.SVC` on the projected kernel; ``"cvxopt"`` solves
        the dual QP above (on the normalised kernel, see the module notes);
        ``"auto"`` picks ``"projection"`` when ``epsilon == 0`` and
        ``"cvxopt"`` otherwise. On the projection route (``"auto"`` with
        ``epsilon == 0``, or ``"projection"``), a projected SVM too
        ill-conditioned for libsvm's SMO (``C`` times the mean of the projected
        kernel's diagonal above ``1e6``, e.g. unscaled features, or SMO stopped
        after ``max(10**7, 100 * n_samples)`` iterations) is solved by cvxopt
        instead, on the normalised kernel; the fairness constraint stays exact
        (``qp_solver_`` says which solver ran).
    tol : float, default=1e-6
        Tolerance of the cvxopt solver / of SVC (the latter uses ``1e-3`` when
        ``tol`` is smaller); finite, > 0.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        From :meth:`fit`, for an invalid parameter (NaN and infinity included);
        a :class:`ValueError` naming the parameter.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class used by equal opportunity.
    groups_ : ndarray of shape (2,)
        The two sensitive values.
    dual_coef_ : ndarray of shape (n_samples,)
        :math:`\\theta` with :math:`w = \\sum_i \\theta_i \\varphi(x_i)`.
    intercept_ : float
        Offset of the decision function.
    fairness_vector_ : ndarray of shape (n_samples,)
        :math:`c` with :math:`u = \\sum_i c_i \\varphi(x_i)`.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training points (a copy: changing the caller's array afterwards
        does not change the predictions).
    gamma_ : float or None
        Resolved kernel width.
    solver_ : {"cvxopt", "projection"}
        The formulation used (``"auto"`` resolved).
    qp_solver_ : {"libsvm", "cvxopt"}
        What solved it: ``"projection"`` uses libsvm, or cvxopt when the
        projected SVM is too ill-conditioned for SMO.
    n_features_in_ : int
        Number of features of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.oblivious import FERM
    >>> rng = np.random.default_rng(0)
    >>> S = rng.integers(0, 2, 200)
    >>> X = np.c_[rng.normal(size=200) + S, rng.normal(size=200)]
    >>> y = (X[:, 0] + X[:, 1] > 0.5).astype(int)
    >>> clf = FERM(C=1.0).fit(X, y, sensitive_features=S)
    >>> f = clf.decision_function(X)
    >>> pos = y == 1
    >>> bool(abs(f[pos & (S == 0)].mean() - f[pos & (S == 1)].mean()) < 1e-6)
    True
    """

    _parameter_constraints = {
        **KERNEL_PARAMS,
        "C": [POSITIVE],
        "epsilon": [NON_NEGATIVE],
        "solver": [StrOptions({"auto", "cvxopt", "projection"})],
        "tol": [POSITIVE],
    }

    def __init__(
        self,
        C=1.0,
        *,
        kernel="linear",
        gamma="scale",
        degree=3,
        coef0=1.0,
        epsilon=0.0,
        solver="auto",
        tol=1e-6,
    ):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.epsilon = epsilon
        self.solver = solver
        self.tol = tol

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # binary y only
        return tags

    def _k(self, A, B=None):
        return _checked_kernel(
            self.kernel, A, B, gamma=self.gamma_, degree=self.degree, coef0=self.coef0
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sensitive_features=None):
        """Fit FERM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Binary labels.
        sensitive_features : array-like of shape (n_samples,)
            Binary sensitive attribute (required, two distinct values, each
            with at least one positive example ``y == classes_[1]``).

        Returns
        -------
        self : FERM

        Raises
        ------
        ValueError
            If ``y`` or ``sensitive_features`` is not binary, or a sensitive
            group has no positive example: equal opportunity compares the
            positive examples of the two groups, so it is undefined there.
        """
        if self.solver == "projection" and self.epsilon != 0:
            raise InvalidParameterError(
                f"The 'solver' parameter of FERM: solver='projection' requires "
                f"epsilon=0, got epsilon={self.epsilon!r}."
            )
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y")
        if y_type != "binary":
            raise ValueError(
                "Only binary classification is supported. The type of the target "
                f"is {y_type}."
            )
        classes = np.unique(y)
        if classes.size != 2:
            raise ValueError(
                f"FERM is a binary classifier; y has {classes.size} class(es)."
            )
        S = check_sensitive_for(sensitive_features, X.shape[0], type(self).__name__, "fit")
        if S.shape[1] != 1:
            raise ValueError("sensitive_features must be a single binary column for FERM.")
        S = S[:, 0]
        groups = np.unique(S)
        if groups.size != 2:
            raise ValueError(
                f"FERM needs a binary sensitive attribute; sensitive_features has "
                f"{groups.size} distinct values."
            )
        ys = np.where(y == classes[1], 1.0, -1.0)
        c = np.zeros(X.shape[0])
        for sign, g in zip((1.0, -1.0), groups):
            mask = (S == g) & (ys > 0)
            if not mask.any():
                raise ValueError(
                    f"sensitive_features: the group {g:g} has no positive example "
                    f"(y == {classes.tolist()[1]!r}), so FERM's equal-opportunity constraint "
                    "(equal mean score of the positive examples of both groups) is "
                    "undefined."
                )
            c[mask] = sign / mask.sum()
        self.gamma_ = (
            resolve_gamma(self.gamma, X)
            if isinstance(self.kernel, str) and self.kernel in _USES_GAMMA
            else None
        )
        K = self._k(X)
        solver = self.solver
        if solver == "auto":
            solver = "projection" if self.epsilon == 0 else "cvxopt"
        if solver == "projection":
            # explicit or from "auto": the same route, with the same fallback
            # to cvxopt on the normalised kernel when libsvm would not finish
            theta, b, engine = self._fit_projection(K, ys, c)
        else:
            (theta, b), engine = self._solve_dual(K, ys, c, float(self.epsilon)), "cvxopt"
        self.dual_coef_, self.intercept_ = theta, b
        self.solver_, self.qp_solver_ = solver, engine
        self.classes_ = classes
        self.groups_ = groups
        self.fairness_vector_ = c
        self.X_fit_ = X.copy()  # kept for prediction: not the caller's array
        return self

    def _fit_projection(self, K, ys, c):
        """SVM on the projected kernel, by libsvm or, when SMO cannot finish,
        cvxopt.

        Returns ``(theta, b, engine)``. The projected SVM dual goes to cvxopt
        (on the normalised kernel) when ``C`` times the mean of the projected
        kernel's diagonal is above ``_SMO_MAX_BOX`` (SMO then needs at least
        about that many iterations), or libsvm stopped at its iteration limit.
        """
        Kc = K @ c
        cKc = float(c @ Kc)
        # u = 0 (no projection) relative to the kernel's scale
        proj = cKc > 1e-12 * np.trace(K)
        Kt = K - np.outer(Kc, Kc) / cKc if proj else K
        n = K.shape[0]
        fitted = None
        if not self.C * np.mean(np.diag(Kt)) > _SMO_MAX_BOX:
            svc = SVC(C=self.C, kernel="precomputed", tol=max(self.tol, 1e-3),
                      max_iter=_smo_max_iter(n))
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "Solver terminated early",
                                        ConvergenceWarning)
                svc.fit(Kt, ys)
            if svc.fit_status_ == 0:
                theta = np.zeros(n)
                theta[svc.support_] = svc.dual_coef_[0]
                fitted = theta, float(svc.intercept_[0]), "libsvm"
        if fitted is None:
            fitted = (*self._solve_dual(Kt, ys), "cvxopt")
        theta, b, engine = fitted
        if proj:
            # w = sum theta_i P phi_i with P = I - u u^T/|u|^2, u = sum c_i phi_i
            theta = theta - c * float(Kc @ theta) / cKc
        return theta, b, engine

    def _solve_dual(self, K, ys, c=None, eps=0.0):
        """Solve an SVM dual QP with cvxopt, on the normalised kernel ``K / d``.

        ``c=None`` is the plain SVM dual (variables ``alpha``); otherwise the
        FERM dual of the module notes, with ``(alpha, delta)`` for ``eps=0``
        and ``(alpha, mu+, mu-)`` for ``eps>0``. Scaling the kernel by ``1/d``
        and ``C`` by ``d`` gives the same classifier (the dual variables scale
        by ``d``); with ``d`` the mean of the kernel diagonal, cvxopt's
        absolute tolerances mean the same thing at every scale of ``X``.

        Returns
        -------
        theta : ndarray of shape (n,)
            ``f(x) = sum_i theta_i K(x, x_i) + b``.
        b : float
        """
        from cvxopt import matrix, solvers

        n = K.shape[0]
        d = float(np.mean(np.diag(K)))
        d = d if np.isfinite(d) and d > 0 else 1.0
        Kn = K / d
        Cn = float(self.C) * d
        cols, q_extra = [np.diag(ys)], []
        if c is not None and eps == 0:
            cols, q_extra = cols + [-c[:, None]], [0.0]  # beta = (alpha, delta)
        elif c is not None:
            cols, q_extra = cols + [-c[:, None], c[:, None]], [eps, eps]  # (alpha, mu+, mu-)
        A = np.hstack(cols)
        m = A.shape[1]
        q = np.r_[-np.ones(n), q_extra]
        # 0 <= alpha <= C d; mu+- >= 0; delta free
        n_nonneg = n + 2 if m == n + 2 else n
        G = np.vstack([-np.eye(n_nonneg, m), np.eye(n, m)])
        h = np.r_[np.zeros(n_nonneg), np.full(n, Cn)]
        P = A.T @ Kn @ A
        P = 0.5 * (P + P.T)
        P[np.diag_indices_from(P)] += 1e-10
        Aeq = np.r_[ys, np.zeros(m - n)][None, :]
        opts = {"show_progress": False, "abstol": self.tol, "reltol": self.tol,
                "feastol": self.tol, "maxiters": 200}
        sol = solvers.qp(matrix(P), matrix(q), matrix(G), matrix(h),
                         matrix(Aeq), matrix(0.0), options=opts)
        if sol["status"] != "optimal":
            warnings.warn(
                f"cvxopt stopped with status {sol['status']!r}; the FERM solution "
                "may be inaccurate.",
                ConvergenceWarning,
            )
        beta = np.asarray(sol["x"]).ravel()
        alpha = beta[:n]
        theta = A @ beta
        f = Kn @ theta
        if c is not None:
            # the constraint holds only to the interior point's tolerance, which
            # can be loose for a huge C d (near hard margin): say so
            wu = float(theta @ (Kn @ c))
            norms = np.sqrt(max(float(theta @ f), 0.0) * max(float(c @ Kn @ c), 0.0))
            if abs(wu) - eps > 1e-2 * norms:
                warnings.warn(
                    f"cvxopt's solution violates the fairness constraint: |<w, u>| = "
                    f"{abs(wu):.3g} > epsilon = {eps:g} (|w| |u| = {norms:.3g}); C times "
                    "the kernel scale is probably too large for the dual QP. With "
                    "epsilon=0, solver='auto' is exact.",
                    ConvergenceWarning,
                )
        tol = 1e-5 * Cn
        free = (alpha > tol) & (alpha < Cn - tol)
        if free.any():
            b = float(np.mean(ys[free] - f[free]))
        else:  # no free support vector: midpoint of the feasible interval
            sv = alpha > tol
            b = float(np.median(ys[sv] - f[sv])) if sv.any() else 0.0
        # f(x) = sum_i theta_i K(x, x_i) / d + b
        return theta / d, b

    def decision_function(self, X):
        """Score :math:`\\langle w, \\varphi(x)\\rangle + b`; positive = ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n, n_features)

        Returns
        -------
        scores : ndarray of shape (n,)
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self._k(X, self.X_fit_) @ self.dual_coef_ + self.intercept_

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : array-like of shape (n, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n,)
        """
        scores = self.decision_function(X)  # raises NotFittedError before fit
        return self.classes_[(scores > 0).astype(int)]
