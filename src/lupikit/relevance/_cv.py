"""Cross-validation of the relevance model's hyper-parameters (C, and gamma for LUPI).

Each fold's LP is built once and solved along the whole grid, warm-started
(:meth:`~lupikit.relevance.OrdinalLP.solve_path`); the validation error is
the macro-averaged MAE of the ordinal model or the MAE of the regression,
predicted from the regular features only.
"""

import copy
import numbers
import warnings
from collections import Counter
from numbers import Integral

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    StrOptions,
    validate_params,
)

from .._validation import NON_NEGATIVE, POSITIVE, check_nonempty_grid
from ..metrics import macro_averaged_mae
from ._engine import SOLVERS, choose_route
from ._lp import OrdinalLP
from ._ordinal import CONSTRAINTS, check_ordinal_labels

__all__ = ["C_GRID", "GAMMA_GRID", "select_C", "select_C_gamma"]

#: Default grid searched for C when ``C=None``.
C_GRID = tuple(np.logspace(-2, 2, 9))
#: Default grid searched for gamma (LUPI) when ``gamma=None``.
GAMMA_GRID = (0.1, 1.0, 10.0)
#: Folds of the cross-validation: an integer >= 2.
_CV = Interval(Integral, 2, None, closed="left")
#: ``n_jobs`` as joblib reads it: None, or a non-zero integer (-1: all cores).
_N_JOBS = [Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left"),
           None]


def _check_grid(grid, name):
    """A non-empty grid of finite positive numbers, as a list of floats."""
    try:
        return [float(v) for v in check_nonempty_grid(grid, name)]
    except ValueError as exc:  # one exception type for every bad hyperparameter
        raise InvalidParameterError(str(exc)) from None


def _folds(X, y, cv, random_state):
    if not isinstance(cv, numbers.Integral) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2, got {cv!r}.")
    counts = np.unique(y, return_counts=True)[1]
    seed = check_random_state(random_state).randint(2**31 - 1)
    if counts.min() >= cv:
        splitter = StratifiedKFold(cv, shuffle=True, random_state=seed)
    else:
        splitter = KFold(cv, shuffle=True, random_state=seed)
    return list(splitter.split(X, y))


def _fold_labels(y):
    """Bins of a training fold's labels (already validated as a whole)."""
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(
            f"A training fold has only one class ({classes.tolist()}); use fewer folds.")
    return classes, np.searchsorted(classes, y)


def _cv_errors(X, y, privileged_features, pairs, constraints, cv, random_state, n_jobs,
               solver="auto", epsilon=None, fallbacks=None):
    """Mean validation error (prediction from X only) of every (C, gamma) pair:
    macro-MAE of the ordinal model, or MAE of the regression (``epsilon`` given).

    ``fallbacks`` (a ``Counter``), if given, receives the count of every fast path
    that failed in the folds' solves (``lupikit.relevance._engine.FALLBACKS``): a
    fold whose path on the whole data's LP fails is solved as its own LP."""
    if epsilon is None:
        with warnings.catch_warnings():  # a gap in the labels is reported by the caller's fit
            warnings.simplefilter("ignore", UserWarning)
            classes, yb = check_ordinal_labels(y)
        y = classes[yb]
        folds = _folds(X, y, cv, random_state)
    else:
        y = np.asarray(y, dtype=float)
        seed = check_random_state(random_state).randint(2**31 - 1)
        folds = list(KFold(cv, shuffle=True, random_state=seed).split(X))
    # solve along the grid sorted by gamma, then C: one LP per fold, warm-started
    order = sorted(range(len(pairs)), key=lambda i: (pairs[i][1], pairs[i][0]))
    Cs, gammas = [pairs[i][0] for i in order], [pairs[i][1] for i in order]
    whole = _whole_data_lp(X, y, privileged_features, folds, constraints, solver, epsilon)

    def run_fold(tr, te, lp=None):
        """The fold's validation errors, and the fast paths that failed in its solves."""
        if epsilon is None:
            classes, target = _fold_labels(y[tr])
            n_bins = classes.size
        else:
            target, n_bins = y[tr], 2
        failed = Counter()
        sols = None
        if lp is not None:  # the plain model's dual: the fold's samples alone (same LP)
            before = Counter(lp.engine.fallbacks)
            sols = lp.solve_path(Cs, gammas, samples=tr)
            failed += lp.engine.fallbacks - before
        if sols is None:  # the fold's own LP (also the exact route of a failed fold path)
            Xs = None if privileged_features is None else privileged_features[tr]
            lp = OrdinalLP(X[tr], target, n_bins, 1.0, constraints, X_star=Xs, gamma=1.0,
                           solver=solver, epsilon=epsilon)
            sols = lp.solve_path(Cs, gammas)
            failed += lp.engine.fallbacks
        errs = np.empty(len(pairs))
        for i, x in zip(order, sols):
            parts = lp.split(x)
            if epsilon is None:
                thr = np.sort(parts["b"])
                pred = classes[np.searchsorted(thr, X[te] @ parts["w"], side="right")]
                errs[i] = macro_averaged_mae(y[te], pred)
            else:
                errs[i] = np.mean(np.abs(y[te] - (X[te] @ parts["w"] - parts["b"][0])))
        return errs, failed

    if n_jobs in (None, 1):
        out = [run_fold(tr, te, whole) for tr, te in folds]
    else:
        # threads by default: HiGHS releases the GIL while it solves, and each fold
        # has its own LP (a backend set by the caller, e.g. Dask, takes precedence);
        # a fold solved on the whole data's LP gets its own copy of it, with the same
        # answers up to rounding (every fold's path starts from the whole model's
        # optimum at the first C)
        out = Parallel(n_jobs=n_jobs, prefer="threads")(
            delayed(run_fold)(tr, te, None if whole is None else copy.deepcopy(whole))
            for tr, te in folds)
    if fallbacks is not None:
        for _, failed in out:
            fallbacks.update(failed)
    return np.mean([errs for errs, _ in out], axis=0)


