"""Privileged-information tasks ``(X, X*, y, sensitive)`` built from the data sets we can use offline.

The tasks of Part I (Yan et al., 2023): :func:`load_privileged_task` splits the
columns of a vendored data set, of a fairness benchmark of the data home
(``lupikit.datasets._fairness_survey``), of scikit-learn's breast cancer
data or of :func:`~lupikit.datasets.make_lupi_classification` into regular
and privileged features; see its docstring for the split of every task.
``PAPER_FAIRNESS_TASKS`` names the paper's twelve fairness benchmarks,
``TASK_FILES`` the data-home files each task reads and
:func:`task_status` whether they are there.
"""

import numbers

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.utils import Bunch, check_random_state

from ._fairness import load_adult, load_compas, load_german
from ._fairness_survey import (
    CATALOG as _SURVEY_CATALOG,
    load_bank_marketing,
    load_census_kdd,
    load_communities_crime,
    load_compas_violent,
    load_credit_card_clients,
    load_diabetes_hospitals,
    load_dutch_census,
    load_oulad,
    load_student_performance,
)
from ._home import file_status
from ._synthetic import make_lupi_classification
from ._tabular import one_hot, stratified_subsample

__all__ = ["TASKS", "PAPER_FAIRNESS_TASKS", "TASK_FILES", "SURVEY_ROWS", "load_privileged_task",
           "task_status", "fairness_benchmark_sizes"]

_COMPAS_X = ["age", "juv_fel_count", "juv_misd_count", "juv_other_count", "priors_count",
             "c_charge_degree"]

# The fairness benchmarks of the data home: loader (and its arguments), the
# privileged columns X*, the columns of X (None: all but X* and `drop`), the
# columns dropped from X besides X*, the group label (column, value) and the
# catalogue entry whose files the task reads.
_SURVEY_TASKS = {
    "kdd": dict(loader=load_census_kdd, kwargs={}, privileged=["sex", "race"], keep=None,
                drop=[], group=("sex", "Female"), entry="KDD Census Income",
                descr="UCI Census-Income (KDD), cleaned as the survey's copy; X* = sex, race; "
                      "groups: female vs male."),
    "diabetes": dict(loader=load_diabetes_hospitals, kwargs={}, privileged=["gender", "race"],
                     keep=None, drop=[], group=("gender", "Female"), entry="Diabetes",
                     descr="UCI Diabetes 130-US hospitals, cleaned as the survey's copy "
                           "(readmitted <30 vs >30 days); X* = gender, race; groups: female vs "
                           "male."),
    "dutch": dict(loader=load_dutch_census, kwargs={}, privileged=["sex"], keep=None, drop=[],
                  group=("sex", "female"), entry="Dutch Census",
                  descr="Dutch census 2001 (the survey's file); X* = sex; groups: female vs "
                        "male."),
    "bank": dict(loader=load_bank_marketing, kwargs={}, privileged=["age", "marital"],
                 keep=None, drop=[], group=("marital", "single"), entry="Bank Marketing",
                 descr="Bank marketing (the survey's copy); X* = age, marital status; groups: "
                       "single vs married."),
    "credit": dict(loader=load_credit_card_clients, kwargs={}, privileged=["SEX"], keep=None,
                   drop=[], group=("SEX", "female"), entry="Credit Card Clients",
                   descr="Default of credit card clients; X* = sex; groups: female vs male."),
    "compas_violent": dict(loader=load_compas_violent, kwargs={}, privileged=["race", "sex"],
                           keep=_COMPAS_X, drop=[], group=("race", "African-American"),
                           entry="COMPAS Violence",
                           descr="ProPublica COMPAS (two-year violent recidivism), without the "
                                 "COMPAS scores; X* = race, sex; groups: African-American vs "
                                 "other."),
    "student_math": dict(loader=load_student_performance, kwargs={"subject": "mathematics"},
                         privileged=["sex", "age"], keep=None, drop=[], group=("sex", "F"),
                         entry="Student-Mathematics",
                         descr="Student performance, mathematics (G3 >= 10; G1, G2 kept); X* = "
                               "sex, age; groups: female vs male."),
    "student_portuguese": dict(loader=load_student_performance, kwargs={"subject": "portuguese"},
                               privileged=["sex", "age"], keep=None, drop=[], group=("sex", "F"),
                               entry="Student-Portuguese",
                               descr="Student performance, Portuguese (G3 >= 10; G1, G2 kept); "
                                     "X* = sex, age; groups: female vs male."),
    "oulad": dict(loader=load_oulad, kwargs={}, privileged=["gender"], keep=None, drop=[],
                  group=("gender", "F"), entry="OULAD",
                  descr="OULAD studentInfo (the survey's table), pass vs fail; X* = gender; "
                        "groups: female vs male."),
    "communities": dict(loader=load_communities_crime, kwargs={},
                        privileged=["racepctblack", "racePctWhite", "racePctAsian",
                                    "racePctHisp"],
                        keep=None, drop=["Black"], group=("Black", 1),
                        entry="Communities and Crime",
                        descr="Communities and Crime (the survey's copy), violent-crime rate >= "
                              "0.7; X* = the four racial-composition shares ('Black', derived "
                              "from them, dropped from X); groups: 'Black' (racepctblack >= "
                              "0.06) vs other."),
}

