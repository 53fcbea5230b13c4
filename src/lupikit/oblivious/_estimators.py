"""Oblivious kernel ridge regression (ORR, M-ORR) and the oblivious SVM.

Both estimators split the training sample in two (Section 6.3): one part
estimates the conditional mean embeddings (:class:`ObliviousKernel`), the
other fits the kernel method; at random (stratified by a discrete ``S``) or,
with ``split="ordered"``, in row order as in the authors' code (the first rows
fit, the last rows estimate). ``markov=False`` ("Oblivious") trains on the
oblivious Gram matrix :math:`O`; ``markov=True`` ("M-Oblivious") trains the
standard kernel method on :math:`K` and only maps the *new* points to oblivious
features at prediction time.

With a discrete partition of ``S`` the estimation part always holds every
sensitive group (else its conditional mean could not be estimated), and for
the classifier the fitting part always holds every class of ``y``; a random
split keeps them whenever some split of the requested sizes does, and
otherwise :meth:`fit` raises a ValueError saying what would be needed (see
``split`` and :mod:`._split`).
"""

import warnings
from numbers import Real

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.metrics import accuracy_score, r2_score
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from .._validation import POSITIVE
from ._ferm import _smo_max_iter
from ._kernel import OBLIVIOUS_KERNEL_PARAMS, ObliviousKernel, check_sensitive_for
from ._partition import _check_grid_range_param, auto_kind
from ._split import check_ordered_split, random_split

__all__ = ["ObliviousRidge", "ObliviousSVC"]


def _ridge_dual(M, alpha, y):
    """Dual ridge coefficients :math:`(M + \\alpha I)^{-1} y` of a PSD Gram matrix ``M``
    (overwritten).

    A Cholesky solve; when ``M + alpha I`` is numerically singular (``alpha``
    below the rounding error of a large-scale ``M``, whose smallest
    eigenvalues rounding may even make negative), the same solution from the
    eigendecomposition of ``M``, its eigenvalues clipped at 0 (``M`` is PSD),
    with a :class:`scipy.linalg.LinAlgWarning`.
    """
    diag = np.diag_indices_from(M)
    M[diag] += alpha  # in place: M is the caller's scratch matrix
    try:
        return linalg.solve(M, y, assume_a="pos")
    except linalg.LinAlgError:
        M[diag] -= alpha
    lam, V = linalg.eigh(0.5 * (M + M.T))
    lam = np.maximum(lam, 0.0)
    warnings.warn(
        f"The ridge system is numerically singular (alpha={alpha!r} against a Gram matrix "
        f"of scale {lam.max():.3g}); solved by an eigendecomposition instead. Rescale X "
        "or raise alpha.",
        linalg.LinAlgWarning,
        stacklevel=3,
    )
    shape = (-1,) + (1,) * (np.ndim(y) - 1)
    return V @ ((V.T @ y) / (lam + alpha).reshape(shape))


