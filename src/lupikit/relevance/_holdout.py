"""Repeated stratified hold-out of ordinal models: the protocol of the real-data benchmark.

The ordinal benchmark of Gutierrez et al. (2016), which the relevance paper's
authors use, evaluates every model on 30 stratified 75/25 hold-out splits of
each data set by the mean zero-one error (MZE) and the mean absolute error
(MAE). :func:`ordinal_holdout` runs that protocol on splits it draws itself
(:func:`stratified_holdout_splits`): features standardised on the training
part, every hyperparameter chosen on the training part alone by an inner
cross-validation on the macro-averaged MAE, as the authors' code does.
"""

import time
import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ..metrics import macro_averaged_mae, mean_absolute_error, mean_zero_one_error
from ._cv import _CV, _N_JOBS, _check_grid, _folds, _select_C
from ._logistic import OrdinalElasticNet
from ._ordinal import OrdinalRegressionLP, check_ordinal_labels

__all__ = ["HOLDOUT_MODELS", "PAPER_C_GRID", "ALPHA_GRID", "stratified_holdout_splits",
           "ordinal_holdout"]

#: The models :func:`ordinal_holdout` compares: the L1 ordinal LP in both threshold forms,
#: the all-threshold logistic baseline and the constant median.
HOLDOUT_MODELS = ("explicit", "implicit", "logistic", "median")
#: C of the L1 ordinal LP: the grid of the authors' code (fri, tag esann_paper_experiments).
PAPER_C_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)
#: alpha (ridge weight) of the logistic baseline.
ALPHA_GRID = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3)


def stratified_holdout_splits(y, n_splits=30, test_size=0.25, random_state=None):
    """Stratified random hold-out splits that keep every label in training.

    In every split each label contributes ``round(test_size * n_k)`` of its
    ``n_k`` samples to the test part, but never all of them: a label with a
    single sample (bondrate's top rating) always stays in training, where
    scikit-learn's ``StratifiedShuffleSplit`` refuses such a label. The test
    part is thus ``test_size`` of the data up to rounding per label.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels (any values; each distinct value is a stratum).
    n_splits : int, default=30
    test_size : float, default=0.25
        Share of every label that goes to the test part, in (0, 1).
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    list of (train, test)
        Sorted index arrays.

    Examples
    --------
    >>> from lupikit.relevance import stratified_holdout_splits
    >>> y = [1] * 8 + [2] * 4 + [3]
    >>> train, test = stratified_holdout_splits(y, n_splits=1, random_state=0)[0]
    >>> len(train), len(test), 12 in train
    (10, 3, True)
    """
    y = np.asarray(y)
    if y.ndim != 1 or y.size < 2:
        raise ValueError(f"y must be 1-D with at least two samples, got shape {y.shape}.")
    if not isinstance(n_splits, Integral) or isinstance(n_splits, bool) or n_splits < 1:
        raise ValueError(f"n_splits must be a positive integer, got {n_splits!r}.")
    if not isinstance(test_size, Real) or isinstance(test_size, bool) or not 0 < test_size < 1:
        raise ValueError(f"test_size must be a number in (0, 1), got {test_size!r}.")
    rng = check_random_state(random_state)
    strata = [np.flatnonzero(y == v) for v in np.unique(y)]
    sizes = [min(int(np.floor(test_size * idx.size + 0.5)), idx.size - 1) for idx in strata]
    if sum(sizes) == 0:
        raise ValueError(f"test_size={test_size} leaves no sample of these {y.size} for testing.")
    splits = []
    for _ in range(n_splits):
        test = np.concatenate([rng.permutation(idx)[:k] for idx, k in zip(strata, sizes)])
        mask = np.zeros(y.size, dtype=bool)
        mask[test] = True
        splits.append((np.flatnonzero(~mask), np.flatnonzero(mask)))
    return splits


def _logistic(alpha, n_samples):
    """The all-threshold logistic model with the ridge penalty ``alpha/2 ||w||^2`` on the
    *summed* loss: :class:`OrdinalElasticNet` (mean loss) with ``l1_ratio=0``, ``alpha/n``."""
    return OrdinalElasticNet(alpha=alpha / n_samples, l1_ratio=0.0)


def _select_alpha(X, y, grid, cv, random_state):
    """alpha of the logistic baseline by cross-validated macro-MAE (ties: the largest).

    In each fold the grid is fitted from the largest alpha down, each fit
    starting from the previous one's solution (the problem is strictly
    convex: the start changes the solution only within the solver's
    tolerance)."""
    folds = _folds(X, y, cv, random_state)
    scores = np.zeros(len(grid))
    path = sorted(range(len(grid)), key=lambda i: -grid[i])
    with warnings.catch_warnings():  # a fold may lack a middle label
        warnings.simplefilter("ignore", UserWarning)
        for tr, te in folds:
            est = _logistic(grid[path[0]], len(tr)).set_params(warm_start=True)
            Xtr, ytr, Xte = X[tr], y[tr], X[te]
            for i in path:
                est.set_params(alpha=grid[i] / len(tr))
                pred = est.fit(Xtr, ytr).predict(Xte)
                scores[i] += macro_averaged_mae(y[te], pred) / len(folds)
    tied = [i for i in range(len(grid)) if scores[i] <= scores.min() + 1e-12]
    return grid[max(tied, key=lambda i: grid[i])]


