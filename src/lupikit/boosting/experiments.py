"""The protocol of the Part I notebooks (``notebooks/boosting``): repeated-split comparisons.

A helper for reproducing the experiments of Yan et al. (2023), not an
estimator: :func:`compare_models` fits a dictionary of estimators on repeated
stratified splits of a task of :func:`~lupikit.datasets.load_privileged_task`
and scores them (AUC-ROC, precision, recall, accuracy and the fairness metrics
of :mod:`lupikit.metrics`). The estimators are in :mod:`lupikit.boosting`.
"""

import numbers

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.metrics import accuracy_score, precision_score, recall_score, roc_auc_score
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils import check_random_state

from .._progress import progress as show_progress
from ..metrics import (
    beta_dependence,
    demographic_parity_difference,
    equalized_odds_difference,
)

__all__ = ["compare_models"]


def _top_rate(proba, rate):
    """Predict positive for the ``round(rate * n)`` highest scores."""
    k = int(round(rate * len(proba)))
    pred = np.zeros(len(proba), dtype=int)
    pred[np.argsort(-proba, kind="stable")[:k]] = 1
    return pred


def _score(y, proba, sensitive, base_rate):
    pred = (proba >= 0.5).astype(int)
    row = {
        "auc": roc_auc_score(y, proba),
        "precision": precision_score(y, pred, zero_division=0.0),
        "recall": recall_score(y, pred, zero_division=0.0),
        "accuracy": accuracy_score(y, pred),
        "positive_rate": float(pred.mean()),
    }
    if sensitive is not None:
        row["dp_diff"] = demographic_parity_difference(pred, sensitive)
        row["eo_diff"] = equalized_odds_difference(y, pred, sensitive)
        row["e_beta"] = beta_dependence(pred, sensitive)
        # the same metrics when every model predicts the training base rate
        pred_b = _top_rate(proba, base_rate)
        row["dp_diff_at_base_rate"] = demographic_parity_difference(pred_b, sensitive)
        row["eo_diff_at_base_rate"] = equalized_odds_difference(y, pred_b, sensitive)
        row["e_beta_at_base_rate"] = beta_dependence(pred_b, sensitive)
    return row


def _one_split(models, task, tr, te, rep, privileged_only):
    X, Xs, y, S = task.X, task.X_star, task.y, task.sensitive
    S_te = None if S is None else S[te]
    rows = []
    for name, est in models.items():
        m = clone(est)
        if privileged_only and name == privileged_only:
            m.fit(Xs[tr], y[tr])
            proba = m.predict_proba(Xs[te])[:, 1]
        else:
            params = m.get_params()
            uses_priv = "teacher" in params or params.get("mode", "nf") != "nf"
            kw = {"privileged_features": Xs[tr]} if uses_priv else {}
            m.fit(X[tr], y[tr], **kw)
            proba = m.predict_proba(X[te])[:, 1]
        rows.append({"dataset": task.name, "model": name, "rep": rep,
                     **_score(y[te], proba, S_te, float(np.mean(y[tr])))})
    return rows


def compare_models(models, task, *, n_repeats=3, test_size=0.3, privileged_only=None,
                   random_state=None, n_jobs=None, progress=False):
    """Fit and score several models on repeated stratified splits of a task.

    Parameters
    ----------
    models : dict of str to estimator
        Estimators are cloned for every split. Those that take privileged
        features (a ``teacher`` parameter or ``mode`` other than ``"nf"``)
        receive ``privileged_features=X*`` in ``fit``; all predict from ``X``.
    task : Bunch
        As returned by :func:`~lupikit.datasets.load_privileged_task`.
    n_repeats : int, default=3
        Number of random train/test splits.
    test_size : float, default=0.3
        Test fraction of every split.
    privileged_only : str or None, default=None
        Name of a model in ``models`` to fit and evaluate on ``X*`` instead of
        ``X`` (the "privileged features only" reference of the paper).
    random_state : int, RandomState instance or None, default=None
        Seeds the splits.
    n_jobs : int or None, default=None
        Splits run in parallel with joblib.
    progress : bool, default=False
        Show a tqdm progress bar over the splits (only on a terminal; ``lupikit
        run`` shows it in any case).

    Returns
    -------
    results : :class:`pandas.DataFrame`
        One row per (model, split) with ``auc``, ``precision``, ``recall``,
        ``accuracy``, ``positive_rate`` (fraction predicted positive) and, if the task has a sensitive attribute, ``dp_diff``,
        ``eo_diff`` and ``e_beta`` at the 0.5 threshold, and the same three
        with suffix ``_at_base_rate`` when each model labels positive the
        same fraction of test rows as the training base rate (its top scores),
        which removes differences in calibration.

    Examples
    --------
    >>> from lupikit.boosting import PrivilegedBoostingClassifier
    >>> from lupikit.boosting.experiments import compare_models
    >>> from lupikit.datasets import load_privileged_task
    >>> task = load_privileged_task("breast_cancer")
    >>> res = compare_models({"NF": PrivilegedBoostingClassifier(mode="nf", n_estimators=20)},
    ...                      task, n_repeats=2, random_state=0)
    >>> res.shape[0]
    2
    """
    if not isinstance(n_repeats, numbers.Integral) or n_repeats < 1:
        raise ValueError(f"n_repeats must be a positive integer, got {n_repeats!r}.")
    if privileged_only is not None and privileged_only not in models:
        raise ValueError(f"privileged_only={privileged_only!r} is not a key of models.")
    sss = StratifiedShuffleSplit(n_splits=n_repeats, test_size=test_size,
                                 random_state=check_random_state(random_state))
    splits = list(sss.split(task.X, task.y))
    bar = show_progress(enumerate(splits), total=n_repeats, desc=str(task.get("name", "task")),
                        enabled=progress)
    out = Parallel(n_jobs=n_jobs)(
        delayed(_one_split)(models, task, tr, te, r, privileged_only) for r, (tr, te) in bar
    )
    return pd.DataFrame([row for rows in out for row in rows])