class _ObliviousBase(BaseEstimator):
    """Shared parameters and the estimation / training split."""

    _parameter_constraints = {
        **OBLIVIOUS_KERNEL_PARAMS,
        "markov": ["boolean"],
        # (0, 1]: 1.0 uses the whole sample both to estimate and to fit
        "estimation_fraction": [Interval(Real, 0, 1, closed="right")],
        "split": [StrOptions({"random", "ordered"})],
        "random_state": ["random_state"],
    }

    def _kernel_params(self):
        return dict(
            kernel=self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
            n_bins=self.n_bins,
            partition=self.partition,
            grid_range=self.grid_range,
            empty_cell=self.empty_cell,
            handle_unknown=self.handle_unknown,
        )

    def _split_fit(self, X, y, sensitive_features, keep_classes=False):
        """Split, fit the oblivious kernel and return the training matrix.

        With ``keep_classes`` the fitting part holds every class of ``y``;
        with a discrete partition (and ``handle_unknown="error"``) the
        estimation part holds every sensitive group (see :mod:`._split`).
        """
        _check_grid_range_param(self.grid_range, type(self).__name__)
        S = check_sensitive_for(sensitive_features, X.shape[0], type(self).__name__, "fit")
        frac = self.estimation_fraction
        n = X.shape[0]
        idx = np.arange(n)
        n_est = n if frac == 1.0 else int(round(frac * n))
        if frac != 1.0 and (n_est < 1 or n_est >= n):
            raise ValueError(
                f"estimation_fraction={frac!r} leaves no point for estimation "
                f"or for fitting with {n} samples."
            )
        # partition=None: the kind is chosen on the whole training sample, so
        # that both parts are cut alike
        partition = self.partition
        if partition is None:
            partition = auto_kind(S, self.n_bins)
        discrete = partition == "discrete"
        required = self.handle_unknown == "error"
        y_cls = y if keep_classes else None
        if frac == 1.0:
            est_idx = fit_idx = idx
        elif self.split == "ordered":
            # the authors' ObliviousData: first rows fit, last rows estimate
            fit_idx, est_idx = idx[: n - n_est], idx[n - n_est:]
            check_ordered_split(fit_idx, est_idx, S, discrete, required, y_cls)
        else:
            rng = check_random_state(self.random_state)
            seed = rng.randint(np.iinfo(np.int32).max)
            est_idx, fit_idx = random_split(n, n_est, seed=seed, frac=frac, S=S,
                                            discrete=discrete, groups_required=required,
                                            y=y_cls)
        params = self._kernel_params()
        params["partition"] = partition
        kernel = ObliviousKernel(**params).fit(X[est_idx], S[est_idx])
        X_fit, S_fit = X[fit_idx], S[fit_idx]
        if self.markov:
            M = kernel._k(X_fit)
        else:
            M = kernel.gram(X_fit, S_fit)
        self.estimation_indices_ = est_idx
        self.fit_indices_ = fit_idx
        self.kernel_ = kernel
        # fancy indexing copies: the kept rows do not follow the caller's arrays
        self.X_fit_ = X_fit
        self.S_fit_ = S_fit
        return M, (None if y is None else y[fit_idx])

    def _cross(self, X, sensitive_features, method):
        check_is_fitted(self, self._fitted_attr)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        S = check_sensitive_for(sensitive_features, X.shape[0], type(self).__name__, method)
        return self.kernel_.cross(X, S, self.X_fit_, None if self.markov else self.S_fit_)


