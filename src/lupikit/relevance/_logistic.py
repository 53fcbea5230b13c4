"""An ordinal baseline: all-threshold logistic regression with an elastic-net penalty.

:class:`OrdinalElasticNet` is the baseline of both benchmarks of Part III: with
RFECV in the synthetic feature-selection experiment
(:func:`~lupikit.relevance.selection_benchmark`), and with ``l1_ratio=0`` (a
ridge penalty) beside the L1 ordinal LP on the real ordinal data sets
(:func:`~lupikit.relevance.ordinal_holdout`).
"""

import warnings

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import validate_data

from .._validation import POSITIVE, POSITIVE_INT, UNIT_CLOSED
from ._ordinal import OrdinalRegressionLP, check_ordinal_labels

__all__ = ["OrdinalElasticNet"]


class OrdinalElasticNet(ClassifierMixin, BaseEstimator):
    r"""Ordinal logistic regression (all-threshold loss) with an elastic-net penalty.

    A linear score :math:`f(x) = w^\top x` and thresholds
    :math:`\theta_1, \dots, \theta_{l-1}` (unpenalised) minimise

    .. math::

        \frac1n \sum_{i=1}^n \sum_{j=1}^{l-1}
            \log\bigl(1 + e^{-s_{ij}(f(x_i) - \theta_j)}\bigr)
        + \alpha\Bigl(\rho\,\|w\|_1 + \frac{1-\rho}{2}\|w\|_2^2\Bigr),

    with :math:`s_{ij} = +1` if sample :math:`i` lies above threshold
    :math:`j` (its bin index is at least :math:`j`) and :math:`-1` otherwise:
    the all-threshold loss of Rennie & Srebro (2005), which penalises every
    threshold on the wrong side, not just the two around the true bin.
    :math:`\rho` is ``l1_ratio``. The problem is convex. It is solved with
    L-BFGS-B (``scipy.optimize``) on the split :math:`w = w^+ - w^-`,
    :math:`w^\pm \ge 0`, which makes the L1 term linear and the objective
    smooth; a weight whose two halves end at their bound 0 is exactly 0.
    Without an L1 term (``l1_ratio=0``) the objective is smooth in :math:`w`
    itself, which L-BFGS then optimises directly (half the variables, and no
    flat direction :math:`w^+ + w^-` to crawl along).

    Parameters
    ----------
    alpha : float, default=0.01
        Strength of the penalty (> 0).
    l1_ratio : float, default=0.5
        Share of the L1 norm in the penalty, in [0, 1] (1: lasso, 0: ridge).
    max_iter : int, default=1000
        Iterations of L-BFGS-B.
    tol : float, default=1e-8
        Tolerance of L-BFGS-B on the projected gradient (``gtol``) and on the
        relative change of the objective (``ftol``).
    warm_start : bool, default=False
        Start from the previous fit's solution, e.g. along a grid of
        ``alpha`` (a fit with other labels or another number of features
        starts cold); the problem is convex, so the solution changes only
        within the solver's tolerance.

    Attributes
    ----------
    classes_ : numpy.ndarray
        The ordered labels (int).
    coef_ : numpy.ndarray
        The weight vector ``w``, shape ``(n_features,)`` (what
        ``RFECV`` and ``SelectFromModel`` rank).
    thresholds_ : numpy.ndarray
        The thresholds, sorted, shape ``(n_classes - 1,)``.
    objective_ : float
        The objective at the solution.
    n_iter_ : int
        Iterations that L-BFGS-B used.
    n_features_in_ : int
        Number of features seen in :meth:`fit`.

    See Also
    --------
    OrdinalRegressionLP : the L1 large-margin ordinal model of the paper.

    Examples
    --------
    >>> from lupikit.datasets import make_ordinal_benchmark
    >>> from lupikit.relevance import OrdinalElasticNet
    >>> X, y, relevance = make_ordinal_benchmark(3, random_state=0)
    >>> model = OrdinalElasticNet(alpha=0.05, l1_ratio=1.0).fit(X, y)
    >>> model.classes_.tolist(), model.thresholds_.shape
    ([0, 1, 2], (2,))
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    _parameter_constraints = {
        "alpha": [POSITIVE],
        "l1_ratio": [UNIT_CLOSED],
        "max_iter": [POSITIVE_INT],
        "tol": [POSITIVE],
        "warm_start": ["boolean"],
    }

    def __init__(self, alpha=0.01, l1_ratio=0.5, max_iter=1000, tol=1e-8, warm_start=False):
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Integer ordinal labels (at least two levels).

        Returns
        -------
        self

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError
            If a parameter is invalid; the message names it.
        ValueError
            If ``X`` is not finite or ``y`` does not hold ordinal labels.
        """
        X = validate_data(self, X, dtype=np.float64, reset=True)
        classes, yb = check_ordinal_labels(y)
        if yb.shape[0] != X.shape[0]:
            raise ValueError(f"y has {yb.shape[0]} labels but X has {X.shape[0]} samples.")
        n, d = X.shape
        k = classes.size - 1
        # s_ij = +1 where sample i must lie above threshold j, -1 where below
        S = np.where(yb[:, None] > np.arange(k)[None, :], 1.0, -1.0)
        a, rho = float(self.alpha), float(self.l1_ratio)
        # ridge: w itself is free (no split); otherwise w = w+ - w-, both >= 0
        n_w = d if rho == 0.0 else 2 * d

        def objective(z):
            w = z[:d] if n_w == d else z[:d] - z[d:2 * d]
            theta = z[n_w:]
            m = S * ((X @ w)[:, None] - theta[None, :])
            loss = np.logaddexp(0.0, -m).sum() / n
            g = -S * expit(-m) / n  # derivative of the loss in (f_i - theta_j)
            gw = X.T @ g.sum(axis=1) + a * (1 - rho) * w
            value = loss + a * (rho * z[:n_w].sum() + 0.5 * (1 - rho) * w @ w)
            grad_w = gw if n_w == d else np.concatenate([gw + a * rho, -gw + a * rho])
            return value, np.concatenate([grad_w, -g.sum(axis=0)])

        # start from the previous fit (warm_start), or from w = 0 and the thresholds
        # that are optimal for it (logits of the cumulative class shares)
        if self._can_warm_start(classes, d):
            w0, theta0 = self.coef_, self.thresholds_
        else:
            below = np.cumsum(np.bincount(yb, minlength=k + 1))[:k] / n
            w0, theta0 = np.zeros(d), np.log(below / (1 - below))
        halves = [w0] if n_w == d else [np.maximum(w0, 0.0), np.maximum(-w0, 0.0)]
        z0 = np.concatenate(halves + [theta0])
        bounds = [(None if n_w == d else 0.0, None)] * n_w + [(None, None)] * k
        options = {"maxiter": self.max_iter, "gtol": self.tol, "ftol": 64 * np.finfo(float).eps}
        res = minimize(objective, z0, jac=True, method="L-BFGS-B", bounds=bounds, options=options)
        # a weight with both halves positive pays its L1 norm twice and cannot be optimal;
        # the quasi-Newton steps can stall there on exactly collinear columns, so restart
        # from the canonical split (which lowers the objective) until it holds
        for _ in range(5 if n_w == 2 * d else 0):
            wp, wm = res.x[:d], res.x[d:2 * d]
            if not np.any(np.minimum(wp, wm) > 0):
                break
            z = np.concatenate([np.maximum(wp - wm, 0), np.maximum(wm - wp, 0), res.x[2 * d:]])
            nit = res.nit
            res = minimize(objective, z, jac=True, method="L-BFGS-B", bounds=bounds,
                           options=options)
            res.nit += nit
        if not res.success:
            warnings.warn(f"OrdinalElasticNet: L-BFGS-B stopped without converging "
                          f"({res.message}); raise max_iter or alpha.", ConvergenceWarning,
                          stacklevel=2)
        self.classes_ = classes
        self.coef_ = res.x[:d].copy() if n_w == d else res.x[:d] - res.x[d:2 * d]
        self.thresholds_ = np.sort(res.x[n_w:])
        self.objective_ = float(res.fun)
        self.n_iter_ = int(res.nit)
        return self

    def _can_warm_start(self, classes, n_features):
        """Whether ``warm_start`` can start from the current fit: one of the
        same labels and number of features."""
        return (self.warm_start and hasattr(self, "coef_")
                and np.array_equal(self.classes_, classes) and self.coef_.shape[0] == n_features)

    # the prediction of a threshold model is the same as the LP model's: the bin of
    # X @ coef_ between the sorted thresholds
    _latent = OrdinalRegressionLP._latent
    decision_function = OrdinalRegressionLP.decision_function
    predict = OrdinalRegressionLP.predict
