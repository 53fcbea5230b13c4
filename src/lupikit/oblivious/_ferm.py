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
"""

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_sensitive_features
from ..kernels import check_kernel, kernel_matrix, resolve_gamma

__all__ = ["FERM"]

_USES_GAMMA = {"rbf", "poly", "sigmoid", "laplacian", "chi2"}


class FERM(ClassifierMixin, BaseEstimator):
    """Fair empirical risk minimisation SVM with an equal-opportunity constraint.

    Parameters
    ----------
    C : float, default=1.0
        SVM regularisation parameter.
    kernel : str or callable, default="linear"
        See :func:`lupikit.kernels.kernel_matrix`.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel width for kernels that use one.
    degree : int, default=3
    coef0 : float, default=1.0
    epsilon : float, default=0.0
        Tolerance of the constraint :math:`|\\langle w, u\\rangle| \\le \\epsilon`.
    solver : {"auto", "cvxopt", "projection"}, default="auto"
        ``"projection"`` (only for ``epsilon=0``) trains
        :class:`~sklearn.svm.SVC` on the projected kernel; ``"cvxopt"`` solves
        the dual QP above; ``"auto"`` picks ``"projection"`` when
        ``epsilon == 0``.
    tol : float, default=1e-6
        Tolerance of the cvxopt solver / of SVC (the latter uses ``1e-3`` when
        ``tol`` is smaller).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class used by equal opportunity.
    groups_ : ndarray of shape (2,)
        The two sensitive values.
    dual_coef_ : ndarray of shape (n_samples,)
        :math:`\\theta` with :math:`w = \\sum_i \\theta_i \\varphi(x_i)`.
    intercept_ : float
    fairness_vector_ : ndarray of shape (n_samples,)
        :math:`c` with :math:`u = \\sum_i c_i \\varphi(x_i)`.

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

    def _k(self, A, B=None):
        return kernel_matrix(
            A, B, kernel=self.kernel, gamma=self.gamma_, degree=self.degree, coef0=self.coef0
        )

    def fit(self, X, y, sensitive_features=None):
        """Fit FERM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Binary labels.
        sensitive_features : array-like of shape (n_samples,)
            Binary sensitive attribute (required, two distinct values).

        Returns
        -------
        self : FERM
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        check_kernel(self.kernel)
        if not isinstance(self.C, numbers.Real) or isinstance(self.C, bool) or not self.C > 0:
            raise ValueError(f"C={self.C!r} must be a positive float.")
        if not isinstance(self.epsilon, numbers.Real) or self.epsilon < 0:
            raise ValueError(f"epsilon={self.epsilon!r} must be a non-negative float.")
        if self.solver not in ("auto", "cvxopt", "projection"):
            raise ValueError(
                f"solver={self.solver!r} must be 'auto', 'cvxopt' or 'projection'."
            )
        if self.solver == "projection" and self.epsilon != 0:
            raise ValueError("solver='projection' requires epsilon=0.")
        S = check_sensitive_features(sensitive_features, X.shape[0])
        if S.shape[1] != 1:
            raise ValueError("sensitive_features must be a single binary column for FERM.")
        S = S[:, 0]
        self.groups_ = np.unique(S)
        if self.groups_.size != 2:
            raise ValueError(
                f"FERM needs a binary sensitive attribute; sensitive_features has "
                f"{self.groups_.size} distinct values."
            )
        self.classes_ = np.unique(y)
        if self.classes_.size != 2:
            raise ValueError(f"FERM is a binary classifier; y has {self.classes_.size} classes.")
        ys = np.where(y == self.classes_[1], 1.0, -1.0)
        self.gamma_ = (
            resolve_gamma(self.gamma, X)
            if isinstance(self.kernel, str) and self.kernel in _USES_GAMMA
            else None
        )
        c = np.zeros(X.shape[0])
        for sign, g in zip((1.0, -1.0), self.groups_):
            mask = (S == g) & (ys > 0)
            if mask.any():
                c[mask] = sign / mask.sum()
        self.fairness_vector_ = c
        K = self._k(X)
        self.X_fit_ = X
        solver = self.solver
        if solver == "auto":
            solver = "projection" if self.epsilon == 0 else "cvxopt"
        self.solver_ = solver
        if solver == "projection":
            self._fit_projection(K, ys, c)
        else:
            self._fit_cvxopt(K, ys, c)
        return self

    def _fit_projection(self, K, ys, c):
        Kc = K @ c
        cKc = float(c @ Kc)
        self._proj = (Kc, cKc) if cKc > 1e-12 * max(1.0, np.trace(K)) else None
        Kt = K - np.outer(Kc, Kc) / cKc if self._proj is not None else K
        svc = SVC(C=self.C, kernel="precomputed", tol=max(self.tol, 1e-3)).fit(Kt, ys)
        theta = np.zeros(K.shape[0])
        theta[svc.support_] = svc.dual_coef_[0]
        if self._proj is not None:
            # w = sum theta_i P phi_i with P = I - u u^T/|u|^2, u = sum c_i phi_i
            theta = theta - c * float(Kc @ theta) / cKc
        self.dual_coef_ = theta
        self.intercept_ = float(svc.intercept_[0])

    def _fit_cvxopt(self, K, ys, c):
        from cvxopt import matrix, solvers

        n = K.shape[0]
        eps = float(self.epsilon)
        if eps == 0:
            A = np.hstack([np.diag(ys), -c[:, None]])  # beta = (alpha, delta)
            q = np.r_[-np.ones(n), 0.0]
            G = np.vstack([-np.eye(n, n + 1), np.eye(n, n + 1)])
            h = np.r_[np.zeros(n), np.full(n, float(self.C))]
        else:
            A = np.hstack([np.diag(ys), -c[:, None], c[:, None]])  # (alpha, mu+, mu-)
            q = np.r_[-np.ones(n), eps, eps]
            G = np.vstack([-np.eye(n + 2), np.eye(n, n + 2)])
            h = np.r_[np.zeros(n + 2), np.full(n, float(self.C))]
        P = A.T @ K @ A
        P = 0.5 * (P + P.T)
        P[np.diag_indices_from(P)] += 1e-10 * max(1.0, np.trace(K) / n)
        Aeq = np.r_[ys, np.zeros(A.shape[1] - n)][None, :]
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
        f = K @ theta
        Cv = float(self.C)
        tol = 1e-5 * Cv
        free = (alpha > tol) & (alpha < Cv - tol)
        if free.any():
            b = float(np.mean(ys[free] - f[free]))
        else:  # no free support vector: midpoint of the feasible interval
            sv = alpha > tol
            b = float(np.median(ys[sv] - f[sv])) if sv.any() else 0.0
        self.dual_coef_ = theta
        self.intercept_ = b

    def decision_function(self, X):
        """Score :math:`\\langle w, \\varphi(x)\\rangle + b`; positive = ``classes_[1]``."""
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
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
