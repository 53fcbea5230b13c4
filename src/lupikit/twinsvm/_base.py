"""Shared machinery of the classifiers: validation, kernels, multi-class.

Every classifier of this part solves *binary* problems (positive class =
the larger label). With more than two classes it trains one binary model per
pair of classes (``multi_class="ovo"``, the default, as :class:`sklearn.svm.SVC`)
or per class against the rest (``"ovr"``), passing the matching rows of the
privileged features to each binary model.

Hyperparameters are validated by scikit-learn's system: each estimator
declares ``_parameter_constraints`` (extending the base class's dict) and
``fit`` runs under ``_fit_context``, so a bad value raises
:class:`~sklearn.utils._param_validation.InvalidParameterError` naming it.
"""

import contextlib

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (KERNEL, KERNEL_PARAMS, GAMMA, POSITIVE, POSITIVE_INT,
                           check_kernel_output, check_privileged_features)
from ..kernels import kernel_matrix, resolve_gamma
from ._qp import SOLVERS
from ._smo import _blas_controller

__all__ = ["BaseLUPIClassifier"]

#: fits on at most this many samples run with one BLAS thread (see ``fit``)
_SINGLE_THREAD_MAX_SAMPLES = 3000

#: constraints of the hyperparameters of the privileged estimators' correcting space
PRIVILEGED_PARAMS = {
    "correction_weight": [POSITIVE],
    "privileged_kernel": [*KERNEL, None],
    "privileged_gamma": GAMMA,
}


class _KernelSpec:
    """A (validated) kernel with its width resolved on training data.

    A callable kernel's output is checked at every call: a finite array with
    one row per row of ``X`` and one column per row of ``Y``.
    """

    def __init__(self, kernel, gamma, degree, coef0, X, name="kernel"):
        self.kernel = kernel
        self.name = name
        self.gamma = None if callable(kernel) else resolve_gamma(gamma, X)
        self.degree = degree
        self.coef0 = coef0

    def __call__(self, X, Y=None):
        K = kernel_matrix(X, Y, kernel=self.kernel, gamma=self.gamma,
                          degree=self.degree, coef0=self.coef0)
        if callable(self.kernel):
            K = check_kernel_output(K, X.shape[0], (X if Y is None else Y).shape[0],
                                    name=self.name)
        return K


class BaseLUPIClassifier(ClassifierMixin, BaseEstimator):
    """Base class: subclasses implement ``_fit_binary(X, Xs, y01)``.

    ``_fit_binary`` returns an object with ``decision_function(X)`` (positive
    for the positive class) and the attributes ``dual_problems``, ``primal``,
    ``duality_gap`` and ``kkt_residuals``. Subclasses extend
    ``_parameter_constraints`` with their own hyperparameters.
    """

    _uses_privileged = False

    _parameter_constraints = {
        **KERNEL_PARAMS,
        "solver": [StrOptions(set(SOLVERS))],
        "tol": [POSITIVE],
        "max_iter": [POSITIVE_INT, None],
        "multi_class": [StrOptions({"ovo", "ovr"})],
    }

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=True)
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
