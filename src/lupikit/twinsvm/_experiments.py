"""Experiment protocol of Section 5.1: tune on a held-out 10%, then 5-fold CV.

The paper tunes ``c1, c2, gamma, tau`` and the kernel width "using a tuning
set comprising of 10 percent of the data set which is further sent back to
the training dataset". We read this as: hold out a stratified 10% tuning
set, pick the hyperparameters that score best on it when trained on the other
90%, put the tuning set back, and report stratified 5-fold cross-validation
of the chosen model on all the data. Privileged features, when derived from
``X`` (PCA), are recomputed inside every training set.
"""

import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import ParameterGrid, StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler

from ._privileged import PCAPrivileged

__all__ = ["holdout_tune", "cross_validate_lupi"]


def _fit(est, X, y, n_components, uses_priv, Xs=None):
    scaler = StandardScaler().fit(X)
    Xz = scaler.transform(X)
    kw = {}
    if uses_priv:
        if Xs is None:
            Xs = PCAPrivileged(n_components=n_components).fit_transform(X)
        kw["privileged_features"] = Xs
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(Xz, y, **kw)
    return scaler, time.perf_counter() - t0


def holdout_tune(estimator, grid, X, y, *, n_components=0.95, tune_size=0.1, random_state=0):
    """Pick hyperparameters on a held-out stratified tuning set.

    Parameters
    ----------
    estimator : lupikit.twinsvm classifier
    grid : dict
        Parameter grid (as for :class:`~sklearn.model_selection.ParameterGrid`).
    X, y : ndarrays
    n_components : int or float, default=0.95
        Components of the PCA privileged features (privileged models only).
    tune_size : float, default=0.1
    random_state : int, default=0

    Returns
    -------
    best_params : dict
    """
    X_tr, X_tu, y_tr, y_tu = train_test_split(
        X, y, test_size=tune_size, stratify=y, random_state=random_state
    )
    uses_priv = getattr(estimator, "_uses_privileged", False)
    best, best_score = {}, -np.inf
    for params in ParameterGrid(grid):
        est = clone(estimator).set_params(**params)
        scaler, _ = _fit(est, X_tr, y_tr, n_components, uses_priv)
        score = accuracy_score(y_tu, est.predict(scaler.transform(X_tu)))
        if score > best_score + 1e-12:
            best, best_score = params, score
    return best


def cross_validate_lupi(estimator, X, y, *, n_components=0.95, n_splits=5, random_state=0):
    """Stratified k-fold accuracy, macro F1 and training time.

    Returns
    -------
    dict with ``accuracy`` and ``f1`` (arrays over folds) and ``fit_time``
    (seconds, array over folds).
    """
    cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    uses_priv = getattr(estimator, "_uses_privileged", False)
    acc, f1, times = [], [], []
    for tr, te in cv.split(X, y):
        est = clone(estimator)
        scaler, dt = _fit(est, X[tr], y[tr], n_components, uses_priv)
        pred = est.predict(scaler.transform(X[te]))
        acc.append(accuracy_score(y[te], pred))
        f1.append(f1_score(y[te], pred, average="macro"))
        times.append(dt)
    return {"accuracy": np.array(acc), "f1": np.array(f1), "fit_time": np.array(times)}
