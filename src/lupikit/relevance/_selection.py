"""The paper's synthetic feature-selection experiment: relevance bounds against baselines.

Section 6.1 of Pfannschmidt et al. scores the features that each method
selects against the truth (strongly and weakly relevant features count as
relevant) with precision, recall and F1, averaged over repetitions of the
synthetic Sets 1-5 (:func:`lupikit.datasets.make_ordinal_benchmark`). The
baselines follow the authors' published experiment scripts:

- an ordinal linear model with an elastic-net penalty whose features are
  chosen by recursive feature elimination with cross-validation (RFECV;
  the authors used their large-margin ordinal model with the penalty
  ``l1_ratio * ||w||_1 + (1 - l1_ratio) * ||w||_2^2``, at ``l1_ratio = 1``
  and the relevance model's C in that experiment; ours is
  :class:`OrdinalElasticNet`, an all-threshold logistic model, with the
  penalty's strength and mix chosen by cross-validation first, as in the
  authors' later ElasticNet baseline);
- lasso and ridge regression on the class labels as numbers, each with
  scikit-learn's ``SelectFromModel`` at its default threshold (``1e-5`` for
  lasso, the mean absolute weight for ridge), as in the authors' scripts.
"""

import time
import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import RFECV, SelectFromModel
from sklearn.linear_model import LassoCV, RidgeCV
from sklearn.metrics import precision_recall_fscore_support
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from ..datasets import FRI_SETS, make_ordinal_benchmark
from ._bounds import FeatureRelevanceBounds
from ._logistic import OrdinalElasticNet

__all__ = [
    "SELECTION_METHODS",
    "select_features",
    "selection_scores",
    "selection_benchmark",
    "selection_table",
]

#: Penalty strengths searched for :class:`OrdinalElasticNet` before the RFECV.
ALPHAS = (1e-3, 1e-2, 1e-1)
#: Elastic-net mixes searched (1 is the lasso penalty; the authors' RFECV model used 1).
L1_RATIOS = (0.1, 0.5, 1.0)

#: The methods compared, in the order of the paper's table.
SELECTION_METHODS = ("relevance bounds", "ElasticNet ordinal + RFECV",
                     "lasso + SelectFromModel", "ridge + SelectFromModel")




def _relevance_bounds(X, y, seed):
    return FeatureRelevanceBounds(random_state=seed, n_jobs=1).fit(X, y).get_support()


def _elasticnet_rfecv(X, y, seed):
    # the penalty first (3-fold grid search, as the authors' ElasticNet baseline), then
    # recursive elimination with 5-fold cross-validation of the mean absolute error
    search = GridSearchCV(OrdinalElasticNet(), {"alpha": ALPHAS, "l1_ratio": L1_RATIOS},
                          cv=StratifiedKFold(3, shuffle=True, random_state=seed),
                          scoring="neg_mean_absolute_error")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search.fit(X, y)
        rfe = RFECV(search.best_estimator_, step=1,
                    cv=StratifiedKFold(5, shuffle=True, random_state=seed),
                    scoring="neg_mean_absolute_error").fit(X, y)
    return rfe.get_support()


def _lasso(X, y, seed):
    return SelectFromModel(LassoCV(cv=5, random_state=seed)).fit(X, y).get_support()


def _ridge(X, y, seed):
    return SelectFromModel(RidgeCV()).fit(X, y).get_support()


_SELECTORS = dict(zip(SELECTION_METHODS, (_relevance_bounds, _elasticnet_rfecv, _lasso, _ridge)))


def select_features(method, X, y, *, random_state=0):
    """The features that one method of the comparison selects.

    Parameters
    ----------
    method : str
        One of ``SELECTION_METHODS``: ``"relevance bounds"``
        (:class:`FeatureRelevanceBounds` with its defaults, ``get_support()``),
        ``"ElasticNet ordinal + RFECV"`` (:class:`OrdinalElasticNet`, alpha in
        ``(1e-3, 1e-2, 0.1)`` and l1_ratio in ``(0.1, 0.5, 1)`` by 3-fold
        cross-validated MAE, then ``RFECV`` with 5 folds),
        ``"lasso + SelectFromModel"`` (``LassoCV``, threshold ``1e-5``) or
        ``"ridge + SelectFromModel"`` (``RidgeCV``, threshold: the mean
        absolute weight); lasso and ridge regress the labels as numbers.
    X : array-like of shape (n_samples, n_features)
        Standardised features.
    y : array-like of shape (n_samples,)
        Integer ordinal labels.
    random_state : int, default=0
        Seed of the probes and the cross-validation folds.

    Returns
    -------
    support : ndarray of bool of shape (n_features,)

    Examples
    --------
    >>> from lupikit.datasets import make_ordinal_benchmark
    >>> from lupikit.relevance import select_features
    >>> X, y, relevance = make_ordinal_benchmark(1, random_state=0)
    >>> select_features("lasso + SelectFromModel", X, y).shape
    (12,)
    """
    if method not in _SELECTORS:
        raise ValueError(f"method must be one of {list(SELECTION_METHODS)}, got {method!r}.")
    return np.asarray(_SELECTORS[method](X, y, random_state), dtype=bool)


