"""Tabular preprocessing shared by the task wrappers of the vendored data sets.

The wrappers that turn a raw data frame (:func:`~lupikit.datasets.load_adult`
and the other fairness loaders) into numeric arrays do it with these three
steps, so that two wrappers of the same data set encode, subsample and scale
it in one way:

- :func:`one_hot`: numeric columns as floats, then the dummies of every other
  column (the column order of :func:`pandas.get_dummies`);
- :func:`stratified_subsample`: sorted row indices of a stratified random
  subsample (all rows when the subsample would not be smaller);
- :func:`standardize`: standardisation with the mean and the population
  standard deviation of one array (the training rows), constant columns left
  unscaled.
"""

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedShuffleSplit

__all__ = ["one_hot", "stratified_subsample", "standardize"]


def one_hot(frame):
    """One-hot columns; a missing category makes all of its column's dummies NaN.

    Without missing values this is ``pandas.get_dummies(frame, dtype=float)``:
    the numeric columns first (as floats), then the dummies column by column,
    ``<column>_<category>`` in sorted order of the categories.
    """
    numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    parts = [frame[numeric].astype(float)]
    for col in frame.columns.difference(numeric, sort=False):
        dummies = pd.get_dummies(frame[col], prefix=col, dtype=float)
        dummies.loc[frame[col].isna().to_numpy()] = np.nan
        parts.append(dummies)
    return pd.concat(parts, axis=1)


def stratified_subsample(strata, n, random_state):
    """Sorted indices of a subsample of ``n`` rows stratified by ``strata``.

    All rows (``arange``) if ``n`` is None or not smaller than the number of
    rows; ``random_state`` (an int or a RandomState, passed to
    :class:`~sklearn.model_selection.StratifiedShuffleSplit`) is then unused.
    """
    strata = np.asarray(strata)
    if n is None or n >= len(strata):
        return np.arange(len(strata))
    sss = StratifiedShuffleSplit(n_splits=1, train_size=n, random_state=random_state)
    idx, _ = next(sss.split(np.zeros(len(strata)), strata))
    return np.sort(idx)


def standardize(train, *others):
    """``train`` and each of ``others`` standardised with ``train``'s statistics.

    Mean and population standard deviation per column (as scikit-learn's
    ``StandardScaler``); a constant column is only centred.
    """
    mean, std = train.mean(axis=0), train.std(axis=0)
    std[std == 0] = 1.0
    return tuple((A - mean) / std for A in (train,) + others)
