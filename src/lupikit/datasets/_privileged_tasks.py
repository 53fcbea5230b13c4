"""Privileged-information tasks ``(X, X*, y, sensitive)`` built from the data sets we can use offline.

The tasks of Part I (Yan et al., 2023): :func:`load_privileged_task` splits the
columns of a vendored data set (or of scikit-learn's breast cancer data, or of
:func:`~lupikit.datasets.make_lupi_classification`) into regular and
privileged features; see its docstring for the split of every task.
"""

import numbers

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.utils import Bunch, check_random_state

from ._fairness import load_adult, load_compas, load_german
from ._synthetic import make_lupi_classification
from ._tabular import one_hot, stratified_subsample

__all__ = ["TASKS", "load_privileged_task"]

#: The names accepted by :func:`load_privileged_task`.
TASKS = ("breast_cancer", "lupi_synthetic", "adult", "compas", "german")


def load_privileged_task(name, *, n_samples=None, random_state=None, keep_missing=False):
    """Load one of the Part I tasks as ``(X, X*, y, sensitive)``.

    The tasks and their split of the features into regular features ``X``
    and privileged features ``X*``:

    - ``"breast_cancer"``: ``X`` the 10 "mean" and 10 "error" cell-nucleus
      measurements, ``X*`` the 10 "worst" ones (the most predictive);
    - ``"lupi_synthetic"``: ``X`` a noisy mixture of ``X*``, the clean latent
      signal (:func:`make_lupi_classification`);
    - ``"adult"``: ``X`` the census features except sex and race, ``X*`` sex
      and race (one-hot);
    - ``"compas"``: ``X`` age, juvenile and prior counts and charge degree,
      ``X*`` race and sex (one-hot);
    - ``"german"``: ``X`` the credit features except sex and ``status_sex``
      (which encodes sex), ``X*`` sex and age.

    For the fairness tasks the sensitive attributes are the privileged
    features, as in Yan et al. (2023); ``sensitive`` is one binary group label
    used by the fairness metrics: sex (Adult, German) or African-American vs
    other (COMPAS). Categorical columns are one-hot encoded; nothing is
    standardised.

    Parameters
    ----------
    name : {"breast_cancer", "lupi_synthetic", "adult", "compas", "german"}
        Task name (the names in ``lupikit.datasets.TASKS``).
    n_samples : int or None, default=None
        If set, a random subsample of this many rows, stratified by the label
        (the size of the synthetic task; 2000 rows if None for
        ``"lupi_synthetic"``).
    random_state : int, RandomState instance or None, default=None
        Seeds the subsample and the synthetic generator.
    keep_missing : bool, default=False
        Adult only: keep the 3,620 rows with a missing category (48,842 rows
        in all instead of 45,222); the one-hot columns of a missing category
        are NaN there, for estimators that handle missing values (the
        histogram engine of
        :class:`~lupikit.boosting.PrivilegedBoostingClassifier`). The other
        tasks have no missing values, and it changes nothing for them.

    Returns
    -------
    task : :class:`sklearn.utils.Bunch`
        ``X``, ``X_star`` (float arrays), ``y`` (0/1), ``sensitive`` (0/1
        group label, or None for tasks without a sensitive attribute),
        ``feature_names``, ``privileged_names``, ``name`` and ``DESCR``.

    See Also
    --------
    load_adult_fairness : Adult with ``sex`` among the features, standardised,
        train and test subsamples of Table 1 of Grünewälder & Khaleghi (2021).

    Examples
    --------
    >>> from lupikit.datasets import load_privileged_task
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
        X_df = one_hot(b.data.drop(columns=sens))
        S_df = one_hot(b.data[sens])
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
        X_df = one_hot(b.data[keep])
        S_df = one_hot(b.data[sens])
        X, X_star, y = X_df.to_numpy(), S_df.to_numpy(), b.target
        fn, pn = list(X_df.columns), list(S_df.columns)
        sensitive = (b.data["race"] == "African-American").to_numpy().astype(int)
        descr = ("ProPublica COMPAS (two-year recidivism), without the COMPAS scores; "
                 "X* = race, sex; groups: African-American vs other.")
    else:  # german
        b = load_german()
        X_df = one_hot(b.data.drop(columns=["sex", "age", "status_sex"]))
        S_df = pd.concat([b.data[["age"]].astype(float), one_hot(b.data[["sex"]])], axis=1)
        X, X_star, y = X_df.to_numpy(), S_df.to_numpy(), b.target
        fn, pn = list(X_df.columns), list(S_df.columns)
        sensitive = (b.data["sex"] == "female").to_numpy().astype(int)
        descr = ("Statlog German credit; positive = good risk; X* = sex, age; "
                 "status_sex dropped from X (it encodes sex); groups: female vs male.")
    idx = stratified_subsample(y, n_samples, rng)
    return Bunch(
        X=np.asarray(X, dtype=float)[idx], X_star=np.asarray(X_star, dtype=float)[idx],
        y=np.asarray(y)[idx], sensitive=None if sensitive is None else sensitive[idx],
        feature_names=fn, privileged_names=pn, name=name, DESCR=descr,
    )