def selection_scores(relevant, support):
    """Precision, recall and F1 of a selected feature set against the truth.

    Parameters
    ----------
    relevant : array-like of bool of shape (n_features,)
        The truth (strongly or weakly relevant).
    support : array-like of bool of shape (n_features,)
        The selected features.

    Returns
    -------
    dict
        ``precision``, ``recall`` and ``f1`` (0 where undefined, e.g. the
        precision of an empty selection).

    Examples
    --------
    >>> from lupikit.relevance import selection_scores
    >>> selection_scores([True, True, False, False], [True, False, True, False])
    {'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
    """
    relevant = np.asarray(relevant, dtype=bool)
    support = np.asarray(support, dtype=bool)
    if relevant.shape != support.shape or relevant.ndim != 1:
        raise ValueError(f"relevant and support must be 1-D of the same length, got shapes "
                         f"{relevant.shape} and {support.shape}.")
    p, r, f, _ = precision_recall_fscore_support(relevant, support, average="binary",
                                                 zero_division=0)
    return {"precision": float(p), "recall": float(r), "f1": float(f)}


def _seed(random_state, set_id, repetition):
    """An int seed per (set, repetition), independent of the order of the runs."""
    return int(np.random.SeedSequence([random_state, set_id, repetition]).generate_state(1)[0])


def _one_repetition(set_id, repetition, random_state, methods):
    seed = _seed(random_state, set_id, repetition)
    X, y, relevance = make_ordinal_benchmark(set_id, random_state=seed)
    rows = []
    for method in methods:
        t0 = time.perf_counter()
        support = select_features(method, X, y, random_state=seed)
        rows.append({"set": set_id, "repetition": repetition, "method": method,
                     **selection_scores(relevance > 0, support),
                     "n_selected": int(support.sum()), "seconds": time.perf_counter() - t0})
    return rows


def selection_benchmark(sets=(1, 2, 3, 4, 5), n_repetitions=25, *, methods=SELECTION_METHODS,
                        random_state=0, n_jobs=None):
    """Feature-selection scores of every method on repetitions of the synthetic sets.

    Each repetition draws a new data set of the set's kind
    (:func:`lupikit.datasets.make_ordinal_benchmark`, standardised, seeded by
    ``(random_state, set, repetition)``) and gives it to every method.

    Parameters
    ----------
    sets : sequence of int, default=(1, 2, 3, 4, 5)
        Set numbers (``lupikit.datasets.FRI_SETS``).
    n_repetitions : int, default=25
        Data sets drawn per set.
    methods : sequence of str, default=SELECTION_METHODS
    random_state : int, default=0
    n_jobs : int or None, default=None
        Repetitions run in parallel with joblib (``None``: one after another);
        every method itself runs on one core.

    Returns
    -------
    pandas.DataFrame
        One row per set, repetition and method: ``precision``, ``recall``,
        ``f1``, ``n_selected`` and the method's ``seconds``.

    Examples
    --------
    >>> from lupikit.relevance import selection_benchmark
    >>> scores = selection_benchmark(sets=[1], n_repetitions=1,
    ...                              methods=["ridge + SelectFromModel"])
    >>> scores[["set", "method", "n_selected"]].values.tolist()
    [[1, 'ridge + SelectFromModel', 6]]
    """
    sets = [int(s) for s in sets]
    bad = [s for s in sets if s not in FRI_SETS]
    if bad or not sets:
        raise ValueError(f"sets must be a non-empty list of {sorted(FRI_SETS)}, got {sets}.")
    if isinstance(n_repetitions, bool) or not isinstance(n_repetitions, (int, np.integer)) \
            or n_repetitions < 1:
        raise ValueError(f"n_repetitions must be a positive integer, got {n_repetitions!r}.")
    methods = list(methods)
    unknown = [m for m in methods if m not in _SELECTORS]
    if unknown or not methods:
        raise ValueError(f"methods must be taken from {list(SELECTION_METHODS)}, got {methods}.")
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)) \
            or random_state < 0:
        raise ValueError(f"random_state must be a non-negative integer, got {random_state!r}.")
    runs = Parallel(n_jobs=n_jobs)(
        delayed(_one_repetition)(s, r, int(random_state), methods)
        for s in sets for r in range(n_repetitions))
    return pd.DataFrame([row for rows in runs for row in rows])


def selection_table(scores):
    """Mean precision, recall and F1 per set and method: the layout of the paper's table.

    Parameters
    ----------
    scores : pandas.DataFrame
        The output of :func:`selection_benchmark`.

    Returns
    -------
    pandas.DataFrame
        Index: the sets (``"Set 1"`` ...) and a last row ``"mean"`` over them;
        columns: (metric, method), in the order of ``SELECTION_METHODS``.
    """
    methods = [m for m in SELECTION_METHODS if m in set(scores["method"])]
    table = scores.pivot_table(index="set", columns="method",
                               values=["precision", "recall", "f1"], aggfunc="mean")
    table = table.reindex(columns=pd.MultiIndex.from_product(
        [["precision", "recall", "f1"], methods]))
    table.index = [f"Set {s}" for s in table.index]
    table.loc["mean"] = table.mean(axis=0)
    return table
