import doctest
import importlib

import numpy as np
import pytest

from lupikit.datasets import (
    bin_target,
    load_anes96,
    load_binned_regression,
    load_fair,
    make_lupi_ordinal,
    make_ordinal_relevance,
)


def test_make_ordinal_relevance_truth_and_bins():
    X, y, rel = make_ordinal_relevance(n_samples=500, n_strong=3, n_weak=4, n_irrelevant=5,
                                       n_bins=5, redundancy_noise=0.0, random_state=0)
    assert X.shape == (500, 12)
    assert rel.tolist() == [2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    assert np.bincount(y).tolist() == [100] * 5  # equal-frequency bins
    np.testing.assert_array_equal(X[:, 3], X[:, 4])  # exact redundant pair
    # irrelevant features are independent of y: tiny correlation
    assert np.max(np.abs([np.corrcoef(X[:, j], y)[0, 1] for j in range(7, 12)])) < 0.15
    with pytest.raises(ValueError, match="n_weak must be even"):
        make_ordinal_relevance(n_weak=3)
    with pytest.raises(ValueError, match="n_bins"):
        make_ordinal_relevance(n_bins=1)


def test_make_lupi_ordinal():
    X, Xs, y, r, rs = make_lupi_ordinal(n_samples=300, view_noise=0.0, random_state=0)
    assert X.shape == (300, 20) and Xs.shape == (300, 8)
    np.testing.assert_allclose(X[:, :3], Xs[:, :3])  # noise-free view of the strong signals
    assert rs.tolist() == [1] * 5 + [0] * 3


def test_bin_target():
    rng = np.random.RandomState(0)
    y = rng.standard_normal(1000)
    levels = bin_target(y, n_bins=10)
    assert np.bincount(levels).tolist() == [100] * 10
    assert np.all(np.diff(levels[np.argsort(y)]) >= 0)  # monotone
    with pytest.raises(ValueError, match="NaN"):
        bin_target([1.0, np.nan])


def test_real_loaders():
    d = load_anes96()
    assert d.data.shape == (944, 10) and set(d.target) == set(range(7))
    assert set(d.privileged_names) <= set(d.feature_names)
    f = load_fair()
    assert f.data.shape == (6366, 8) and set(f.target) == {1, 2, 3, 4, 5}
    b = load_binned_regression("diabetes", n_bins=5)
    assert b.data.shape == (442, 10) and np.bincount(b.target).min() >= 80
    s = load_binned_regression("star98", n_bins=10)
    assert s.data.shape[0] == 303 and s.target.max() == 9
    with pytest.raises(ValueError, match="name"):
        load_binned_regression("boston")


def test_real_loaders_return_X_y():
    for load in (load_anes96, load_fair, load_binned_regression):
        bunch = load()
        X, y = load(return_X_y=True)
        np.testing.assert_array_equal(np.asarray(X), np.asarray(bunch.data))
        np.testing.assert_array_equal(y, bunch.target)


@pytest.mark.parametrize("module", [
    "lupikit.relevance._lp", "lupikit.relevance._layout", "lupikit.relevance._engine",
    "lupikit.relevance._primal", "lupikit.relevance._tasks", "lupikit.relevance._ordinal",
    "lupikit.relevance._bounds",
    "lupikit.relevance._thresholds", "lupikit.datasets._ordinal",
])
def test_docstring_examples(module):
    mod = importlib.import_module(module)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0 and res.failed == 0
