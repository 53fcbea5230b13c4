import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from lupikit.datasets import (
    TASKS,
    load_adult,
    load_adult_donini,
    load_adult_fairness,
    load_compas,
    load_german,
    load_privileged_task,
    make_lupi_classification,
)
from lupikit.datasets._tabular import one_hot, standardize, stratified_subsample


def test_make_lupi_classification_shapes_and_determinism():
    X, Xs, y = make_lupi_classification(n_samples=300, n_features=7, n_privileged=3, random_state=0)
    assert X.shape == (300, 7) and Xs.shape == (300, 3) and y.shape == (300,)
    assert set(np.unique(y)) == {0, 1}
    X2, Xs2, y2 = make_lupi_classification(n_samples=300, n_features=7, n_privileged=3, random_state=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


def test_make_lupi_privileged_features_are_more_informative():
    X, Xs, y = make_lupi_classification(n_samples=4000, noise=1.5, label_noise=0.0, random_state=1)
    tr, te = slice(0, 2000), slice(2000, None)
    acc_priv = LogisticRegression().fit(Xs[tr], y[tr]).score(Xs[te], y[te])
    acc_reg = LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te])
    # without label noise the label is a linear function of X*: nearly separable
    assert acc_priv > 0.97
    assert acc_reg < acc_priv - 0.05


def test_make_lupi_noise_free_view_and_multiclass():
    X, Xs, y = make_lupi_classification(n_samples=50, n_features=8, n_privileged=3, noise=0.0, random_state=2)
    # X = X* A exactly: X lies in the 3-dimensional row space of A
    assert np.linalg.matrix_rank(X, tol=1e-8) == 3
    _, _, y3 = make_lupi_classification(n_samples=500, n_classes=4, random_state=3)
    assert set(np.unique(y3)) == {0, 1, 2, 3}


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_samples": 0}, "n_samples"),
        ({"n_features": 2.5}, "n_features"),
        ({"noise": -1}, "noise"),
        ({"label_noise": 2.0}, "label_noise"),
        ({"n_classes": 1}, "n_classes"),
    ],
)
def test_make_lupi_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_lupi_classification(**kwargs)


def test_load_adult_matches_known_counts():
    train = load_adult()
    test = load_adult(subset="test")
    # the well-known sizes after dropping rows with missing values
    assert train.data.shape == (30162, 14)
    assert test.data.shape == (15060, 14)
    assert load_adult(subset="all").data.shape[0] == 45222
    assert train.target.sum() == 7508 and test.target.sum() == 3700
    assert set(train.data["sex"]) == {"Female", "Male"}
    assert "income" not in train.data.columns
    with pytest.raises(ValueError, match="subset"):
        load_adult(subset="validation")
    with pytest.raises(TypeError, match="dropna"):
        load_adult(dropna="no")


def test_load_adult_with_missing_rows_kept():
    full = load_adult(subset="all", dropna=False)
    # the UCI file sizes: 32,561 + 16,281 rows, 3,620 of them with a "?"
    assert full.data.shape == (48842, 14)
    missing = full.data.isna().any(axis=1)
    assert missing.sum() == 48842 - 45222
    assert set(full.data.columns[full.data.isna().any()]) == {"workclass", "occupation", "native_country"}
    assert full.target.shape == (48842,) and full.target.sum() == 11687