#: The names accepted by :func:`load_privileged_task`.
TASKS = ("breast_cancer", "lupi_synthetic", "adult", "compas", "german", *_SURVEY_TASKS)

#: The twelve fairness benchmarks of Yan et al. (2023), in the order of the
#: paper's list (Adult, KDD, Diabetes, Dutch, Bank, Credit, COMPAS, COMPAS
#: violence, Student-Mathematics, Student-Portuguese, OULAD, Communities).
PAPER_FAIRNESS_TASKS = ("adult", "kdd", "diabetes", "dutch", "bank", "credit", "compas",
                        "compas_violent", "student_math", "student_portuguese", "oulad",
                        "communities")

_FILES_OF = {info.name: info.files for info in _SURVEY_CATALOG}
#: The data-home files each task reads (empty for the vendored and generated ones).
TASK_FILES = {name: _FILES_OF.get(_SURVEY_TASKS[name]["entry"], ()) if name in _SURVEY_TASKS
              else () for name in TASKS}


#: The number of examples of the survey's cleaned data sets (Le Quy et al. 2022), the
#: versions of the paper's fairness benchmarks: the survey's files for the nine we
#: read from the data home, its Table 1 for Adult (rows with a missing value
#: dropped), KDD and Diabetes (whose cleaned files are not available).
SURVEY_ROWS = {"adult": 45222, "kdd": 284556, "diabetes": 45715, "dutch": 60420, "bank": 40004,
               "credit": 30000, "compas": 6172, "compas_violent": 4020, "student_math": 395,
               "student_portuguese": 649, "oulad": 21562, "communities": 1994}

_VENDORED = {"adult": (load_adult, {"subset": "all"}, ["sex", "race"]),
             "compas": (load_compas, {}, ["race", "sex"])}


def fairness_benchmark_sizes(*, data_home=None):
    """Our Table 1 of the paper's twelve fairness benchmarks, as the loaders return them.

    Parameters
    ----------
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.

    Returns
    -------
    DataFrame
        Indexed by task (``PAPER_FAIRNESS_TASKS``): ``examples`` and
        ``attributes`` of the raw data (Adult: rows with a missing value
        dropped, as in the survey), ``positive`` (share of the positive
        class), ``sensitive`` (the attributes used as privileged features),
        ``survey_examples`` (``SURVEY_ROWS``) and ``status`` ("ok" or why
        the files cannot be read; the numbers are then missing).

    Examples
    --------
    >>> from lupikit.datasets import fairness_benchmark_sizes
    >>> sizes = fairness_benchmark_sizes()
    >>> sizes.loc["compas", ["examples", "survey_examples"]].tolist()
    [6172, 6172]
    """
    rows = {}
    for name in PAPER_FAIRNESS_TASKS:
        row = {"examples": None, "attributes": None, "positive": None, "sensitive": None,
               "survey_examples": SURVEY_ROWS[name], "status": task_status(name, data_home=data_home)}
        if row["status"] == "ok":
            if name in _VENDORED:
                loader, kwargs, sens = _VENDORED[name]
                b = loader(**kwargs)
            else:
                spec = _SURVEY_TASKS[name]
                b = spec["loader"](as_frame=True, data_home=data_home, **spec["kwargs"])
                sens = spec["privileged"]
            row.update(examples=int(b.data.shape[0]), attributes=int(b.data.shape[1]),
                       positive=float(np.mean(b.target)), sensitive=", ".join(sens))
        rows[name] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    return table.astype({"examples": "Int64", "attributes": "Int64", "survey_examples": "Int64",
                         "positive": "Float64"})


