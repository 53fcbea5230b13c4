"""L1-regularised large-margin ordinal regression solved as a linear program."""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .._validation import POSITIVE, check_privileged_features
from ._highs import HIGHS_LARGE_MATRIX_VALUE
from ._lp import OrdinalLP

__all__ = ["OrdinalRegressionLP", "check_ordinal_labels"]

#: The threshold forms of Chu & Keerthi (2005).
CONSTRAINTS = StrOptions({"explicit", "implicit"})


def check_ordinal_labels(y, *, name="y"):
    """Validate ordinal labels and map them to bin indices.

    Labels must be integer-valued (``1``, ``2.0``, ``-3``... but not ``1.5``
    or strings) and take at least two distinct values. The ordered bins are
    the distinct observed labels. A gap in the label set (say ``{1, 2, 4}``)
    is handled by ordering the observed labels, with a ``UserWarning``
    naming the missing levels, which can then never be predicted.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Ordinal labels.
    name : str, default="y"
        Argument name used in error messages.

    Returns
    -------
    classes : ndarray of int
        The sorted distinct labels.
    yb : ndarray of int of shape (n_samples,)
        Bin index of every sample, ``0 .. len(classes) - 1``.

    Examples
    --------
    >>> from lupikit.relevance import check_ordinal_labels
    >>> classes, yb = check_ordinal_labels([3, 1, 2, 2])
    >>> classes.tolist(), yb.tolist()
    ([1, 2, 3], [2, 0, 1, 1])
    """
    if y is None:
        raise ValueError(
            f"This estimator requires y to be passed, but the target {name} is None.")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = column_or_1d(y, warn=True)  # DataConversionWarning, as scikit-learn does
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one ordinal label per sample), got shape {y.shape}.")
    if y.dtype.kind == "b":
        y = y.astype(int)
    if y.dtype.kind not in "iuf":
        try:
            y = y.astype(float)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must hold integer ordinal labels; got values of dtype "
                f"{y.dtype}. Encode the ordered levels as integers first."
            ) from None
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)):
            raise ValueError(f"{name} contains NaN or infinity; ordinal labels must be finite integers.")
        if not np.all(y == np.round(y)):
            bad = y[y != np.round(y)][:3]
            raise ValueError(
                f"{name} must hold integer ordinal labels, got non-integer values such as "
                f"{bad.tolist()}. Bin a continuous target first (e.g. with "
                "lupikit.datasets.bin_target)."
            )
        y = y.astype(np.int64)
    column_or_1d(y)
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(
            f"{name} has only one class ({classes.tolist()}); ordinal regression needs at "
            "least two ordered labels."
        )
    gaps = np.flatnonzero(np.diff(classes) > 1)
    if gaps.size:
        missing = [int(v) for g in gaps for v in range(classes[g] + 1, classes[g + 1])]
        warnings.warn(
            f"{name} has a gap in its label set: levels {missing[:10]} do not occur. "
            "The observed labels are used as the ordered bins; missing levels are "
            "never predicted.",
            UserWarning,
            stacklevel=3,
        )
    yb = np.searchsorted(classes, y)
    return classes.astype(np.int64), yb


def check_lp_range(Z, name):
    """Raise a ValueError naming ``name`` if its values are too large for the LP solver.

    The features are coefficients of the LP's matrix, and HiGHS rejects a model
    with an entry of magnitude ``1e15`` or more (a *model error*, not an
    infeasible problem).
    """
    big = float(np.abs(Z).max(initial=0.0))
    if big >= HIGHS_LARGE_MATRIX_VALUE:
        raise ValueError(
            f"{name} has values of magnitude up to {big:.3g}, out of the range of the LP "
            f"solver: HiGHS rejects matrix coefficients of {HIGHS_LARGE_MATRIX_VALUE:.0e} or "
            f"more. Standardise {name} (e.g. with sklearn.preprocessing.StandardScaler): its "
            "tolerances (about 1e-7) are meant for features of moderate scale."
        )


def check_fit_inputs(estimator, X, y, privileged_features):
    """Validate ``fit`` inputs shared by the ordinal LP estimators.

    Returns ``(X, classes, y_bins, X_star)``; ``X_star`` is None without
    privileged features, which need ``constraints="explicit"`` (the LUPI model
    of the paper). Features too large for the LP solver raise a ValueError
    naming them (:func:`check_lp_range`).
    """
    X = validate_data(estimator, X, dtype=np.float64, reset=True)
    classes, yb = check_ordinal_labels(y)
    if yb.shape[0] != X.shape[0]:
        raise ValueError(f"y has {yb.shape[0]} labels but X has {X.shape[0]} samples.")
    Xs = check_privileged_features(privileged_features, X.shape[0], required=False)
    if Xs is not None and estimator.constraints != "explicit":
        raise ValueError(
            "privileged_features are supported with constraints='explicit' only "
            f"(the LUPI model of the paper), got constraints={estimator.constraints!r}."
        )
    check_lp_range(X, "X")
    if Xs is not None:
        check_lp_range(Xs, "privileged_features")
    return X, classes, yb, Xs