def test_load_adult_donini_reproduces_the_extraction():
    """Donini et al.'s 'smaller' Adult (fair_ERM), the data of Table 1."""
    b = load_adult_donini()
    assert b.X_train.shape == (1628, 13) and b.X_test.shape == (12661, 13)
    assert b.y_train.shape == (1628,) and b.y_test.shape == (12661,)
    assert b.sensitive_index == 9 and b.sensitive_name == "sex"
    assert b.feature_names[9] == "sex" and "native_country" not in b.feature_names
    assert b.feature_names[:3] == ["age", "workclass", "fnlwgt"] and len(b.feature_names) == 13
    # labels as in the authors' code: -1 / +1
    assert set(np.unique(b.y_train)) == {-1.0, 1.0} and set(np.unique(b.y_test)) == {-1.0, 1.0}
    # label-encoded, not one-hot; sex: two standardised values, codes 0 = Female, 1 = Male
    assert b.sensitive_values == ["Female", "Male"]
    assert len(np.unique(b.X_train[:, 9])) == 2
    np.testing.assert_array_equal(b.X_train[:, 9] > 0, b.S_train == 1)
    np.testing.assert_array_equal(b.X_test[:, 9] > 0, b.S_test == 1)
    # one scaler fitted on all 45 222 complete rows: the union of the pieces is not
    # centred, but with the 2 399 omitted rows back it is exactly standardised
    full = load_adult_donini(smaller=False)
    assert full.X_train.shape == (32561, 13) and full.X_test.shape == (12661, 13)
    M = np.vstack([full.X_train, full.X_test])
    assert M.shape[0] == 45222
    np.testing.assert_allclose(M.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(M.std(axis=0), 1.0, atol=1e-10)
    np.testing.assert_array_equal(full.X_train[:1628], b.X_train)
    np.testing.assert_array_equal(full.X_test, b.X_test)
    # the rows are those of load_adult in file order: training rows from the training
    # file, test rows the last 12 661 complete rows of the test file
    raw = load_adult(subset="all")
    np.testing.assert_array_equal(b.y_train == 1, raw.target[:1628] == 1)
    np.testing.assert_array_equal(b.y_test == 1, raw.target[32561:] == 1)
    assert raw.data["age"].iloc[0] == 39 and b.X_train[0, 0] == pytest.approx(
        (39 - raw.data["age"].mean()) / raw.data["age"].std(ddof=0))
    # ages are standardised, not encoded
    np.testing.assert_allclose(
        b.X_test[:, 0] * raw.data["age"].std(ddof=0) + raw.data["age"].mean(),
        raw.data["age"].to_numpy()[32561:], atol=1e-9)
    # deterministic
    again = load_adult_donini()
    np.testing.assert_array_equal(again.X_train, b.X_train)
    np.testing.assert_array_equal(again.y_test, b.y_test)
    assert "Donini" in b.DESCR and "fair_ERM" in b.DESCR
    with pytest.raises(TypeError, match="smaller"):
        load_adult_donini(smaller="yes")


def test_load_compas_matches_propublica_filter():
    compas = load_compas()
    assert compas.data.shape[0] == 6172
    assert compas.target.sum() == 2809  # two_year_recid among the 6,172
    assert {"race", "sex", "priors_count"} <= set(compas.data.columns)


def test_load_german():
    german = load_german()
    assert german.data.shape == (1000, 21)
    assert german.target.sum() == 700  # 700 good, 300 bad credit risks
    assert (german.data["sex"] == "female").sum() == 310


def _calls_closing_files():
    """Every vendored loader, and the small data-home ones whose files are present."""
    import inspect

    from lupikit import datasets

    small_home = {"load_ordinal_benchmark": [(name,) for name in datasets.ORDINAL_BENCHMARKS],
                  "load_student_performance": [("mathematics",)], "load_compound": [()],
                  "load_soybean_small": [()], "load_compas_violent": [()]}
    calls = []
    for name in datasets.__all__:
        if not name.startswith("load_"):
            continue
        load = getattr(datasets, name)
        if name == "load_privileged_task":
            calls += [(load, (task,)) for task in TASKS if datasets.task_status(task) == "ok"
                      and task not in ("kdd", "diabetes", "dutch")]  # the large ones: slow
        elif "data_home" not in inspect.signature(load).parameters:
            calls.append((load, ()))
        else:
            for args in small_home.get(name, []):
                try:
                    load(*args)  # the files are present and checked
                except FileNotFoundError:
                    continue
                calls.append((load, args))
    return calls


def test_loaders_close_their_files():
    """Every loader reads its files without leaving one open (no ResourceWarning)."""
    import gc
    import sys
    import warnings

    calls = _calls_closing_files()
    assert len(calls) >= 8
    caught, hook = [], sys.unraisablehook
    sys.unraisablehook = caught.append  # a file closed by the collector warns from __del__
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ResourceWarning)
            for load, args in calls:
                load(*args)
                gc.collect()
    finally:
        sys.unraisablehook = hook
    assert [str(u.exc_value) for u in caught] == []


def test_bin_target_rejects_empty_input():
    from lupikit.datasets import bin_target

    with pytest.raises(ValueError, match="y is empty"):
        bin_target([])


# --------------------------------------------------------------------------
# The task wrappers: load_privileged_task (Part I) and load_adult_fairness (Part IV)
# --------------------------------------------------------------------------
@pytest.mark.parametrize("name", TASKS)
def test_tasks_shapes_and_no_leak(name):
    from lupikit.datasets import task_status  # the data-home tasks: tests/datasets/test_fairness_survey.py
    if task_status(name) != "ok":
        pytest.skip(task_status(name))
    t = load_privileged_task(name, n_samples=300, random_state=0)
    if name not in ("breast_cancer", "lupi_synthetic", "adult", "compas", "german"):
        assert t.sensitive.shape == (300,) and set(np.unique(t.sensitive)) <= {0, 1}
        assert np.isfinite(t.X).all() and np.isfinite(t.X_star).all()
        return
    assert t.X.shape[0] == t.X_star.shape[0] == t.y.shape[0] == 300
    assert set(np.unique(t.y)) == {0, 1}
    assert np.isfinite(t.X).all() and np.isfinite(t.X_star).all()
    assert len(t.feature_names) == t.X.shape[1]
    assert len(t.privileged_names) == t.X_star.shape[1]
    if name in ("adult", "compas", "german"):
        assert t.sensitive.shape == (300,)
        # sensitive attributes are privileged, never regular features
        for col in t.feature_names:
            assert not col.startswith(("sex", "race", "status_sex")), col
        assert any(c.startswith("sex") for c in t.privileged_names)
    else:
        assert t.sensitive is None


