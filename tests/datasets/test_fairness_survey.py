"""The fairness benchmarks of Part I read from the data home (lupikit.datasets._fairness_survey).

The tests that read a data-home file are skipped, with the reason, when the
file is not there (set ``LUPIKIT_DATA``; ``../shared/data`` beside the project
is used when the variable is unset and that folder exists).
"""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lupikit.datasets as ds
from lupikit.datasets import _fairness_survey as fs
from lupikit.datasets import (
    PAPER_FAIRNESS_TASKS,
    TASK_FILES,
    TASKS,
    file_status,
    load_privileged_task,
    task_status,
)

_SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(autouse=True)
def data_home(monkeypatch):
    """The shared data home if LUPIKIT_DATA is unset and ../shared/data exists."""
    if not os.environ.get("LUPIKIT_DATA") and _SHARED.is_dir():
        monkeypatch.setenv("LUPIKIT_DATA", str(_SHARED))


def need(*files):
    """Skip the test, naming the file and its source, when a data-home file is missing."""
    for f in files:
        status = file_status(f)
        if status != "ok":
            pytest.skip(status)


# name, loader kwargs, files, rows, features (frame), positives, sensitive names
SETS = [
    ("load_dutch_census", {}, ["fairness/dutch.csv.gz"], 60420, 11, 28763, ["sex"]),
    ("load_bank_marketing", {}, ["fairness/bank-full.csv.gz"], 40004, 16, 4667,
     ["age", "marital"]),
    ("load_credit_card_clients", {}, ["fairness/credit-card-clients.csv.gz"], 30000, 23, 6636,
     ["SEX"]),
    ("load_compas_violent", {}, ["fairness/compas-scores-two-years-violent_clean.csv.gz"], 4020,
     11, 652, ["race", "sex"]),
    ("load_student_performance", {"subject": "mathematics"}, ["fairness/student_mat_new.csv.gz"],
     395, 32, 265, ["sex", "age"]),
    ("load_student_performance", {"subject": "portuguese"}, ["fairness/student_por_new.csv.gz"],
     649, 32, 549, ["sex", "age"]),
    ("load_oulad", {}, ["fairness/oulad_clean.csv.gz"], 21562, 10, 14655, ["gender"]),
    ("load_communities_crime", {}, ["fairness/communities_crime.csv.gz"], 1994, 100, 122,
     ["Black", "racepctblack", "racePctWhite", "racePctAsian", "racePctHisp"]),
    ("load_diabetes_hospitals", {}, ["fairness/diabetic_data.csv.gz"], 45715, 44, 11066,
     ["gender", "race"]),
    ("load_census_kdd", {}, ["fairness/census_income_1994_1995_train.csv.gz",
                             "fairness/census_income_1994_1995_test.csv.gz"],
     284556, 36, 17402, ["sex", "race"]),
]
IDS = [f"{s[0]}{'-' + s[1]['subject'] if s[1] else ''}" for s in SETS]


@pytest.mark.parametrize("name, kwargs, files, rows, cols, pos, sens", SETS, ids=IDS)
def test_shapes_labels_and_sensitive_columns(name, kwargs, files, rows, cols, pos, sens):
    need(*files)
    loader = getattr(ds, name)
    b = loader(as_frame=True, **kwargs)
    assert b.data.shape == (rows, cols)
    assert isinstance(b.data, pd.DataFrame) and isinstance(b.target, pd.Series)
    assert set(np.unique(b.target)) == {0, 1} and int(b.target.sum()) == pos
    assert b.frame.shape == (rows, cols + 1)
    assert b.sensitive_names == sens and all(s in b.data.columns for s in sens)
    assert len(b.target_names) == 2
    assert not b.data.isna().any().any()
    # DESCR names the source and the licence
    assert "SHA-256" in b.DESCR and "Licence" in b.DESCR
    # arrays: one-hot encoded floats, the same rows and labels
    X, y = loader(return_X_y=True, **kwargs)
    assert X.dtype == np.float64 and X.shape[0] == rows and X.shape[1] >= cols
    assert np.isfinite(X).all()
    np.testing.assert_array_equal(y, b.target.to_numpy())
    arrays = loader(**kwargs)
    assert arrays.frame is None and len(arrays.feature_names) == X.shape[1]


def test_dutch_codes_and_sexes():
    need("fairness/dutch.csv.gz")
    b = fs.load_dutch_census(as_frame=True)
    assert b.data["sex"].value_counts().to_dict() == {"female": 30273, "male": 30147}
    # unordered codes are categories, ordered ones numbers
    assert b.data["cur_eco_activity"].dtype != np.int64 and b.data["age"].dtype == np.int64


