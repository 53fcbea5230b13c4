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
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import ParameterGrid, StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler

from .._progress import progress
from ._privileged import PCAPrivileged
from ._twin import DegeneratePlaneWarning

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


def _tune_score(estimator, params, X_tr, y_tr, X_tu, y_tu, n_components, uses_priv):
    est = clone(estimator).set_params(**params)
    with warnings.catch_warnings():
        # a grid point whose planes collapse scores as a constant classifier; the
        # chosen model warns again in cross_validate_lupi if it is one of them
        warnings.simplefilter("ignore", DegeneratePlaneWarning)
        scaler, _ = _fit(est, X_tr, y_tr, n_components, uses_priv)
    return accuracy_score(y_tu, est.predict(scaler.transform(X_tu)))


def holdout_tune(estimator, grid, X, y, *, n_components=0.95, tune_size=0.1, random_state=0,
                 n_jobs=None):
    """Pick hyperparameters on a held-out stratified tuning set.

    Parameters
    ----------
    estimator : lupikit.twinsvm classifier
    grid : dict or list of dict
        Parameter grid (as for :class:`~sklearn.model_selection.ParameterGrid`).
    X, y : ndarrays
    n_components : int or float, default=0.95
        Components of the PCA privileged features (privileged models only).
    tune_size : float, default=0.1
    random_state : int, default=0
    n_jobs : int or None, default=None
        Candidates fitted in parallel with joblib (``None``: one at a time).
        The result does not depend on it.

    Returns
    -------
    best_params : dict
        The first candidate (in grid order) with the best tuning accuracy.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lupikit.twinsvm import PinballTwinSVC, holdout_tune
    >>> X, y = load_iris(return_X_y=True)
    >>> holdout_tune(PinballTwinSVC(kernel="linear"), {"C1": [0.1, 1.0], "tau": [0.5]},
    ...              X, y, random_state=0)
    {'C1': 0.1, 'tau': 0.5}
    """
    X_tr, X_tu, y_tr, y_tu = train_test_split(
        X, y, test_size=tune_size, stratify=y, random_state=random_state
    )
    uses_priv = getattr(estimator, "_uses_privileged", False)
    candidates = list(ParameterGrid(grid))
    scores = Parallel(n_jobs=n_jobs)(
        delayed(_tune_score)(estimator, params, X_tr, y_tr, X_tu, y_tu, n_components, uses_priv)
        for params in progress(candidates, desc=f"tuning {type(estimator).__name__}"))
    best, best_score = {}, -np.inf
    for params, score in zip(candidates, scores):
        if score > best_score + 1e-12:
            best, best_score = params, score
    return best


def _fold(estimator, X, y, tr, te, n_components, uses_priv):
    est = clone(estimator)
    scaler, dt = _fit(est, X[tr], y[tr], n_components, uses_priv)
    pred = est.predict(scaler.transform(X[te]))
    return accuracy_score(y[te], pred), f1_score(y[te], pred, average="macro"), dt


def cross_validate_lupi(estimator, X, y, *, n_components=0.95, n_splits=5, random_state=0,
                        n_jobs=None):
    """Stratified k-fold accuracy, macro F1 and training time.

    Parameters
    ----------
    estimator : lupikit.twinsvm classifier
    X, y : ndarrays
    n_components : int or float, default=0.95
        Components of the PCA privileged features (privileged models only),
        recomputed inside every training fold.
    n_splits : int, default=5
    random_state : int, default=0
    n_jobs : int or None, default=None
        Folds fitted in parallel with joblib (``None``: one at a time). The
        scores do not depend on it; the fit times of parallel folds include
        the contention between them.

    Returns
    -------
    dict
        ``accuracy`` and ``f1`` (macro-averaged), arrays over folds, and
        ``fit_time`` (seconds, array over folds).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lupikit.twinsvm import PinballTwinSVC, cross_validate_lupi
    >>> X, y = load_iris(return_X_y=True)
    >>> res = cross_validate_lupi(PinballTwinSVC(kernel="linear"), X, y, random_state=0)
    >>> res["accuracy"].shape, bool(res["accuracy"].mean() > 0.8)
    ((5,), True)
    """
    cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    uses_priv = getattr(estimator, "_uses_privileged", False)
    folds = Parallel(n_jobs=n_jobs)(
        delayed(_fold)(estimator, X, y, tr, te, n_components, uses_priv)
        for tr, te in progress(cv.split(X, y), total=n_splits, desc=f"folds {type(estimator).__name__}"))
    acc, f1, times = (np.array(v) for v in zip(*folds))
    return {"accuracy": acc, "f1": f1, "fit_time": times}