def test_adult_task_keeps_missing_rows_as_nan():
    t = load_privileged_task("adult", keep_missing=True)
    assert t.X.shape[0] == t.y.shape[0] == t.sensitive.shape[0] == 48842
    rows = np.isnan(t.X).any(axis=1)
    assert rows.sum() == 3620 and np.isfinite(t.X_star).all()
    # a missing category makes all of that column's dummies NaN, and only those
    work = [j for j, c in enumerate(t.feature_names) if c.startswith("workclass_")]
    nan_work = np.isnan(t.X[:, work])
    assert np.all(nan_work.all(axis=1) | ~nan_work.any(axis=1))
    assert np.all(np.nansum(t.X[:, work], axis=1)[~nan_work.any(axis=1)] == 1)
    with pytest.raises(TypeError, match="keep_missing"):
        load_privileged_task("adult", keep_missing="yes")


def test_stratified_subsample_keeps_base_rate():
    full = load_privileged_task("compas")
    sub = load_privileged_task("compas", n_samples=1000, random_state=1)
    assert abs(sub.y.mean() - full.y.mean()) < 0.005


def test_bad_task_arguments():
    with pytest.raises(ValueError, match="name"):
        load_privileged_task("iris")
    with pytest.raises(ValueError, match="n_samples"):
        load_privileged_task("german", n_samples=3)


def test_load_adult_fairness_sizes_strata_and_scaling():
    Xtr, Xte, ytr, yte, Str, Ste = load_adult_fairness()  # the sizes of Table 1
    assert Xtr.shape == (1628, 103) and Xte.shape == (12661, 103)
    assert (ytr.sum(), yte.sum(), Str.sum(), Ste.sum()) == (405, 3111, 528.0, 4130.0)
    # standardised with the training subsample's statistics (constant columns only centred)
    np.testing.assert_allclose(Xtr.mean(axis=0), 0.0, atol=1e-12)
    std = Xtr.std(axis=0)
    assert np.all(np.isclose(std, 1.0) | np.isclose(std, 0.0))
    assert not np.allclose(Xte.mean(axis=0), 0.0, atol=1e-3)
    # stratified by sex x income within each file
    for subset, y, S in (("train", ytr, Str), ("test", yte, Ste)):
        full = load_adult(subset=subset)
        female = (full.data["sex"] == "Female").to_numpy()
        for f in (0, 1):
            for t in (0, 1):
                assert np.mean((S == f) & (y == t)) == pytest.approx(
                    np.mean((female == f) & (full.target == t)), abs=2e-3)
    # sizes beyond a file take all of its rows; the seed fixes the draw
    Xtr2 = load_adult_fairness(40_000, 100, random_state=3)[0]
    assert Xtr2.shape[0] == 30162
    a, b = load_adult_fairness(300, 400, random_state=5), load_adult_fairness(300, 400, random_state=5)
    assert all(np.array_equal(u, v) for u, v in zip(a, b))


def test_adult_wrappers_share_one_encoding():
    """load_adult_fairness and load_privileged_task("adult") one-hot encode Adult alike."""
    full = load_privileged_task("adult")
    b = load_adult(subset="all")
    enc = one_hot(b.data)
    cols = [c for c in enc.columns if not c.startswith(("sex_", "race_"))]
    assert cols == full.feature_names
    np.testing.assert_array_equal(enc[cols].to_numpy(), full.X)
    np.testing.assert_array_equal(enc[full.privileged_names].to_numpy(), full.X_star)


def test_tabular_helpers_against_pandas_and_sklearn():
    frame = load_adult(subset="test").data
    # without missing values, one_hot is pandas.get_dummies (columns, order, values)
    ref = pd.get_dummies(frame, dtype=float)
    enc = one_hot(frame)
    assert list(enc.columns) == list(ref.columns)
    np.testing.assert_array_equal(enc.to_numpy(), ref.to_numpy())
    # a missing category: all dummies of its column NaN in that row, the others intact
    gap = frame.head(5).copy()
    gap.loc[2, "workclass"] = np.nan
    enc = one_hot(gap)
    work = [c for c in enc.columns if c.startswith("workclass_")]
    assert enc.loc[2, work].isna().all() and enc.drop(index=2)[work].notna().all().all()
    # stratified_subsample is train_test_split's stratified draw, sorted
    strata = frame["sex"].astype(str) + "_" + frame["race"].astype(str)
    for seed in (0, 7):
        idx, _ = train_test_split(np.arange(len(strata)), train_size=500, stratify=strata,
                                  random_state=seed)
        np.testing.assert_array_equal(stratified_subsample(strata, 500, seed), np.sort(idx))
    np.testing.assert_array_equal(stratified_subsample(strata, None, 0), np.arange(len(strata)))
    np.testing.assert_array_equal(stratified_subsample(strata, 10**6, 0), np.arange(len(strata)))
    # standardize: the training statistics, applied to every array; constant columns centred
    rng = np.random.default_rng(0)
    A, B = rng.normal(3.0, 2.0, (50, 3)), rng.normal(size=(20, 3))
    A[:, 1] = 4.0
    Az, Bz = standardize(A, B)
    std = A.std(axis=0)
    std[1] = 1.0
    np.testing.assert_allclose(Az, (A - A.mean(axis=0)) / std)
    np.testing.assert_allclose(Bz, (B - A.mean(axis=0)) / std)
