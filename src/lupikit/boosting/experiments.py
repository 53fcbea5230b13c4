"""Privileged-information tasks and the repeated-split comparison of Part I.

:func:`load_privileged_task` turns the data sets we can use offline into LUPI
tasks ``(X, X*, y)`` plus a sensitive group label for the fairness metrics:

========================  ===============================  ==================================
task                      regular features ``X``           privileged features ``X*``
========================  ===============================  ==================================
``"breast_cancer"``       the 10 "mean" and 10 "error"      the 10 "worst" cell-nucleus
                          cell-nucleus measurements        measurements (the most predictive)
``"lupi_synthetic"``      noisy mixture of ``X*``           clean latent signal
                          (:func:`~lupikit.datasets.make_lupi_classification`)
``"adult"``               census features except sex,      sex and race (one-hot)
                          race
``"compas"``              age, juvenile and prior counts,  race and sex (one-hot)
                          charge degree
``"german"``              credit features except sex and   sex and age
                          ``status_sex`` (which encodes
                          sex)
========================  ===============================  ==================================

For the fairness tasks the sensitive attributes are the privileged features,
as in Yan et al. (2023); ``sensitive`` is one binary group label used by the
fairness metrics: sex (Adult, German) or African-American vs other (COMPAS).

:func:`compare_models` fits a dictionary of estimators on repeated stratified
splits and scores them (AUC-ROC, precision, recall, accuracy and the fairness
metrics of :mod:`lupikit.metrics`).
"""

import numbers

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import accuracy_score, precision_score, recall_score, roc_auc_score
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils import Bunch, check_random_state

from .._progress import progress as show_progress
from ..datasets import load_adult, load_compas, load_german, make_lupi_classification
from ..metrics import (
    beta_dependence,
    demographic_parity_difference,
    equalized_odds_difference,
)

__all__ = ["TASKS", "load_privileged_task", "compare_models"]

TASKS = ("breast_cancer", "lupi_synthetic", "adult", "compas", "german")


def _one_hot(frame):
    """One-hot columns; a missing category makes all of its column's dummies NaN."""
    # pandas' order: the numeric columns first, then the dummies column by column
    numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    parts = [frame[numeric].astype(float)]
    for col in frame.columns.difference(numeric, sort=False):
        dummies = pd.get_dummies(frame[col], prefix=col, dtype=float)
        dummies.loc[frame[col].isna().to_numpy()] = np.nan
        parts.append(dummies)
    return pd.concat(parts, axis=1)


def _subsample(rng, y, n):
    """Stratified subsample of ``n`` row indices (all rows if n is None)."""
    if n is None or n >= len(y):
        return np.arange(len(y))
    sss = StratifiedShuffleSplit(n_splits=1, train_size=n, random_state=rng)
    idx, _ = next(sss.split(np.zeros(len(y)), y))
    return np.sort(idx)