def _whole_data_lp(X, y, privileged_features, folds, constraints, solver, epsilon):
    """The plain model's LP on all samples, whose dual solves each fold's path with the
    other samples held out (no LP per fold), or None where that does not apply:
    LUPI, an ordinal fold that lacks a label (its model has fewer thresholds), or a
    path that does not take the dual route (``choose_route``). A copy of it
    (``copy.deepcopy``) has HiGHS instances of its own."""
    if privileged_features is not None:
        return None
    if epsilon is None:
        classes, target = np.unique(y, return_inverse=True)
        if any(np.unique(y[tr]).size < classes.size for tr, _ in folds):
            return None
        n_bins = classes.size
    else:
        target, n_bins = y, 2

    lp = OrdinalLP(X, target, n_bins, 1.0, constraints, solver=solver, epsilon=epsilon)
    return lp if choose_route(lp, solver, "path") == "dual_path" else None


def _best(scores, keys):
    """Index of the smallest score; ties go to the smallest key (C, then gamma)."""
    tied = [i for i in range(len(scores)) if scores[i] <= scores.min() + 1e-12]
    return min(tied, key=lambda i: keys[i])


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "privileged_features": ["array-like", None],
        "C_grid": ["array-like"],
        "constraints": [CONSTRAINTS],
        "gamma": [POSITIVE],
        "cv": [_CV],
        "random_state": ["random_state"],
        "n_jobs": _N_JOBS,
        "solver": [StrOptions(set(SOLVERS))],
        "epsilon": [NON_NEGATIVE, None],
    },
    prefer_skip_nested_validation=True,
)
def select_C(X, y, privileged_features=None, *, C_grid=C_GRID, constraints="explicit",
             gamma=1.0, cv=5, random_state=None, n_jobs=None, solver="auto", epsilon=None):
    """Choose C for :class:`OrdinalRegressionLP` (or :class:`L1SVR`) by cross-validation.

    The score is the validation macro-MAE of the ordinal model, or with
    ``epsilon`` the mean absolute error of the L1 SVR. Ordinal folds are
    stratified by label when every label has at least ``cv`` samples
    (otherwise, and for regression, shuffled K-fold). Validation predictions
    use the regular features only. Ties go to the smallest C.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    privileged_features : ndarray of shape (n_samples, n_privileged) or None
        Used for training in every fold (LUPI model).
    C_grid : sequence of float
        Candidates for C: a non-empty list of finite numbers > 0.
    constraints : {"explicit", "implicit"}
    gamma : float
        Weight (> 0) of the correcting functions (LUPI only); see
        :func:`select_C_gamma` to choose it jointly with C.
    cv : int
        Number of folds (at least 2).
    random_state : int, RandomState or None
        Shuffling of the folds.
    n_jobs : int or None
        Parallel folds with joblib (threads unless the caller sets a backend).
    solver : {"auto", "primal", "dual"}
        ``"primal"`` solves each fold's path over C with the primal simplex;
        otherwise the model takes its LP dual (the book's Part III theory
        chapter compares the two): for the plain model C is a column box there,
        for LUPI the costs are its row bounds (``"dual"`` and ``"auto"`` are the same there).
    epsilon : float or None
        None: the ordinal model; a float: the L1 SVR with this tube
        (``y`` then real-valued).

    Returns
    -------
    best_C : float
    scores : ndarray of shape (len(C_grid),)
        Mean validation error of every C.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        If a parameter is invalid, e.g. an empty ``C_grid`` or one holding NaN.

    Examples
    --------
    >>> from lupikit.datasets import make_ordinal_relevance
    >>> from lupikit.relevance import select_C
    >>> X, y, _ = make_ordinal_relevance(n_samples=100, random_state=0)
    >>> C, scores = select_C(X, y, C_grid=[0.1, 1.0], cv=3, random_state=0)
    >>> C in (0.1, 1.0), scores.shape
    (True, (2,))
    """
    return _select_C(X, y, privileged_features, _check_grid(C_grid, "C_grid"), constraints,
                     gamma, cv, random_state, n_jobs, solver, epsilon)


