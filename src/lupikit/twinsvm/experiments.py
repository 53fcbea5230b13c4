"""The protocol of the Part II notebooks (``notebooks/twinsvm``): Section 5.1 of the paper.

Helpers for reproducing the UCI experiments of the pinball twin SVM paper,
not estimators (those are in :mod:`lupikit.twinsvm`): tune on a held-out 10%
(:func:`holdout_tune`), then 5-fold cross-validation
(:func:`cross_validate_lupi`).

The paper tunes ``c1, c2, gamma, tau`` and the kernel width "using a tuning
set comprising of 10 percent of the data set which is further sent back to
the training dataset". We read this as: hold out a stratified 10% tuning
set, pick the hyperparameters that score best on it when trained on the other
90%, put the tuning set back, and report stratified 5-fold cross-validation
of the chosen model on all the data. Privileged features, when derived from
``X`` (PCA), are recomputed inside every training set.

A fit whose dual solver stops at ``max_iter`` raises a
:class:`~sklearn.exceptions.ConvergenceWarning`. Both functions count these
warnings fit by fit (also for fits run in joblib workers, whose warnings
never reach the caller) and emit one summarising ``ConvergenceWarning`` that
names the estimator and how many fits did not converge;
:func:`cross_validate_lupi` also returns the count of every fold.
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
    """Fit ``est`` on standardised ``X``: ``(scaler, seconds, ConvergenceWarnings, collapsed planes)``.

    The ConvergenceWarnings of the fit are recorded and counted (the caller
    reports them); the DegeneratePlaneWarnings (one per binary problem whose
    plane collapsed to w = 0) are counted too. The other warnings are passed
    on as they were raised, each distinct message once.
    """
    scaler = StandardScaler().fit(X)
    Xz = scaler.transform(X)
    kw = {}
    if uses_priv:
        if Xs is None:
            Xs = PCAPrivileged(n_components=n_components).fit_transform(X)
        kw["privileged_features"] = Xs
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)  # count each one, none deduplicated
        warnings.simplefilter("always", DegeneratePlaneWarning)
        est.fit(Xz, y, **kw)
    seconds = time.perf_counter() - t0
    n_not_converged = n_collapsed = 0
    passed_on = set()
    for w in caught:
        if issubclass(w.category, ConvergenceWarning):
            n_not_converged += 1
            continue
        n_collapsed += issubclass(w.category, DegeneratePlaneWarning)
        if (w.category, str(w.message)) not in passed_on:  # (one-vs-one: the same words from many pairs)
            passed_on.add((w.category, str(w.message)))
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    return scaler, seconds, n_not_converged, n_collapsed


def _warn_not_converged(estimator, counts, fits, labels=None):
    """One ConvergenceWarning summarising the fits whose count is positive."""
    bad = [i for i, c in enumerate(counts) if c > 0]
    if not bad:
        return
    which = ""
    if labels is not None:
        shown = ", ".join(str(labels[i]) for i in bad[:3])
        which = f" ({shown}{', ...' if len(bad) > 3 else ''})"
    warnings.warn(
        f"{type(estimator).__name__}: {len(bad)} of {len(counts)} {fits}{which} did not converge "
        f"({sum(counts)} ConvergenceWarnings of the dual solver); their results come from "
        "solutions stopped at max_iter. Increase max_iter (or tol) to let them converge.",
        ConvergenceWarning, stacklevel=3,
    )


def _tune_score(estimator, params, X_tr, y_tr, X_tu, y_tu, n_components, uses_priv):
    est = clone(estimator).set_params(**params)
    with warnings.catch_warnings():
        # a grid point whose planes collapse scores as a constant classifier; the
        # chosen model warns again in cross_validate_lupi if it is one of them
        warnings.simplefilter("ignore", DegeneratePlaneWarning)
        scaler, _, n_not_converged, _ = _fit(est, X_tr, y_tr, n_components, uses_priv)
    return accuracy_score(y_tu, est.predict(scaler.transform(X_tu))), n_not_converged


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

    Warns
    -----
    ConvergenceWarning
        One, after tuning, if the fits of some candidates did not converge:
        it names the estimator, how many of the candidates and the first of
        them. Their scores (and possibly the choice) come from solutions
        stopped at ``max_iter``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lupikit.twinsvm import PinballTwinSVC
    >>> from lupikit.twinsvm.experiments import holdout_tune
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
    out = Parallel(n_jobs=n_jobs)(
        delayed(_tune_score)(estimator, params, X_tr, y_tr, X_tu, y_tu, n_components, uses_priv)
        for params in progress(candidates, desc=f"tuning {type(estimator).__name__}"))
    scores = [score for score, _ in out]
    _warn_not_converged(estimator, [n for _, n in out], "candidate fits on the tuning split",
                        labels=candidates)
    best, best_score = {}, -np.inf
    for params, score in zip(candidates, scores):
        if score > best_score + 1e-12:
            best, best_score = params, score
    return best


def _fold(estimator, X, y, tr, te, n_components, uses_priv):
    est = clone(estimator)
    scaler, dt, n_not_converged, n_collapsed = _fit(est, X[tr], y[tr], n_components, uses_priv)
    pred = est.predict(scaler.transform(X[te]))
    return (accuracy_score(y[te], pred), f1_score(y[te], pred, average="macro"), dt,
            n_not_converged, n_collapsed)


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
        ``accuracy`` and ``f1`` (macro-averaged), arrays over folds,
        ``fit_time`` (seconds, array over folds),
        ``n_convergence_warnings`` (int array over folds: the
        ConvergenceWarnings raised by the fit of each fold; 0 where the
        solver converged) and ``n_collapsed_planes`` (int array over folds:
        the binary problems whose plane collapsed to w = 0, each announced
        by a :class:`~lupikit.twinsvm.DegeneratePlaneWarning`).

    Warns
    -----
    ConvergenceWarning
        One, after the folds, if the fits of some folds did not converge: it
        names the estimator and how many folds.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lupikit.twinsvm import PinballTwinSVC
    >>> from lupikit.twinsvm.experiments import cross_validate_lupi
    >>> X, y = load_iris(return_X_y=True)
    >>> res = cross_validate_lupi(PinballTwinSVC(kernel="linear"), X, y, random_state=0)
    >>> res["accuracy"].shape, bool(res["accuracy"].mean() > 0.8)
    ((5,), True)
    >>> res["n_convergence_warnings"]  # the solver converged on every fold
    array([0, 0, 0, 0, 0])
    """
    cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    uses_priv = getattr(estimator, "_uses_privileged", False)
    folds = Parallel(n_jobs=n_jobs)(
        delayed(_fold)(estimator, X, y, tr, te, n_components, uses_priv)
        for tr, te in progress(cv.split(X, y), total=n_splits, desc=f"folds {type(estimator).__name__}"))
    acc, f1, times, n_warnings, n_collapsed = (np.array(v) for v in zip(*folds))
    _warn_not_converged(estimator, n_warnings.tolist(), "folds")
    return {"accuracy": acc, "f1": f1, "fit_time": times, "n_convergence_warnings": n_warnings,
            "n_collapsed_planes": n_collapsed}