def _run_split(X, y, train, test, models, cv, C_grid, alpha_grid, seed):
    """Rows (one per model) of one hold-out split."""
    scaler = StandardScaler().fit(X[train])
    Xtr, Xte = scaler.transform(X[train]), scaler.transform(X[test])
    ytr, yte = y[train], y[test]
    rows = []
    for model in models:
        t0 = time.perf_counter()
        if model in ("explicit", "implicit"):
            C, _ = _select_C(Xtr, ytr, None, C_grid, model, 1.0, cv, seed, None, "auto", None)
            est = OrdinalRegressionLP(C=C, constraints=model).fit(Xtr, ytr)
            pred, param = est.predict(Xte), C
        elif model == "logistic":
            alpha = _select_alpha(Xtr, ytr, alpha_grid, cv, seed)
            pred = _logistic(alpha, len(ytr)).fit(Xtr, ytr).predict(Xte)
            param = alpha
        else:  # the training median: the constant with the least absolute error
            pred, param = np.full(yte.shape, int(np.median(ytr))), np.nan
        rows.append({"model": model, "MZE": mean_zero_one_error(yte, pred),
                     "MAE": mean_absolute_error(yte, pred),
                     "macro-MAE": macro_averaged_mae(yte, pred), "param": float(param),
                     "seconds": time.perf_counter() - t0})
    return rows


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "models": ["array-like"],
        "n_splits": [Interval(Integral, 1, None, closed="left")],
        "test_size": [Interval(Real, 0, 1, closed="neither")],
        "cv": [_CV],
        "C_grid": ["array-like"],
        "alpha_grid": ["array-like"],
        "random_state": ["random_state"],
        "n_jobs": _N_JOBS,
        "prefer": [StrOptions({"processes", "threads"})],
    },
    prefer_skip_nested_validation=True,
)
def ordinal_holdout(X, y, *, models=HOLDOUT_MODELS, n_splits=30, test_size=0.25, cv=3,
                    C_grid=PAPER_C_GRID, alpha_grid=ALPHA_GRID, random_state=None, n_jobs=None,
                    prefer="processes"):
    """MZE and MAE of ordinal models on repeated stratified hold-out splits.

    For each of ``n_splits`` stratified splits (:func:`stratified_holdout_splits`)
    the features are standardised on the training part, each model's
    hyperparameter is chosen on the training part by ``cv``-fold
    cross-validated macro-averaged MAE (the authors' criterion), the model is
    refitted on the whole training part and scored on the test part.

    Models (``models``, a subset of ``HOLDOUT_MODELS``):

    - ``"explicit"``, ``"implicit"``: :class:`OrdinalRegressionLP` with that
      threshold form, C chosen among ``C_grid`` (:func:`select_C`; ties go to
      the smallest C);
    - ``"logistic"``: :class:`OrdinalElasticNet` with a ridge penalty (``l1_ratio=0``), alpha chosen among
      ``alpha_grid`` (ties go to the largest alpha);
    - ``"median"``: the training labels' median, the best constant in MAE.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Integer ordinal labels.
    models : sequence of str, default=HOLDOUT_MODELS
    n_splits : int, default=30
    test_size : float, default=0.25
    cv : int, default=3
        Folds of the inner cross-validation (the authors' code uses 3).
    C_grid : sequence of float, default=PAPER_C_GRID
    alpha_grid : sequence of float, default=ALPHA_GRID
    random_state : int, RandomState instance or None, default=None
        The splits and the inner folds.
    n_jobs : int or None, default=None
        Splits run in parallel with joblib (None: one after the other).
    prefer : {"processes", "threads"}, default="processes"
        joblib's hint for the parallel splits (a backend set by the caller with
        ``joblib.parallel_config``, e.g. Dask, takes precedence).

    Returns
    -------
    pandas.DataFrame
        One row per split and model: ``split``, ``model``, ``MZE``, ``MAE``,
        ``macro-MAE`` (test errors), ``param`` (the chosen C or alpha; NaN for
        the median) and ``seconds`` (selection and fit).

    Examples
    --------
    >>> from lupikit.datasets import make_ordinal_relevance
    >>> from lupikit.relevance import ordinal_holdout
    >>> X, y, _ = make_ordinal_relevance(n_samples=120, n_bins=3, random_state=0)
    >>> res = ordinal_holdout(X, y, models=["explicit", "median"], n_splits=2,
    ...                       C_grid=[0.1, 1.0], random_state=0)
    >>> res.shape, sorted(res["model"].unique())
    ((4, 7), ['explicit', 'median'])
    >>> bool(res.groupby("model")["MAE"].mean()["explicit"] < 0.5)
    True
    """
    models = list(models)
    unknown = [m for m in models if m not in HOLDOUT_MODELS]
    if not models or unknown:
        raise ValueError(f"models must be a non-empty subset of {HOLDOUT_MODELS}, got {models!r}.")
    C_grid = _check_grid(C_grid, "C_grid")
    alpha_grid = _check_grid(alpha_grid, "alpha_grid")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}.")
    classes, yb = check_ordinal_labels(y)
    y = classes[yb]
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y.shape[0]} labels but X has {X.shape[0]} samples.")
    rng = check_random_state(random_state)
    splits = stratified_holdout_splits(y, n_splits, test_size, rng)
    seeds = rng.randint(2**31 - 1, size=n_splits)
    jobs = (delayed(_run_split)(X, y, tr, te, models, cv, C_grid, alpha_grid, int(seed))
            for (tr, te), seed in zip(splits, seeds))
    if n_jobs in (None, 1):
        out = [job[0](*job[1], **job[2]) for job in jobs]
    else:
        out = Parallel(n_jobs=n_jobs, prefer=prefer)(jobs)
    frame = pd.DataFrame([dict(split=s, **row) for s, rows in enumerate(out) for row in rows])
    return frame[["split", "model", "MZE", "MAE", "macro-MAE", "param", "seconds"]]
