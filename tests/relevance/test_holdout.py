"""The real-data benchmark's protocol: stratified hold-out splits, the logistic baseline,
and ordinal_holdout."""

import numpy as np
import pytest

from sklearn.utils._param_validation import InvalidParameterError

from lupikit.datasets import make_ordinal_relevance
from lupikit.relevance import ordinal_holdout, stratified_holdout_splits
from lupikit.relevance._holdout import HOLDOUT_MODELS, _logistic


@pytest.fixture(scope="module")
def data():
    X, y, _ = make_ordinal_relevance(n_samples=150, n_strong=2, n_weak=2, n_irrelevant=3,
                                     n_bins=4, random_state=0)
    return X, y + 1  # labels 1..4, as the benchmark's


# ---------------------------------------------------------------- splits
def test_splits_are_stratified_disjoint_and_cover():
    y = np.repeat([1, 2, 3, 4], [40, 20, 8, 2])
    splits = stratified_holdout_splits(y, n_splits=5, test_size=0.25, random_state=0)
    assert len(splits) == 5
    for train, test in splits:
        assert np.intersect1d(train, test).size == 0
        assert np.union1d(train, test).tolist() == list(range(y.size))
        assert np.bincount(y[test], minlength=5)[1:].tolist() == [10, 5, 2, 1]  # 0.25 n_k rounded
    # different splits, reproducible from the seed
    assert not np.array_equal(splits[0][1], splits[1][1])
    again = stratified_holdout_splits(y, n_splits=5, test_size=0.25, random_state=0)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again))


def test_a_single_sample_label_stays_in_training():
    y = np.array([1] * 10 + [2] * 5 + [3])
    for train, test in stratified_holdout_splits(y, n_splits=10, random_state=1):
        assert 15 in train and set(y[train]) == {1, 2, 3}


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_splits=0), "n_splits"), (dict(n_splits=2.0), "n_splits"),
    (dict(test_size=0.0), "test_size"), (dict(test_size=1.0), "test_size"),
    (dict(test_size="0.2"), "test_size"),
])
def test_splits_reject_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        stratified_holdout_splits([1, 1, 2, 2], **kwargs)


def test_splits_need_a_test_sample():
    with pytest.raises(ValueError, match="no sample"):
        stratified_holdout_splits([1, 2, 3], test_size=0.1)


# ---------------------------------------------------------------- logistic baseline
def test_ridge_baseline_fits_ordered_thresholds(data):
    """The holdout's baseline (OrdinalElasticNet, l1_ratio=0): ordered thresholds, label shifts."""
    X, y = data
    model = _logistic(1.0, len(y)).fit(X, y)
    assert model.l1_ratio == 0.0 and model.alpha == 1.0 / len(y)
    assert model.classes_.tolist() == [1, 2, 3, 4]
    assert np.all(np.diff(model.thresholds_) >= 0)
    assert np.mean(np.abs(model.predict(X) - y)) < 0.3
    shifted = _logistic(1.0, len(y)).fit(X, y + 10)
    np.testing.assert_allclose(shifted.coef_, model.coef_, atol=1e-5)
    assert shifted.predict(X).tolist() == (model.predict(X) + 10).tolist()
    # alpha shrinks the weights
    assert np.linalg.norm(_logistic(100.0, len(y)).fit(X, y).coef_) < np.linalg.norm(model.coef_)


# ---------------------------------------------------------------- the protocol
def test_holdout_table(data):
    X, y = data
    res = ordinal_holdout(X, y, n_splits=2, C_grid=[0.1, 1.0], alpha_grid=[0.1, 10.0],
                          random_state=0)
    assert res.columns.tolist() == ["split", "model", "MZE", "MAE", "macro-MAE", "param",
                                    "seconds"]
    assert res.shape == (2 * len(HOLDOUT_MODELS), 7)
    assert res["model"].tolist()[:4] == list(HOLDOUT_MODELS)
    assert res["MZE"].between(0, 1).all() and (res["MAE"] >= res["MZE"] - 1e-12).all()
    fitted = res[res["model"] != "median"]
    assert fitted["param"].isin([0.1, 1.0, 10.0]).all()
    assert res[res["model"] == "median"]["param"].isna().all()
    means = res.groupby("model")["MAE"].mean()
    assert means["explicit"] < means["median"] and means["logistic"] < means["median"]
    # reproducible, and the same in parallel
    again = ordinal_holdout(X, y, n_splits=2, C_grid=[0.1, 1.0], alpha_grid=[0.1, 10.0],
                            random_state=0, n_jobs=2, prefer="threads")
    np.testing.assert_array_equal(res[["MZE", "MAE", "param"]].to_numpy(),
                                  again[["MZE", "MAE", "param"]].to_numpy())


def test_holdout_rejects_bad_arguments(data):
    X, y = data
    with pytest.raises(ValueError, match="models"):
        ordinal_holdout(X, y, models=["lasso"], n_splits=1)
    with pytest.raises(ValueError, match="models"):
        ordinal_holdout(X, y, models=[], n_splits=1)
    with pytest.raises(InvalidParameterError, match="C_grid"):
        ordinal_holdout(X, y, C_grid=[], n_splits=1)
    with pytest.raises(InvalidParameterError, match="n_splits"):
        ordinal_holdout(X, y, n_splits=0)
    with pytest.raises(ValueError, match="labels but X has"):
        ordinal_holdout(X, y[:-1], n_splits=1)