class OrdinalRegressionLP(ClassifierMixin, BaseEstimator):
    r"""L1-regularised large-margin ordinal regression (Chu & Keerthi), an LP.

    A linear score :math:`f(x) = w^\top x` and ordered thresholds
    :math:`b_1 \le \dots \le b_{l-1}` split the real line into the ``l``
    ordered bins. The model minimises

    .. math::

        \tfrac12 \|w\|_1 + C \sum \text{slacks}

    subject to margin constraints of one of two forms:

    - ``"explicit"``: every sample is kept at margin 1 below the threshold
      above its bin and above the threshold below its bin (two slacks at
      most per sample), and the thresholds are ordered explicitly;
    - ``"implicit"``: every sample is kept on the correct side of *every*
      threshold (``l - 1`` slacks per sample); the ordering of the
      thresholds then holds at an optimum (sorting them keeps the optimum).

    With ``fit(X, y, privileged_features=X_star)`` (explicit form only) the
    slacks are replaced by two non-negative linear *correcting functions*
    of the privileged features, :math:`\chi_i = v_0^\top x^*_i + e_0` and
    :math:`\xi_i = v_1^\top x^*_i + e_1`, whose L1 norms are added to the
    penalty with weight ``gamma`` (Section 4 of Pfannschmidt et al.). The
    privileged features are used in training only.

    The LP is solved with HiGHS through ``scipy.optimize.linprog``.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the slack (or correcting-function) term.
    constraints : {"explicit", "implicit"}, default="explicit"
        Threshold constraints of Chu & Keerthi (2005).
    gamma : float, default=1.0
        Weight of the L1 norm of the correcting functions (LUPI only).

    Attributes
    ----------
    classes_ : numpy.ndarray
        The ordered labels (int).
    coef_ : numpy.ndarray
        The weight vector ``w``, shape ``(n_features,)``.
    thresholds_ : numpy.ndarray
        Ordered thresholds, shape ``(n_classes - 1,)``.
    coef_privileged_ : numpy.ndarray or None
        Weights of the two correcting functions, shape ``(n_privileged, 2)``
        (LUPI only).
    intercept_privileged_ : numpy.ndarray or None
        Offsets of the two correcting functions, shape ``(2,)`` (LUPI only).
    objective_ : float
        Optimal value :math:`\mu_X` of the LP.
    duality_gap_ : float
        ``objective_`` minus the dual value at HiGHS' multipliers.
    n_lp_rows_ : int
        Number of constraints of the LP that was solved.
    n_lp_vars_ : int
        Number of variables of the LP that was solved.
    n_features_in_ : int
        Number of regular features.

    Examples
    --------
    >>> from lupikit.datasets import make_ordinal_relevance
    >>> from lupikit.relevance import OrdinalRegressionLP
    >>> X, y, truth = make_ordinal_relevance(n_samples=120, random_state=0)
    >>> model = OrdinalRegressionLP(C=1.0).fit(X, y)
    >>> model.classes_.tolist()
    [0, 1, 2, 3, 4]
    >>> bool(abs(model.duality_gap_) < 1e-6)
    True
    >>> model.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints = {
        "C": [POSITIVE],
        "constraints": [CONSTRAINTS],
        "gamma": [POSITIVE],
    }

    def __init__(self, C=1.0, constraints="explicit", gamma=1.0):
        self.C = C
        self.constraints = constraints
        self.gamma = gamma

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, privileged_features=None):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Integer ordinal labels.
        privileged_features : array-like of shape (n_samples, n_privileged), default=None
            Privileged features (training only); enable the LUPI model.

        Returns
        -------
        self

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError
            If ``C``, ``constraints`` or ``gamma`` is invalid (NaN and infinity
            included); the message names the parameter.
        ValueError
            If the features' magnitude is out of the LP solver's range
            (``1e15`` or more), or the labels are not ordinal.
        LinearProgramError
            If HiGHS fails; a model it rejects is never reported as infeasible.
        """
        X, classes, yb, Xs = check_fit_inputs(self, X, y, privileged_features)
        lp = OrdinalLP(X, yb, classes.size, self.C, self.constraints, X_star=Xs, gamma=self.gamma)
        return self._store(lp, classes)

    def _store(self, lp, classes):
        """Set the fitted attributes from the solved LP ``lp``."""
        res = lp.solve_model()
        parts = lp.split(res.x)
        # implicit form: sorting keeps an optimum (Chu & Keerthi); explicit form:
        # the order rows hold up to the solver's feasibility tolerance (~1e-9)
        b = np.sort(parts["b"])
        self.classes_ = classes
        self.coef_ = parts["w"]
        self.thresholds_ = b
        self.coef_privileged_ = parts.get("v")
        self.intercept_privileged_ = parts.get("e")
        self.objective_ = float(res.fun)
        self.duality_gap_ = float(res.fun - res.dual_fun)
        self.n_lp_rows_ = lp.r_budget
        self.n_lp_vars_ = lp.n_vars
        self.n_features_in_ = lp.d
        return self

    def _latent(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_

    def decision_function(self, X):
        """Signed margins of the latent score ``f = X @ coef_`` in each bin.

        For bin :math:`k` with thresholds :math:`b_{k-1} < b_k` (and
        :math:`b_0=-\\infty`, :math:`b_l=+\\infty`) the margin is
        :math:`\\min(f - b_{k-1},\\ b_k - f)`: non-negative only in the bin
        that contains :math:`f`, so ``argmax`` over the columns is the
        prediction, as scikit-learn expects of a classifier. With two labels
        it is the single column :math:`f - b_1` (positive for the upper label).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        margins : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        f = self._latent(X)
        if self.classes_.size == 2:
            return f - self.thresholds_[0]
        lower = np.r_[-np.inf, self.thresholds_]
        upper = np.r_[self.thresholds_, np.inf]
        return np.minimum(f[:, None] - lower, upper - f[:, None])

    def predict(self, X):
        """Predict ordinal labels: the bin of ``X @ coef_`` between the thresholds.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        f = self._latent(X)
        return self.classes_[np.searchsorted(self.thresholds_, f, side="right")]