def _select_C(X, y, privileged_features, grid, constraints, gamma, cv, random_state, n_jobs,
              solver, epsilon, fallbacks=None):
    """:func:`select_C` on a checked grid; ``fallbacks`` as in :func:`_cv_errors`."""
    scores = _cv_errors(X, y, privileged_features, [(C, float(gamma)) for C in grid],
                        constraints, cv, random_state, n_jobs, solver, epsilon, fallbacks)
    return grid[_best(scores, grid)], scores


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "privileged_features": ["array-like", None],
        "C_grid": ["array-like"],
        "gamma_grid": ["array-like"],
        "cv": [_CV],
        "random_state": ["random_state"],
        "n_jobs": _N_JOBS,
        "solver": [StrOptions({"auto", "primal"})],
        "epsilon": [NON_NEGATIVE, None],
    },
    prefer_skip_nested_validation=True,
)
def select_C_gamma(X, y, privileged_features, *, C_grid=C_GRID, gamma_grid=GAMMA_GRID,
                   cv=5, random_state=None, n_jobs=None, solver="auto", epsilon=None):
    """Choose C and gamma of the LUPI model jointly by cross-validation.

    The score is the validation macro-MAE of the ordinal model, or with
    ``epsilon`` the mean absolute error of the LUPI L1 SVR.

    Every pair of the grid ``C_grid x gamma_grid`` is trained with the
    privileged features and validated on held-out folds by predicting from the
    regular features only (the privileged ones are not available at test
    time). Ties go to the smallest C, then the smallest gamma.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    privileged_features : ndarray of shape (n_samples, n_privileged)
    C_grid, gamma_grid : sequence of float
        Candidates: non-empty lists of finite numbers > 0.
    cv : int
        Number of folds (at least 2).
    random_state : int, RandomState or None
        Shuffling of the folds.
    n_jobs : int or None
        Parallel folds with joblib (threads unless the caller sets a backend).
    solver : {"auto", "primal"}
        ``"primal"`` solves each fold's path over the grid with the primal
        simplex; ``"auto"`` on the model's LP dual, where C and gamma move
        only the row bounds, so each solve restarts from the last basis (the
        same optimal values).
    epsilon : float or None
        None: the ordinal model; a float: the LUPI L1 SVR with this tube.

    Returns
    -------
    best_C, best_gamma : float
    scores : ndarray of shape (len(C_grid), len(gamma_grid))
        Mean validation error of every pair.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        If a parameter is invalid, e.g. an empty grid or one holding NaN.

    Examples
    --------
    >>> from lupikit.datasets import make_lupi_ordinal
    >>> from lupikit.relevance import select_C_gamma
    >>> X, Xs, y, _, _ = make_lupi_ordinal(n_samples=90, random_state=0)
    >>> C, gamma, scores = select_C_gamma(X, y, Xs, C_grid=[0.1, 1.0],
    ...                                   gamma_grid=[0.1, 1.0], cv=3, random_state=0)
    >>> scores.shape
    (2, 2)
    """
    if privileged_features is None:
        raise ValueError("privileged_features are required to choose gamma.")
    return _select_C_gamma(X, y, privileged_features, _check_grid(C_grid, "C_grid"),
                           _check_grid(gamma_grid, "gamma_grid"), cv, random_state, n_jobs,
                           solver, epsilon)


def _select_C_gamma(X, y, privileged_features, Cs, gs, cv, random_state, n_jobs, solver,
                    epsilon, fallbacks=None):
    """:func:`select_C_gamma` on checked grids; ``fallbacks`` as in :func:`_cv_errors`."""
    pairs = [(C, g) for C in Cs for g in gs]
    scores = _cv_errors(X, y, privileged_features, pairs, "explicit", cv, random_state, n_jobs,
                        solver, epsilon, fallbacks)
    best = _best(scores, pairs)
    return pairs[best][0], pairs[best][1], scores.reshape(len(Cs), len(gs))
