"""Privileged information when no expert provides it (Section 5.1 of the paper).

Following Pal & Rastogi, the paper uses the principal components of the
training features as ``X*``. :class:`PCAPrivileged` is that transformer, and
:class:`PCAPrivilegedClassifier` wraps a privileged estimator so that ``X*`` is
derived *inside* ``fit`` from the training rows only (no leakage across
cross-validation folds) and never needed at prediction time.
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, _fit_context, clone
from sklearn.decomposition import PCA
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags
from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["PCAPrivileged", "PCAPrivilegedClassifier"]

#: the values :class:`sklearn.decomposition.PCA` accepts as ``n_components``
_N_COMPONENTS = [
    Interval(Integral, 1, None, closed="left"),
    Interval(RealNotInt, 0, 1, closed="neither"),
    StrOptions({"mle"}),
    None,
]


class PCAPrivileged(TransformerMixin, BaseEstimator):
    """Principal components of the (standardised) features as privileged features.

    Parameters
    ----------
    n_components : int, float, "mle" or None, default=0.95
        As in :class:`sklearn.decomposition.PCA`: a number of components
        (an integer >= 1), a fraction of variance to keep (a float strictly
        between 0 and 1), Minka's MLE (``"mle"``) or all components (None).
    standardize : bool, default=True
        Standardise the features before the PCA.
    random_state : int, RandomState or None, default=None
        Passed to the PCA (used by randomised solvers only).

    Attributes
    ----------
    pca_ : PCA
        The fitted PCA.
    scaler_ : StandardScaler or None
        Scaler fitted on ``X`` before the PCA (None if ``standardize=False``).
    n_features_in_ : int
        Number of features of ``X`` seen in ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lupikit.twinsvm import PCAPrivileged
    >>> X, _ = load_iris(return_X_y=True)
    >>> PCAPrivileged(n_components=2).fit_transform(X).shape
    (150, 2)
    """

    _parameter_constraints = {
        "n_components": _N_COMPONENTS,
        "standardize": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, n_components=0.95, *, standardize=True, random_state=None):
        self.n_components = n_components
        self.standardize = standardize
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the scaler and the PCA on ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features.
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        X = validate_data(self, X, dtype=np.float64)
        self.scaler_ = StandardScaler().fit(X) if self.standardize else None
        Z = self.scaler_.transform(X) if self.scaler_ is not None else X
        self.pca_ = PCA(n_components=self.n_components, random_state=self.random_state).fit(Z)
        return self

    def transform(self, X):
        """Principal component scores of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        X_star : ndarray of shape (n_samples, n_components_)
        """
        check_is_fitted(self, "pca_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Z = self.scaler_.transform(X) if self.scaler_ is not None else X
        return self.pca_.transform(Z)


class PCAPrivilegedClassifier(ClassifierMixin, BaseEstimator):
    """Fit a privileged estimator with PCA-derived privileged features.

    Parameters
    ----------
    estimator : estimator
        A classifier whose ``fit`` takes ``privileged_features`` (with
        ``decision_function`` and ``predict``); its hyperparameters are
        validated when this wrapper is fitted.
    n_components : int, float, "mle" or None, default=0.95
        Passed to :class:`PCAPrivileged`.

    Attributes
    ----------
    estimator_ : estimator
        The fitted clone.
    privileged_ : PCAPrivileged
        The fitted transformer.
    classes_ : ndarray
        Class labels (the fitted estimator's).
    n_features_in_ : int
        Number of features of ``X`` seen in ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lupikit.twinsvm import PCAPrivilegedClassifier, PrivilegedTwinSVC
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = PCAPrivilegedClassifier(PrivilegedTwinSVC(), n_components=2).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "decision_function", "predict"])],
        "n_components": _N_COMPONENTS,
    }

    def __init__(self, estimator, n_components=0.95):
        self.estimator = estimator
        self.n_components = n_components

    # the wrapped estimator's hyperparameters are the user's: validate them too
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Derive ``X*`` from ``X`` and fit the estimator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.privileged_ = PCAPrivileged(n_components=self.n_components).fit(X)
        self.estimator_ = clone(self.estimator).fit(
            X, y, privileged_features=self.privileged_.transform(X)
        )
        self.classes_ = self.estimator_.classes_
        return self

    def decision_function(self, X):
        """Decision values of the fitted estimator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            As the wrapped estimator's ``decision_function``.
        """
        check_is_fitted(self, "estimator_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.estimator_.decision_function(X)

    def predict(self, X):
        """Predicted labels of the fitted estimator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "estimator_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.estimator_.predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the wrapped estimator decides what the wrapper supports
        if hasattr(self.estimator, "__sklearn_tags__"):
            inner = get_tags(self.estimator)
            if inner.classifier_tags is not None:
                tags.classifier_tags.multi_class = inner.classifier_tags.multi_class
            tags.non_deterministic = inner.non_deterministic
        return tags
