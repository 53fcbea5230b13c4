"""L1-regularised support vector regression (epsilon-insensitive loss) as a linear program."""

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import NON_NEGATIVE, POSITIVE, check_privileged_features
from ._lp import OrdinalLP
from ._ordinal import check_lp_range

__all__ = ["L1SVR", "check_regression_inputs"]


def check_regression_inputs(estimator, X, y, privileged_features):
    """Validate ``fit`` inputs of the regression LPs; return ``(X, y, X_star)``.

    ``y`` must be numeric and finite; non-numeric targets (strings, objects)
    raise a ValueError naming ``y``.
    """
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None.")
    y_arr = np.asarray(y)
    if y_arr.dtype.kind not in "biufc":  # (complex: scikit-learn's own message below)
        try:
            y_arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"Unknown label type: y must be numeric for regression, got values of dtype "
                f"{y_arr.dtype}; encode the target as numbers first (for ordered levels use "
                "problem='ordinal').") from None
    X, y = validate_data(estimator, X, y, dtype=np.float64, y_numeric=True, reset=True)
    Xs = check_privileged_features(privileged_features, X.shape[0], required=False)
    check_lp_range(X, "X")
    check_lp_range(y, "y")
    if Xs is not None:
        check_lp_range(Xs, "privileged_features")
    return X, y.astype(np.float64), Xs


class L1SVR(RegressorMixin, BaseEstimator):
    r"""L1-regularised linear support vector regression, solved as an LP with HiGHS.

    The prediction :math:`f(x) = w^\top x + c` minimises

    .. math::

        \tfrac12 \|w\|_1 + C \sum_i \max(|y_i - f(x_i)| - \varepsilon,\ 0),

    the epsilon-insensitive loss of Vapnik's SVR with an L1 penalty (sparse
    weights), written as a linear program with two slacks per sample (one per
    side of the tube). With ``fit(X, y, privileged_features=X_star)`` the
    slacks are replaced by two non-negative linear *correcting functions* of
    the privileged features, one per side of the tube, whose L1 norms are
    added to the penalty with weight ``gamma``: the LUPI model, as
    :class:`OrdinalRegressionLP` builds it for ordinal labels. The privileged
    features are used in training only. This is the model whose feature
    relevance :class:`FeatureRelevanceBounds` bounds with
    ``problem="regression"``.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the loss (or correcting-function) term.
    epsilon : float, default=0.1
        Half-width of the insensitive tube, in the units of ``y``
        (standardise ``y``, or scale ``epsilon`` with it). 0 gives the L1
        (least absolute deviations) loss.
    gamma : float, default=1.0
        Weight of the L1 norm of the correcting functions (LUPI only).

    Attributes
    ----------
    coef_ : numpy.ndarray
        The weight vector ``w``, shape ``(n_features,)``.
    intercept_ : float
        The intercept ``c``.
    coef_privileged_ : numpy.ndarray or None
        Weights of the two correcting functions, shape ``(n_privileged, 2)``
        (LUPI only; column 0 bounds ``f - y``, column 1 ``y - f``).
    intercept_privileged_ : numpy.ndarray or None
        Their offsets, shape ``(2,)`` (LUPI only).
    objective_ : float
        Optimal value of the LP.
    duality_gap_ : float
        ``objective_`` minus the dual value at HiGHS' multipliers.
    n_features_in_ : int
        Number of regular features.

    See Also
    --------
    sklearn.svm.LinearSVR : the same loss with an L2 penalty.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.relevance import L1SVR
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 5))
    >>> y = 2 * X[:, 0] - X[:, 1] + 0.05 * rng.normal(size=100)
    >>> model = L1SVR(C=10.0, epsilon=0.05).fit(X, y)
    >>> np.round(model.coef_, 1).tolist()
    [2.0, -1.0, 0.0, 0.0, 0.0]
    >>> bool(model.score(X, y) > 0.99)
    True
    """

    _parameter_constraints = {
        "C": [POSITIVE],
        "epsilon": [NON_NEGATIVE],
        "gamma": [POSITIVE],
    }

    def __init__(self, C=1.0, epsilon=0.1, gamma=1.0):
        self.C = C
        self.epsilon = epsilon
        self.gamma = gamma

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, privileged_features=None):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Real-valued targets.
        privileged_features : array-like of shape (n_samples, n_privileged), default=None
            Privileged features (training only); enable the LUPI model.

        Returns
        -------
        self

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError
            If ``C``, ``epsilon`` or ``gamma`` is invalid (``epsilon < 0``, NaN
            and infinity included); the message names the parameter.
        ValueError
            If ``y`` is not numeric, or a value is out of the LP solver's range.
        LinearProgramError
            If HiGHS fails.
        """
        X, y, Xs = check_regression_inputs(self, X, y, privileged_features)
        lp = OrdinalLP(X, y, 2, self.C, X_star=Xs, gamma=self.gamma, epsilon=self.epsilon)
        return self._store(lp)

    def _store(self, lp):
        """Set the fitted attributes from the solved LP ``lp``."""
        res = lp.solve_model()
        parts = lp.split(res.x)
        self.coef_ = parts["w"]
        self.intercept_ = float(-parts["b"][0])  # f(x) = x . w - b
        self.coef_privileged_ = parts.get("v")
        self.intercept_privileged_ = parts.get("e")
        self.objective_ = float(res.fun)
        self.duality_gap_ = float(res.fun - res.dual_fun)
        self.n_features_in_ = lp.d
        return self

    def predict(self, X):
        """Predict ``X @ coef_ + intercept_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_ + self.intercept_
