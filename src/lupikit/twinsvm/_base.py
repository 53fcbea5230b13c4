"""Shared machinery of the classifiers: validation, kernels, multi-class.

Every classifier of this part solves *binary* problems (positive class =
the larger label). With more than two classes it trains one binary model per
pair of classes (``multi_class="ovo"``, the default, as :class:`sklearn.svm.SVC`)
or per class against the rest (``"ovr"``), passing the matching rows of the
privileged features to each binary model.
"""

import contextlib
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_privileged_features
from ..kernels import check_kernel, kernel_matrix, resolve_gamma
from ._qp import SOLVERS
from ._smo import _blas_controller

__all__ = ["BaseLUPIClassifier"]

#: fits on at most this many samples run with one BLAS thread (see ``fit``)
_SINGLE_THREAD_MAX_SAMPLES = 3000


def _check_positive(value, name, *, allow_zero=False):
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name}={value!r} must be finite and {bound}.")
    return float(value)


def _check_tau(tau):
    if not isinstance(tau, numbers.Real) or isinstance(tau, bool):
        raise TypeError(f"tau must be a real number in [0, 1], got {type(tau).__name__}.")
    if not 0.0 <= tau <= 1.0:
        raise ValueError(f"tau={tau!r} must lie in [0, 1] (tau=0 is the hinge loss).")
    return float(tau)


class _KernelSpec:
    """A kernel with its width resolved on training data."""

    def __init__(self, kernel, gamma, degree, coef0, X, name="kernel"):
        try:
            self.kernel = check_kernel(kernel)
        except ValueError as exc:
            raise ValueError(str(exc).replace("kernel=", f"{name}=", 1)) from exc
        self.gamma = None if callable(kernel) else resolve_gamma(gamma, X)
        self.degree = degree
        self.coef0 = coef0

    def __call__(self, X, Y=None):
        return kernel_matrix(X, Y, kernel=self.kernel, gamma=self.gamma,
                             degree=self.degree, coef0=self.coef0)


class BaseLUPIClassifier(ClassifierMixin, BaseEstimator):
    """Base class: subclasses implement ``_fit_binary(X, Xs, y01)``.

    ``_fit_binary`` returns an object with ``decision_function(X)`` (positive
    for the positive class) and the attributes ``dual_problems``, ``primal``,
    ``duality_gap`` and ``kkt_residuals``.
    """

    _uses_privileged = False

    # ------------------------------------------------------------------ fit
    def _common_checks(self):
        if self.solver not in SOLVERS:
            raise ValueError(f"solver={self.solver!r} must be one of {list(SOLVERS)}.")
        if self.multi_class not in ("ovo", "ovr"):
            raise ValueError(f"multi_class={self.multi_class!r} must be 'ovo' or 'ovr'.")
        _check_positive(self.tol, "tol")
        if self.max_iter is not None and (
            not isinstance(self.max_iter, numbers.Integral) or self.max_iter < 1
        ):
            raise ValueError(f"max_iter={self.max_iter!r} must be a positive integer or None.")

    def fit(self, X, y, privileged_features=None):
        """Fit the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features.
        y : array-like of shape (n_samples,)
            Class labels (two or more classes).
        privileged_features : array-like of shape (n_samples, n_privileged), default=None
            Privileged features ``X*`` (training only). Required by the
            privileged estimators; ignored by the others.

        Returns
        -------
        self : object
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if self.classes_.shape[0] < 2:
            raise ValueError(
                "y contains only one class; a classifier needs samples of at "
                f"least two classes (got one class: {self.classes_[0]!r})."
            )
        Xs = None
        if self._uses_privileged:
            Xs = check_privileged_features(privileged_features, X.shape[0], required=True)
        self._common_checks()
        self._check_params()
        self.kernel_ = _KernelSpec(self.kernel, self.gamma, self.degree, self.coef0, X)
        if self._uses_privileged:
            pk = self.kernel if self.privileged_kernel is None else self.privileged_kernel
            self.privileged_kernel_ = _KernelSpec(
                pk, self.privileged_gamma, self.degree, self.coef0, Xs, name="privileged_kernel"
            )
        n_classes = self.classes_.shape[0]
        if n_classes == 2:
            problems = [(1, 0)]
        elif self.multi_class == "ovo":
            problems = [(j, i) for i in range(n_classes) for j in range(i + 1, n_classes)]
        else:
            problems = [(k, None) for k in range(n_classes)]
        self.problems_ = problems
        models = []
        # Small dense problems run with single-threaded BLAS: on a shared
        # machine a threaded BLAS spin-waits on small matrices and can be
        # many times slower; large problems keep the BLAS threads.
        if X.shape[0] <= _SINGLE_THREAD_MAX_SAMPLES:
            limit = _blas_controller().limit(limits=1, user_api="blas")
        else:
            limit = contextlib.nullcontext()
        with limit:
            for pos, neg in problems:
                if neg is None:
                    idx = np.arange(X.shape[0])
                    y01 = (y_idx == pos).astype(int)
                else:
                    idx = np.flatnonzero((y_idx == pos) | (y_idx == neg))
                    y01 = (y_idx[idx] == pos).astype(int)
                models.append(
                    self._fit_binary(X[idx], None if Xs is None else Xs[idx], y01)
                )
        self.models_ = models
        self.n_iter_ = np.array([qp["n_iter"] for m in models for qp in m.dual_problems])
        return self

    # --------------------------------------------------------- fitted info
    def _collect(self, name):
        check_is_fitted(self, "models_")
        values = [getattr(m, name) for m in self.models_]
        return values[0] if len(values) == 1 else values

    @property
    def dual_problems_(self):
        """Dual QPs in standard form (a tuple of :class:`DualQP`; a list of
        such tuples, one per binary problem, with more than two classes)."""
        return self._collect("dual_problems")

    @property
    def primal_(self):
        """Primal solution recovered from the dual (list of dicts per plane)."""
        return self._collect("primal")

    @property
    def duality_gap_(self):
        """Relative duality gap ``(primal - dual) / max(1, |primal|)``."""
        return self._collect("duality_gap")

    @property
    def kkt_residuals_(self):
        """KKT residuals of the primal/dual pair (dict; see the user guide)."""
        return self._collect("kkt_residuals")

    @property
    def fit_time_(self):
        """Total time spent in the QP solver(s), in seconds."""
        check_is_fitted(self, "models_")
        return float(sum(qp["solve_time"] for m in self.models_ for qp in m.dual_problems))

    # ------------------------------------------------------------- predict
    def decision_function(self, X):
        """Decision values.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive means
        ``classes_[1]``), else (n_samples, n_classes): one-vs-one votes
        plus a tie-breaking confidence in (-1/3, 1/3) (``"ovo"``), or the
        one-vs-rest decision values (``"ovr"``).
        """
        check_is_fitted(self, "models_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        values = [m.decision_function(X) for m in self.models_]
        n_classes = self.classes_.shape[0]
        if n_classes == 2:
            return values[0]
        if self.multi_class == "ovr":
            return np.column_stack(values)
        votes = np.zeros((X.shape[0], n_classes))
        conf = np.zeros((X.shape[0], n_classes))
        for (pos, neg), v in zip(self.problems_, values):
            votes[:, pos] += v > 0
            votes[:, neg] += v <= 0
            conf[:, pos] += v
            conf[:, neg] -= v
        return votes + conf / (3 * (np.abs(conf) + 1))

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        d = self.decision_function(X)
        if d.ndim == 1:
            return self.classes_[(d > 0).astype(int)]
        return self.classes_[np.argmax(d, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = False
        return tags