def test_credit_codes_are_decoded():
    need("fairness/credit-card-clients.csv.gz")
    b = fs.load_credit_card_clients(as_frame=True)
    assert b.data["SEX"].value_counts().to_dict() == {"female": 18112, "male": 11888}
    assert set(b.data["MARRIAGE"]) == {"married", "single", "others", "undocumented"}


def test_survey_compas_is_the_vendored_compas():
    """Part I reads the vendored COMPAS: the survey's cleaned copy has the same rows."""
    need("fairness/compas-scores-two-years_clean.csv.gz")
    from lupikit.datasets._home import fetch_file, open_text

    vendored = ds.load_compas().frame
    with open_text(fetch_file("fairness/compas-scores-two-years_clean.csv.gz")) as fh:
        survey = pd.read_csv(fh)[vendored.columns]
    assert survey.shape == vendored.shape == (6172, 12)
    for col in vendored.columns:
        np.testing.assert_array_equal(survey[col].astype(str), vendored[col].astype(str))


def test_diabetes_cleaning_steps():
    need("fairness/diabetic_data.csv.gz")
    b = fs.load_diabetes_hospitals(as_frame=True)
    for col in ("weight", "payer_code", "medical_specialty", "encounter_id", "patient_nbr"):
        assert col not in b.data.columns
    assert not (b.data == "?").any().any()
    assert set(b.data["gender"]) == {"Female", "Male"}
    assert set(b.data["diag_1"]) <= {"circulatory", "respiratory", "digestive", "diabetes",
                                     "injury", "musculoskeletal", "genitourinary", "neoplasms",
                                     "other"}
    assert set(b.data["max_glu_serum"]) == {"None", "Norm", ">200", ">300"}
    raw = fs.load_diabetes_hospitals(as_frame=True, diag_groups=False)
    assert raw.data["diag_1"].nunique() > 500
    allrows = fs.load_diabetes_hospitals(as_frame=True, keep_not_readmitted=True)
    assert allrows.data.shape[0] == 98052 and int(allrows.target.sum()) == 11066


def test_kdd_weight_subsets_and_missing():
    need(*TASK_FILES["kdd"])
    b = fs.load_census_kdd(as_frame=True)
    assert "instance weight" not in b.data.columns and "income" not in b.data.columns
    assert b.sample_weight.shape == (284556,) and (b.sample_weight > 0).all()
    assert not set(fs._KDD_MIGRATION) & set(b.data.columns)
    full = fs.load_census_kdd(as_frame=True, dropna=False)
    assert full.data.shape == (299285, 40) and int(full.target.sum()) == 18568
    assert full.data["migration code-change in msa"].isna().sum() == 149642
    train = fs.load_census_kdd(as_frame=True, subset="train", dropna=False)
    test = fs.load_census_kdd(as_frame=True, subset="test", dropna=False)
    assert train.data.shape[0] == 199523 and test.data.shape[0] == 99762
    assert len(fs.KDD_COLUMNS) == 42 and fs.KDD_COLUMNS[24] == "instance weight"


def test_large_sets_are_cached(tmp_path, monkeypatch):
    """The second call reads the Parquet cache, not the CSV."""
    need("fairness/dutch.csv.gz")
    monkeypatch.setenv("LUPIKIT_CACHE", str(tmp_path))
    first = fs.load_dutch_census(as_frame=True)
    cached = list(tmp_path.glob("survey-dutch-*.parquet"))
    assert len(cached) == 1

    def no_csv(*args, **kwargs):
        raise AssertionError("the CSV was parsed again")

    monkeypatch.setattr(fs, "_read_csv", no_csv)
    second = fs.load_dutch_census(as_frame=True)
    pd.testing.assert_frame_equal(first.frame, second.frame)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="subject"):
        fs.load_student_performance("physics")
    with pytest.raises(ValueError, match="subset"):
        fs.load_census_kdd(subset="validation")
    with pytest.raises(TypeError, match="as_frame"):
        fs.load_oulad(as_frame="yes")
    with pytest.raises(TypeError, match="keep_not_readmitted"):
        fs.load_diabetes_hospitals(keep_not_readmitted=1)


def test_missing_file_names_file_and_source(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"fairness/dutch\.csv\.gz.*tailequy"):
        fs.load_dutch_census(data_home=tmp_path, download_if_missing=False)


