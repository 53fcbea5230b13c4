import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from lupikit.datasets import load_adult, load_compas, load_german, make_lupi_classification


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
