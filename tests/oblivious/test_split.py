"""The estimation / fitting split keeps every sensitive group (issue 24).

A discrete partition of ``S`` cannot estimate the conditional mean of a group
absent from the estimation part, and the classifier needs every class in the
fitting part. The split must meet both whenever some split of the requested
sizes does (an independent oracle decides that below), raise a clear
ValueError otherwise, and leave the earlier split alone where it was fine.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lupikit.oblivious import ObliviousRidge, ObliviousSVC
from properties import examples


def _groups_of_five(seed=0):
    rng = np.random.default_rng(seed)
    S = np.repeat(np.arange(6), 5).astype(float)
    X = rng.normal(size=(30, 2)) + 0.3 * S[:, None]
    y = (X[:, 0] > X[:, 0].mean()).astype(int)
    return X, y, S


def _assert_split(m, n, n_est, S, y=None):
    e, f = m.estimation_indices_, m.fit_indices_
    assert len(e) == n_est and len(f) == n - n_est
    np.testing.assert_array_equal(np.sort(np.r_[e, f]), np.arange(n))
    assert set(S[e]) == set(S)
    if y is not None:
        assert set(y[f]) == set(y)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("cls", [ObliviousSVC, ObliviousRidge])
def test_six_groups_of_five_keep_every_group_on_both_sides(cls, seed):
    # was: "sensitive_features contains value(s) [...] never seen in the estimation sample"
    X, y, S = _groups_of_five()
    target = y if cls is ObliviousSVC else X[:, 1]
    m = cls(estimation_fraction=0.2, random_state=seed).fit(X, target, sensitive_features=S)
    _assert_split(m, 30, 6, S, y if cls is ObliviousSVC else None)
    assert set(S[m.fit_indices_]) == set(S)  # both sides
    again = cls(estimation_fraction=0.2, random_state=seed).fit(X, target, sensitive_features=S)
    np.testing.assert_array_equal(again.estimation_indices_, m.estimation_indices_)
    assert np.all(np.isfinite(m.predict(X, sensitive_features=S).astype(float)))


def test_too_small_estimation_part_names_smallest_group_and_fraction():
    X, y, S = _groups_of_five()
    S[:2] = 7.0  # the smallest group: 7.0 with 2 samples
    with pytest.raises(ValueError, match=r"leaves 3 of the 30 samples for estimation, fewer "
                                         r"than the 7 sensitive groups.*smallest group, 7\.0, "
                                         r"has 2 sample.*estimation_fraction >= 0\.22"):
        ObliviousSVC(estimation_fraction=0.1, random_state=0).fit(X, y, sensitive_features=S)
    # the fraction it names works
    m = ObliviousRidge(estimation_fraction=0.22, random_state=0).fit(X, X[:, 1],
                                                                     sensitive_features=S)
    _assert_split(m, 30, 7, S)


def test_group_and_class_competing_for_one_row_raise_clearly():
    X, y, S = _groups_of_five()
    S[0], y[0] = 9.0, 7  # row 0 alone is group 9.0 and class 7
    with pytest.raises(ValueError, match=r"No split of the 30 samples.*class 7 of y.*"
                                         r"smallest group, 9\.0, has 1 sample"):
        ObliviousSVC(random_state=0).fit(X, y, sensitive_features=S)
    # the documented ways out
    m = ObliviousSVC(random_state=0, handle_unknown="empty").fit(X, y, sensitive_features=S)
    assert 0 in m.fit_indices_ and set(S[m.estimation_indices_]) == set(S) - {9.0}
    ObliviousSVC(estimation_fraction=1.0).fit(X, y, sensitive_features=S)


def test_singleton_group_goes_to_the_estimation_part():
    X, y, S = _groups_of_five()
    S[4] = 8.0
    for seed in range(5):
        m = ObliviousSVC(random_state=seed).fit(X, y, sensitive_features=S)
        _assert_split(m, 30, 15, S, y)
        assert 4 in m.estimation_indices_


def test_ordered_split_missing_group_raises_clearly():
    X, y, S = _groups_of_five()  # groups 0-2 only in the first (fitting) half
    for cls, target in ((ObliviousSVC, y), (ObliviousRidge, X[:, 1])):
        with pytest.raises(ValueError, match=r"split='ordered' estimates on the last 15 rows, "
                                             r"which hold no sample of sensitive group\(s\) "
                                             r"\[0\.0, 1\.0, 2\.0\]"):
            cls(split="ordered").fit(X, target, sensitive_features=S)
        cls(split="ordered", handle_unknown="empty").fit(X, target, sensitive_features=S)


def test_auto_partition_is_chosen_on_the_whole_sample():
    # 7 integer values > n_bins=6: a grid on the whole sample. The estimation half
    # alone often shows <= 6 values, which used to make it discrete and then fail on
    # the unseen values of the fitting half.
    rng = np.random.default_rng(0)
    S = np.r_[np.zeros(10), np.ones(9), np.arange(2, 7)].astype(float)
    X = rng.normal(size=(24, 1))
    for seed in range(6):
        m = ObliviousRidge(n_bins=6, random_state=seed).fit(X, X[:, 0], sensitive_features=S)
        assert m.kernel_.partition_.kind_ == "grid"


def _legacy_data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, 2, n).astype(float)
    X = np.c_[rng.normal(size=n) + S, rng.normal(size=n)]
    y = (X[:, 0] > 0.5).astype(int)
    return X, y, S


def test_splits_that_kept_every_group_are_unchanged():
    # estimation rows drawn by lupikit before issue 24 (stratified train_test_split,
    # and for "svc_rare" a class swapped into the fitting part)
    X, y, S = _legacy_data()
    y3 = y.copy()
    y3[[3, 17]] = 2
    cases = [
        (ObliviousSVC(kernel="linear", random_state=2), y3,
         [1, 2, 3, 4, 6, 7, 8, 11, 14, 18, 19, 20, 21, 22, 23, 24, 26, 29, 30, 31]),
        (ObliviousSVC(kernel="linear", random_state=1, estimation_fraction=0.3), y,
         [0, 3, 12, 21, 24, 25, 28, 32, 33, 35, 36, 37]),
        (ObliviousRidge(kernel="linear", random_state=2), y3.astype(float),
         [1, 2, 3, 4, 6, 7, 8, 11, 14, 17, 18, 19, 20, 21, 22, 23, 24, 29, 30, 31]),
    ]
    for est, target, expected in cases:
        est.fit(X, target, sensitive_features=S)
        np.testing.assert_array_equal(est.estimation_indices_, expected)


# ---------------------------------------------------------------------------
# property: the split succeeds exactly when some split can hold the requirements
# ---------------------------------------------------------------------------
def _feasible(groups, classes, n_est):
    """Oracle: can every group be in the estimation part and every class in the
    fitting part? Each group and each class needs its own row (a row is in one
    part), which exists iff every connected component of the group-class graph
    (an edge per row) has at least as many rows as groups and classes."""
    n = len(groups)
    G, K = groups.max() + 1, classes.max() + 1
    if n_est < G or n - n_est < K:
        return False
    parent = list(range(G + K))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for g, c in zip(groups, classes):
        parent[find(g)] = find(G + c)
    roots = np.array([find(v) for v in range(G + K)])
    edges = np.bincount([find(g) for g in groups], minlength=G + K)
    verts = np.bincount(roots, minlength=G + K)
    return bool(np.all(edges >= verts))


@st.composite
def split_problems(draw):
    n = draw(st.integers(8, 80))
    G = draw(st.integers(1, 7))
    K = draw(st.integers(2, 4))
    # skewed sizes: rare groups and classes, singletons included
    gw = draw(st.lists(st.floats(0.02, 1.0), min_size=G, max_size=G))
    cw = draw(st.lists(st.floats(0.02, 1.0), min_size=K, max_size=K))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    groups = rng.choice(G, size=n, p=np.array(gw) / sum(gw))
    classes = rng.choice(K, size=n, p=np.array(cw) / sum(cw))
    frac = draw(st.sampled_from([0.1, 0.2, 0.3, 0.5, 0.7, 0.9]))
    # rows that make some requirements compete: a row alone in its group and its
    # class (1), a class of two rows alone in their groups (2), a group of two rows
    # alone in their classes (3); the component is a tree, so no split exists
    trap = draw(st.sampled_from([0, 0, 0, 0, 0, 1, 2, 3]))
    if trap:
        k = 1 if trap == 1 else 2
        rows = rng.choice(n, size=k, replace=False)
        groups[rows] = G + (np.arange(k) if trap == 2 else 0)
        classes[rows] = K + (np.arange(k) if trap == 3 else 0)
    # relabel to consecutive codes (some drawn groups or classes may be empty)
    groups = np.unique(groups, return_inverse=True)[1]
    classes = np.unique(classes, return_inverse=True)[1]
    return groups, classes, frac, draw(st.integers(0, 1000))


@pytest.mark.property
@given(split_problems())
@examples(cost=1)
def test_split_succeeds_iff_feasible(problem):
    groups, classes, frac, seed = problem
    n = len(groups)
    n_est = int(round(frac * n))
    if n_est < 1 or n_est >= n or classes.max() == 0:
        return
    S = 10.0 * groups + 1.0  # group labels 1, 11, 21, ...
    X = np.random.default_rng(0).normal(size=(n, 2))
    est = ObliviousSVC(kernel="linear", estimation_fraction=frac, random_state=seed)
    if not _feasible(groups, classes, n_est):
        with pytest.raises(ValueError, match=r"(sensitive groups|classes of y|No split).*"):
            est.fit(X, classes, sensitive_features=S)
        return
    est.fit(X, classes, sensitive_features=S)
    _assert_split(est, n, n_est, S, classes)
    # every group with two or more rows is in the fitting part too, when there is room
    big = np.unique(S[np.isin(groups, np.flatnonzero(np.bincount(groups) >= 2))])
    if n - n_est >= len(np.unique(S)) + len(np.unique(classes)):
        assert set(big) <= set(S[est.fit_indices_])
    ridge = ObliviousRidge(kernel="linear", estimation_fraction=frac, random_state=seed)
    if n_est >= len(np.unique(S)):
        ridge.fit(X, X[:, 0], sensitive_features=S)
        _assert_split(ridge, n, n_est, S)
