"""The intervals of the decision rule against hand computations and other routes."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from lupikit._book.intervals import (binomial_interval, decide, interval, resampled_t_interval,
                                     t_interval)

VALUES = [0.61, 0.64, 0.58, 0.66, 0.63]


def test_t_interval_by_hand():
    # mean 0.624, s^2 = 0.00372 / 4, t_{0.975, 4} = 2.7764451 (tables)
    mean, low, high = t_interval(VALUES)
    half = 2.7764451 * math.sqrt(0.00372 / 4 / 5)
    assert mean == pytest.approx(0.624)
    assert (low, high) == pytest.approx((0.624 - half, 0.624 + half), rel=1e-7)


def test_resampled_t_is_wider_by_the_test_to_train_ratio():
    # Nadeau and Bengio: var of the mean (1/J + n2/n1) s^2 instead of s^2 / J
    mean, low, high = resampled_t_interval(VALUES, test_fraction=0.3)
    half = 2.7764451 * math.sqrt((1 / 5 + 0.3 / 0.7) * 0.00372 / 4)
    assert (low, high) == pytest.approx((mean - half, mean + half), rel=1e-7)
    assert high - low > t_interval(VALUES)[2] - t_interval(VALUES)[1]


def test_binomial_interval_is_clopper_pearson_by_beta_quantiles():
    for k, n in [(0, 10), (3, 10), (10, 10), (37, 50)]:
        p, low, high = binomial_interval(k, n)
        lo = 0.0 if k == 0 else stats.beta.ppf(0.025, k, n - k + 1)
        hi = 1.0 if k == n else stats.beta.ppf(0.975, k + 1, n - k)
        assert p == k / n
        assert (low, high) == pytest.approx((lo, hi), abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=30), st.floats(0.5, 0.999))
def test_t_interval_covers_the_mean_and_matches_scipys_own(values, level):
    mean, low, high = t_interval(values, level)
    assert low <= mean <= high
    x = np.asarray(values)
    if x.std(ddof=1) > 0:
        ref = stats.t.interval(level, x.size - 1, loc=x.mean(), scale=stats.sem(x))
        assert (low, high) == pytest.approx(ref, rel=1e-9, abs=1e-9)


def test_no_spread_gives_the_point_and_a_clear_verdict():
    mean, low, high = t_interval([0.7, 0.7, 0.7])
    assert low == mean == high == pytest.approx(0.7)
    assert decide((0.7, 0.7), ">", 0.5) == "holds"


@pytest.mark.parametrize("bounds, op, t, verdict", [
    ((0.6, 0.8), ">", 0.5, "holds"), ((0.6, 0.8), ">", 0.9, "does not hold"),
    ((0.6, 0.8), ">", 0.7, "inconclusive"), ((0.5, 0.8), ">", 0.5, "inconclusive"),
    ((0.5, 0.8), ">=", 0.5, "holds"), ((0.2, 0.5), ">", 0.5, "does not hold"),
    ((0.2, 0.5), ">=", 0.5, "inconclusive"), ((0.2, 0.4), "<", 0.5, "holds"),
    ((0.2, 0.5), "<", 0.5, "inconclusive"), ((0.2, 0.5), "<=", 0.5, "holds"),
    ((0.6, 0.9), "<=", 0.5, "does not hold"), ((0.5, 0.9), "<", 0.5, "does not hold"),
])
def test_decide_against_the_threshold(bounds, op, t, verdict):
    assert decide(bounds, op, t) == verdict


def test_interval_dispatches_and_refuses_what_it_cannot_do():
    assert interval("t", VALUES) == t_interval(VALUES)
    assert interval("resampled-t", VALUES, test_fraction=0.2) == resampled_t_interval(VALUES, 0.2)
    # counts of data sets won at each seed, out of 10: pooled, 38 of 50
    assert interval("binomial", [8, 7, 8, 7, 8], trials=10) == binomial_interval(38, 50)
    with pytest.raises(ValueError, match="rule"):
        interval("bootstrap", VALUES)
    with pytest.raises(ValueError, match="trials"):
        interval("binomial", [1, 2])
    with pytest.raises(ValueError, match="test_fraction"):
        resampled_t_interval(VALUES, 1.0)
    with pytest.raises(ValueError, match="two finite"):
        t_interval([0.5])
    with pytest.raises(ValueError, match="op"):
        decide((0, 1), "==", 0.5)