def load_privileged_task(name, *, n_samples=None, random_state=None, keep_missing=False):
    """Load one of the Part I tasks as ``(X, X*, y, sensitive)``.

    Parameters
    ----------
    name : {"breast_cancer", "lupi_synthetic", "adult", "compas", "german"}
        Task name (see the module docstring for the feature split).
    n_samples : int or None, default=None
        If set, a stratified random subsample of this many rows (the size of
        the synthetic task; 2000 rows if None for ``"lupi_synthetic"``).
    random_state : int, RandomState instance or None, default=None
        Seeds the subsample and the synthetic generator.
    keep_missing : bool, default=False
        Adult only: keep the 3,620 rows with a missing category (48,842 rows
        in all instead of 45,222); the one-hot columns of a missing category
        are NaN there, for estimators that handle missing values (the
        histogram engine of :class:`PrivilegedBoostingClassifier`). The other
        tasks have no missing values, and it changes nothing for them.

    Returns
    -------
    task : :class:`sklearn.utils.Bunch`
        ``X``, ``X_star`` (float arrays), ``y`` (0/1), ``sensitive`` (0/1
        group label, or None for tasks without a sensitive attribute),
        ``feature_names``, ``privileged_names``, ``name`` and ``DESCR``.

    Examples
    --------
    >>> from lupikit.boosting import load_privileged_task
    >>> task = load_privileged_task("german")
    >>> task.X.shape[0], task.privileged_names
    (1000, ['age', 'sex_female', 'sex_male'])
    """
    if name not in TASKS:
        raise ValueError(f"name must be one of {TASKS}, got {name!r}.")
    if n_samples is not None and (
        not isinstance(n_samples, numbers.Integral) or n_samples < 10
    ):
        raise ValueError(f"n_samples must be an integer >= 10 or None, got {n_samples!r}.")
    if not isinstance(keep_missing, bool):
        raise TypeError(f"keep_missing must be True or False, got {keep_missing!r}.")
    rng = check_random_state(random_state)
    sensitive = None
    if name == "lupi_synthetic":
        n = 2000 if n_samples is None else int(n_samples)
        X, X_star, y = make_lupi_classification(
            n, n_features=20, n_privileged=5, noise=1.5, label_noise=0.05,
            random_state=rng,
        )
        names = [f"x{j}" for j in range(X.shape[1])]
        pnames = [f"x*{j}" for j in range(X_star.shape[1])]
        descr = "make_lupi_classification(n_features=20, n_privileged=5, noise=1.5)"
        return Bunch(X=X, X_star=X_star, y=y, sensitive=None, feature_names=names,
                     privileged_names=pnames, name=name, DESCR=descr)
    if name == "breast_cancer":
        bc = load_breast_cancer()
        names = list(bc.feature_names)
        priv = [j for j, f in enumerate(names) if f.startswith("worst")]
        reg = [j for j in range(len(names)) if j not in priv]
        # scikit-learn codes malignant as 0; make malignant the positive class
        X, X_star, y = bc.data[:, reg], bc.data[:, priv], 1 - bc.target
        fn, pn = [names[j] for j in reg], [names[j] for j in priv]
        descr = ("Wisconsin diagnostic breast cancer (scikit-learn); positive = "
                 "malignant; X* = the 10 'worst' measurements.")
    elif name == "adult":
        b = load_adult(subset="all", dropna=not keep_missing)
        sens = ["sex", "race"]
        X_df = _one_hot(b.data.drop(columns=sens))
        S_df = _one_hot(b.data[sens])
        X, X_star, y = X_df.to_numpy(), S_df.to_numpy(), b.target
        fn, pn = list(X_df.columns), list(S_df.columns)
        sensitive = (b.data["sex"] == "Female").to_numpy().astype(int)
        descr = ("UCI Adult (train + test" + (", rows with missing values kept as NaN" if keep_missing
                                              else ", rows with missing values dropped")
                 + "); X* = sex, race; groups: female vs male.")
    elif name == "compas":
        b = load_compas()
        sens = ["race", "sex"]
        keep = ["age", "juv_fel_count", "juv_misd_count", "juv_other_count",
                "priors_count", "c_charge_degree"]
        X_df = _one_hot(b.data[keep])
        S_df = _one_hot(b.data[sens])
        X, X_star, y = X_df.to_numpy(), S_df.to_numpy(), b.target
        fn, pn = list(X_df.columns), list(S_df.columns)
        sensitive = (b.data["race"] == "African-American").to_numpy().astype(int)
        descr = ("ProPublica COMPAS (two-year recidivism), without the COMPAS scores; "
                 "X* = race, sex; groups: African-American vs other.")
    else:  # german
        b = load_german()
        X_df = _one_hot(b.data.drop(columns=["sex", "age", "status_sex"]))
        S_df = pd.concat([b.data[["age"]].astype(float), _one_hot(b.data[["sex"]])], axis=1)
        X, X_star, y = X_df.to_numpy(), S_df.to_numpy(), b.target
        fn, pn = list(X_df.columns), list(S_df.columns)
        sensitive = (b.data["sex"] == "female").to_numpy().astype(int)
        descr = ("Statlog German credit; positive = good risk; X* = sex, age; "
                 "status_sex dropped from X (it encodes sex); groups: female vs male.")
    idx = _subsample(rng, y, n_samples)
    return Bunch(
        X=np.asarray(X, dtype=float)[idx], X_star=np.asarray(X_star, dtype=float)[idx],
        y=np.asarray(y)[idx], sensitive=None if sensitive is None else sensitive[idx],
        feature_names=fn, privileged_names=pn, name=name, DESCR=descr,
    )


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
        As returned by :func:`load_privileged_task`.
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
    >>> from lupikit.boosting import (PrivilegedBoostingClassifier,
    ...                               compare_models, load_privileged_task)
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