def task_status(name, *, data_home=None):
    """``"ok"``, or why the task ``name`` cannot be loaded (a missing or altered data-home file).

    Parameters
    ----------
    name : str
        A task of ``TASKS``.
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.

    Returns
    -------
    str
        ``"ok"``, or the message of :func:`~lupikit.datasets.file_status`
        for the first file that cannot be read (it names the file and what to
        set; the loader's error names the folder searched and the public source).

    Examples
    --------
    >>> from lupikit.datasets import task_status
    >>> task_status("adult")
    'ok'
    """
    if name not in TASKS:
        raise ValueError(f"name must be one of {TASKS}, got {name!r}.")
    for path in TASK_FILES[name]:
        status = file_status(path, data_home=data_home)
        if status != "ok":
            return status
    return "ok"


def _survey_task(name, n_samples, rng, data_home):
    """A fairness benchmark of the data home as a task, subsampled before it is encoded."""
    spec = _SURVEY_TASKS[name]
    b = spec["loader"](as_frame=True, data_home=data_home, **spec["kwargs"])
    y = b.target.to_numpy()
    idx = stratified_subsample(y, n_samples, rng)
    data, y = b.data.iloc[idx].reset_index(drop=True), y[idx]
    priv = spec["privileged"]
    regular = spec["keep"] or [c for c in data.columns if c not in priv + spec["drop"]]
    X_df, S_df = one_hot(data[regular]), one_hot(data[priv])
    col, value = spec["group"]
    return Bunch(
        X=X_df.to_numpy(dtype=float), X_star=S_df.to_numpy(dtype=float), y=np.asarray(y),
        sensitive=(data[col] == value).to_numpy().astype(int),
        feature_names=list(X_df.columns), privileged_names=list(S_df.columns), name=name,
        DESCR=spec["descr"],
    )


def load_privileged_task(name, *, n_samples=None, random_state=None, keep_missing=False,
                         data_home=None):
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

    The other fairness benchmarks of the paper are read from the data home
    (``lupikit.datasets._fairness_survey``; :func:`task_status` says
    whether their files are there), ``X*`` their sensitive attributes and
    ``X`` every other feature:

    - ``"kdd"`` (:func:`load_census_kdd`): ``X*`` sex and race;
    - ``"diabetes"`` (:func:`load_diabetes_hospitals`): ``X*`` gender and race;
    - ``"dutch"`` (:func:`load_dutch_census`): ``X*`` sex;
    - ``"bank"`` (:func:`load_bank_marketing`): ``X*`` age and marital status;
    - ``"credit"`` (:func:`load_credit_card_clients`): ``X*`` sex;
    - ``"compas_violent"`` (:func:`load_compas_violent`): ``X`` and ``X*`` as
      for ``"compas"``;
    - ``"student_math"``, ``"student_portuguese"``
      (:func:`load_student_performance`): ``X*`` sex and age;
    - ``"oulad"`` (:func:`load_oulad`): ``X*`` gender;
    - ``"communities"`` (:func:`load_communities_crime`): ``X*`` the four
      racial-composition shares; the survey's ``Black`` (derived from them)
      is dropped from ``X``.

    For the fairness tasks the sensitive attributes are the privileged
    features, as in Yan et al. (2023); which ones, per data set, and why is in
    ``lupikit.datasets._fairness_survey.CATALOG``. ``sensitive`` is one
    binary group label used by the fairness metrics: female vs male (Adult,
    German, KDD, Diabetes, Dutch, Credit, Student, OULAD), African-American vs
    other (COMPAS, COMPAS violence), single vs married (Bank), 'Black'
    communities vs other (Communities). Categorical columns are one-hot
    encoded; nothing is standardised. The data-home tasks are subsampled
    before they are encoded (a category absent from the subsample has no
    column).

    Parameters
    ----------
    name : str
        Task name, one of ``lupikit.datasets.TASKS``.
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
    data_home : str or path-like, default=None
        Where the data-home tasks' files are (see
        :func:`~lupikit.datasets.get_data_home`); unused by the others.

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
    if name in _SURVEY_TASKS:
        return _survey_task(name, n_samples, rng, data_home)
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