class ObliviousRidge(RegressorMixin, _ObliviousBase):
    """Oblivious kernel ridge regression (ORR) and its Markov variant (M-ORR).

    ORR solves :math:`\\min_h \\sum_i (\\langle h, Z_i\\rangle - y_i)^2 +
    \\lambda\\|h\\|^2`, whose solution is :math:`h = \\sum_i \\alpha_i Z_i` with
    :math:`\\alpha = (O + \\lambda I)^{-1} y` (Section 6.4, Appendix D). The
    prediction for a new point is :math:`\\sum_i \\alpha_i\\langle Z, Z_i\\rangle`.
    With ``markov=True`` (M-ORR) :math:`\\alpha = (K + \\lambda I)^{-1} y` is the
    ordinary kernel ridge solution and the prediction is
    :math:`\\sum_i \\alpha_i\\langle Z, \\varphi(X_i)\\rangle`. As in
    :class:`sklearn.kernel_ridge.KernelRidge` there is no intercept.

    Parameters
    ----------
    alpha : float, default=1.0
        Ridge parameter :math:`\\lambda > 0` (finite). If ``alpha`` is below
        the rounding error of the Gram matrix (a badly scaled ``X``), the
        system is solved by an eigendecomposition with a
        :class:`scipy.linalg.LinAlgWarning`.
    kernel, gamma, degree, coef0, n_bins, partition, grid_range, empty_cell, handle_unknown
        Passed to :class:`ObliviousKernel`.
    markov : bool, default=False
        Fit M-ORR instead of ORR.
    estimation_fraction : float in (0, 1], default=0.5
        Fraction of the training sample used to estimate the conditional mean
        embeddings; the rest fits the ridge regression. ``1.0`` uses the whole
        sample for both.
    split : {"random", "ordered"}, default="random"
        How the sample is split: at random (stratified by a discrete ``S``;
        seeded by ``random_state``), or in row order, the first
        ``n - round(estimation_fraction * n)`` rows fitting and the remaining
        last rows estimating, as in the authors' code
        (https://github.com/azalk/Oblivious, ``ObliviousClass.py``).

        With a discrete partition (``partition=None`` decides on the whole
        training sample) and ``handle_unknown="error"`` every sensitive group
        must be in the estimation part. The random split guarantees it
        whenever the estimation part has at least as many rows as there are
        groups, and also keeps every group with two or more rows in the
        fitting part where the sizes allow; the split of earlier versions is
        kept unchanged when it already does all this. ``split="ordered"``
        cannot be repaired and raises a ValueError instead.
    random_state : int, RandomState or None, default=None
        Seeds the estimation / fitting split (``split="random"``).

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        From :meth:`fit`, for an invalid parameter (NaN and infinity included);
        a :class:`ValueError` naming the parameter.
    ValueError
        From :meth:`fit`, if no split of the requested sizes holds every
        sensitive group in the estimation part; the message names the
        smallest group (its value and size) and the ``estimation_fraction``
        that would do.

    Attributes
    ----------
    kernel_ : ObliviousKernel
        Fitted on the estimation part.
    dual_coef_ : ndarray of shape (n_fit,) or (n_fit, n_targets)
        Coefficients of the kernel expansion over the fitting part.
    X_fit_ : ndarray
        Features of the fitting part (a copy of rows of ``X``).
    S_fit_ : ndarray
        Sensitive features of the fitting part (a copy of rows of ``S``).
    n_features_in_ : int
        Number of features of ``X``.
    estimation_indices_ : ndarray of int
        Rows of ``X`` used to estimate the conditional means.
    fit_indices_ : ndarray of int
        Rows of ``X`` used to fit the ridge regression.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.oblivious import ObliviousRidge
    >>> rng = np.random.default_rng(0)
    >>> S = rng.uniform(-5, 5, 400); U = rng.uniform(-5, 5, 400)
    >>> X = (0.5 * U + 0.5 * S)[:, None]
    >>> y = X[:, 0] ** 2 + rng.normal(scale=0.1, size=400)
    >>> orr = ObliviousRidge(alpha=0.1, gamma=1.0, random_state=0)
    >>> orr = orr.fit(X, y, sensitive_features=S)
    >>> orr.predict(X[:3], sensitive_features=S[:3]).shape
    (3,)
    """

    _parameter_constraints = {**_ObliviousBase._parameter_constraints, "alpha": [POSITIVE]}
    _fitted_attr = "dual_coef_"

    def __init__(
        self,
        alpha=1.0,
        *,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        n_bins=16,
        partition=None,
        grid_range=None,
        markov=False,
        estimation_fraction=0.5,
        split="random",
        empty_cell="zero",
        handle_unknown="error",
        random_state=None,
    ):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_bins = n_bins
        self.partition = partition
        self.grid_range = grid_range
        self.markov = markov
        self.estimation_fraction = estimation_fraction
        self.split = split
        self.empty_cell = empty_cell
        self.handle_unknown = handle_unknown
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # a 2-D y is one ridge regression per column (the solve takes them all)
        tags.target_tags.multi_output = True
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sensitive_features=None):
        """Fit ORR (or M-ORR).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_s)
            Required.

        Returns
        -------
        self : ObliviousRidge
        """
        X, y = validate_data(self, X, y, dtype=np.float64, multi_output=True, y_numeric=True)
        M, y_fit = self._split_fit(X, y, sensitive_features)
        self.dual_coef_ = _ridge_dual(M, float(self.alpha), y_fit)
        return self

    def predict(self, X, sensitive_features=None):
        """Predict from the oblivious features of ``(X, sensitive_features)``.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        sensitive_features : array-like of shape (n,) or (n, n_s)
            Required.

        Returns
        -------
        y_pred : ndarray of shape (n,) or (n, n_targets)
        """
        return self._predict(X, sensitive_features, "predict")

    def _predict(self, X, sensitive_features, method):
        return self._cross(X, sensitive_features, method) @ self.dual_coef_

    def score(self, X, y, sensitive_features=None, sample_weight=None):
        """Coefficient of determination :math:`R^2` of the prediction.

        Route ``sensitive_features`` here with ``set_score_request`` when used
        in :class:`~sklearn.model_selection.GridSearchCV`.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        y : array-like of shape (n,) or (n, n_targets)
            True values.
        sensitive_features : array-like of shape (n,) or (n, n_s)
            Required.
        sample_weight : array-like of shape (n,), default=None

        Returns
        -------
        score : float
        """
        y_pred = self._predict(X, sensitive_features, "score")
        return r2_score(y, y_pred, sample_weight=sample_weight)