def test_file_that_does_not_parse_is_a_value_error(tmp_path, monkeypatch):
    """A registered name holding other content: checked by checksum, never parsed."""
    (tmp_path / "fairness").mkdir()
    (tmp_path / "fairness" / "oulad_clean.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="SHA-256"):
        fs.load_oulad(data_home=tmp_path, download_if_missing=False)
    with pytest.raises(ValueError, match="could not be read"):
        fs._read_csv(tmp_path / "fairness" / "oulad_clean.csv.gz", "a test file")


def test_catalog_covers_the_twelve_benchmarks():
    names = [info.name for info in fs.CATALOG]
    assert len(names) == 12 == len(PAPER_FAIRNESS_TASKS)
    for info in fs.CATALOG:
        assert info.parts == ("boosting",)
        assert info.loader in ds.__all__
        assert "privileged" in info.roles and "Groups" in info.roles
        assert all(f in ds.FILES for f in info.files)
    assert {f for info in fs.CATALOG for f in info.files} >= {
        f for files in TASK_FILES.values() for f in files}


# ---------------------------------------------------------------- tasks

SURVEY_TASKS = [t for t in PAPER_FAIRNESS_TASKS if TASK_FILES[t]]


def test_task_registry():
    assert set(PAPER_FAIRNESS_TASKS) <= set(TASKS)
    assert TASKS[:5] == ("breast_cancer", "lupi_synthetic", "adult", "compas", "german")
    assert len(SURVEY_TASKS) == 10
    assert task_status("adult") == "ok"
    with pytest.raises(ValueError, match="name"):
        task_status("iris")


def test_task_status_names_the_missing_file(tmp_path):
    status = task_status("dutch", data_home=tmp_path)
    # the file and what to set, not the folder (the status is printed in the book's pages)
    assert "fairness/dutch.csv.gz" in status and str(tmp_path) not in status and "LUPIKIT_DATA" in status


# task, X* names, group share (of the sensitive label) on all rows
PRIV = {
    "kdd": ["sex_Female", "sex_Male"],
    "diabetes": ["gender_Female", "gender_Male"],
    "dutch": ["sex_female", "sex_male"],
    "bank": ["age", "marital_married", "marital_single"],
    "credit": ["SEX_female", "SEX_male"],
    "compas_violent": ["race_African-American"],
    "student_math": ["age", "sex_F", "sex_M"],
    "student_portuguese": ["age", "sex_F", "sex_M"],
    "oulad": ["gender_F", "gender_M"],
    "communities": ["racepctblack", "racePctWhite", "racePctAsian", "racePctHisp"],
}


@pytest.mark.parametrize("name", SURVEY_TASKS)
def test_survey_tasks(name):
    need(*TASK_FILES[name])
    task = load_privileged_task(name, n_samples=300, random_state=0)
    assert task.X.shape[0] == task.X_star.shape[0] == task.y.shape[0] == 300
    assert task.X.dtype == task.X_star.dtype == np.float64
    assert set(np.unique(task.y)) == {0, 1} and set(np.unique(task.sensitive)) == {0, 1}
    assert all(p in task.privileged_names for p in PRIV[name])
    # the sensitive attributes are not among the regular features
    raw = {p.split("_")[0] for p in task.privileged_names if "_" in p} | {
        p for p in task.privileged_names if "_" not in p}
    assert not any(f == r or f.startswith(r + "_") for f in task.feature_names for r in raw)
    assert task.name == name and task.DESCR
    again = load_privileged_task(name, n_samples=300, random_state=0)
    np.testing.assert_array_equal(again.X, task.X)


def test_communities_task_leaves_race_out_of_x():
    need(*TASK_FILES["communities"])
    task = load_privileged_task("communities")
    assert "Black" not in task.feature_names and task.X_star.shape == (1994, 4)
    np.testing.assert_array_equal(task.sensitive, (task.X_star[:, 0] >= 0.06).astype(int))


def test_full_task_sizes():
    need(*TASK_FILES["diabetes"], *TASK_FILES["bank"])
    assert load_privileged_task("diabetes").X.shape[0] == 45715
    bank = load_privileged_task("bank")
    assert bank.X.shape[0] == 40004 and bank.sensitive.sum() == 12790


def test_old_tasks_unchanged():
    """The vendored tasks keep their shapes (the data-home ones were added beside them)."""
    assert load_privileged_task("german").X.shape == (1000, 56)
    assert load_privileged_task("compas").X_star.shape == (6172, 8)
    assert load_privileged_task("adult", n_samples=500, random_state=0).X.shape[0] == 500