class ObliviousSVC(ClassifierMixin, _ObliviousBase):
    """Support vector classifier on oblivious features ("Oblivious SVM").

    :class:`sklearn.svm.SVC` is trained on the precomputed oblivious Gram
    matrix :math:`O` (or on :math:`K` with ``markov=True``) and predicts from
    :math:`\\langle Z, Z_i\\rangle` (resp. :math:`\\langle Z, \\varphi(X_i)\\rangle`).

    Parameters
    ----------
    C : float, default=1.0
        SVM regularisation parameter (finite, > 0).
    kernel, gamma, degree, coef0, n_bins, partition, grid_range, empty_cell, handle_unknown
        Passed to :class:`ObliviousKernel`.
    markov : bool, default=False
        Train on the plain kernel, transform only new points.
    estimation_fraction : float in (0, 1], default=0.5
        Fraction of the sample used to estimate the conditional means; ``1.0``
        uses the whole sample for both estimation and training.
    split : {"random", "ordered"}, default="random"
        How the sample is split: at random (stratified by a discrete ``S``;
        seeded by ``random_state``), or in row order, the first
        ``n - round(estimation_fraction * n)`` rows training the SVM and the
        remaining last rows estimating the conditional means, as in the
        authors' code (https://github.com/azalk/Oblivious,
        ``ObliviousClass.py``; with ``estimation_fraction=0.5``, the first
        half trains and the second half estimates).

        The training part always holds every class of ``y`` and, with a
        discrete partition (``partition=None`` decides on the whole training
        sample) and ``handle_unknown="error"``, the estimation part every
        sensitive group. The random split guarantees both whenever some
        split of the requested sizes does, and also keeps every group with
        two or more rows in the training part where the sizes allow. The
        split of earlier versions (a random split stratified by ``S``, a
        missing class swapped in from the estimation part) is kept unchanged
        when it already does all this. ``split="ordered"`` cannot be repaired
        and raises a ValueError instead.
    class_weight : dict, "balanced" or None, default=None
        Passed to :class:`~sklearn.svm.SVC`.
    tol : float, default=1e-3
        SVC stopping tolerance (finite, > 0). libsvm's SMO needs about
        ``C`` times the kernel's scale iterations; it is stopped, with a
        :class:`~sklearn.exceptions.ConvergenceWarning`, after
        ``max(10**7, 100 * n_fit)`` (as in :class:`FERM`), so that a badly
        scaled ``X`` (e.g. a column in the thousands) cannot run for hours.
    random_state : int, RandomState or None, default=None
        Seeds the estimation / training split (``split="random"``).

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        From :meth:`fit`, for an invalid parameter (NaN and infinity included);
        a :class:`ValueError` naming the parameter.
    ValueError
        From :meth:`fit`, if no split of the requested sizes holds every class
        in the training part and every sensitive group in the estimation
        part; the message says which, names the smallest group (its value and
        size) and the ``estimation_fraction`` that would do.

    Attributes
    ----------
    svc_ : sklearn.svm.SVC
        The fitted SVC on the precomputed kernel.
    classes_ : ndarray
        Every class of ``y`` (all are in the training part).
    kernel_ : ObliviousKernel
        Fitted on the estimation part.
    X_fit_ : ndarray
        Features of the training part (a copy of rows of ``X``).
    S_fit_ : ndarray
        Sensitive features of the training part (a copy of rows of ``S``).
    estimation_indices_ : ndarray of int
        Rows of ``X`` used to estimate the conditional means.
    fit_indices_ : ndarray of int
        Rows of ``X`` used to train the SVC.
    n_features_in_ : int
        Number of features of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.oblivious import ObliviousSVC
    >>> rng = np.random.default_rng(0)
    >>> S = rng.integers(0, 2, 300)
    >>> X = np.c_[rng.normal(size=300) + S, rng.normal(size=300)]
    >>> y = (X[:, 0] + X[:, 1] > 0.5).astype(int)
    >>> clf = ObliviousSVC(kernel="linear", random_state=0)
    >>> clf = clf.fit(X, y, sensitive_features=S)
    >>> clf.predict(X[:4], sensitive_features=S[:4]).shape
    (4,)
    """

    _parameter_constraints = {
        **_ObliviousBase._parameter_constraints,
        "C": [POSITIVE],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "tol": [POSITIVE],
    }
    _fitted_attr = "svc_"

    def __init__(
        self,
        C=1.0,
        *,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        n_bins=16,
        partition=None,
        grid_range=None,
        markov=False,
        estimation_fraction=0.5,
        split="random",
        empty_cell="zero",
        handle_unknown="error",
        class_weight=None,
        tol=1e-3,
        random_state=None,
    ):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_bins = n_bins
        self.partition = partition
        self.grid_range = grid_range
        self.markov = markov
        self.estimation_fraction = estimation_fraction
        self.split = split
        self.empty_cell = empty_cell
        self.handle_unknown = handle_unknown
        self.class_weight = class_weight
        self.tol = tol
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sensitive_features=None):
        """Fit the oblivious SVM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_s)
            Required.

        Returns
        -------
        self : ObliviousSVC
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        M, y_fit = self._split_fit(X, y, sensitive_features, keep_classes=True)
        # SMO needs about C * k(x, x) iterations: bounded as in FERM, so that a badly
        # scaled X ends with a ConvergenceWarning instead of running for hours
        self.svc_ = SVC(
            C=self.C, kernel="precomputed", class_weight=self.class_weight, tol=self.tol,
            max_iter=_smo_max_iter(M.shape[0]),
        ).fit(M, y_fit)
        self.classes_ = self.svc_.classes_
        return self

    def decision_function(self, X, sensitive_features=None):
        """Signed distance to the separating hyperplane in feature space.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        sensitive_features : array-like of shape (n,) or (n, n_s)
            Required.

        Returns
        -------
        scores : ndarray of shape (n,) or (n, n_classes)
            As :meth:`sklearn.svm.SVC.decision_function`.
        """
        K = self._cross(X, sensitive_features, "decision_function")
        return self.svc_.decision_function(K)

    def predict(self, X, sensitive_features=None):
        """Predict class labels from the oblivious features.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        sensitive_features : array-like of shape (n,) or (n, n_s)
            Required.

        Returns
        -------
        y_pred : ndarray of shape (n,)
        """
        return self._predict(X, sensitive_features, "predict")

    def _predict(self, X, sensitive_features, method):
        K = self._cross(X, sensitive_features, method)  # checks that the model is fitted
        return self.svc_.predict(K)

    def score(self, X, y, sensitive_features=None, sample_weight=None):
        """Accuracy; route ``sensitive_features`` with ``set_score_request``.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        y : array-like of shape (n,)
            True labels.
        sensitive_features : array-like of shape (n,) or (n, n_s)
            Required.
        sample_weight : array-like of shape (n,), default=None

        Returns
        -------
        score : float
        """
        y_pred = self._predict(X, sensitive_features, "score")
        return accuracy_score(y, y_pred, sample_weight=sample_weight)
