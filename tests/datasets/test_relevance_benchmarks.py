"""The relevance paper's synthetic ordinal benchmark (Sets 1-8) and its generator."""

import numpy as np
import pytest

from lupikit.datasets import FRI_SETS, make_fri_ordinal, make_ordinal_benchmark
from lupikit.datasets._relevance_benchmarks import CATALOG, LATENT_COEF


@pytest.mark.parametrize("set_id", sorted(FRI_SETS))
def test_sets_have_the_published_sizes(set_id):
    n, strong, weak, irrelevant = FRI_SETS[set_id]
    X, y, relevance = make_ordinal_benchmark(set_id, random_state=0)
    assert X.shape == (n, strong + weak + irrelevant)
    assert relevance.tolist() == [2] * strong + [1] * weak + [0] * irrelevant
    # three equal-frequency classes, the remainder in the top class
    assert np.bincount(y).tolist() == [n // 3, n // 3, n - 2 * (n // 3)]
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(X.std(axis=0), 1, atol=1e-12)


def test_published_table():
    # experiments4.py of lpfann/fri (tag esann_paper_experiments) and
    # runner/experiment_pipeline.py of lpfann/squamish_experiments
    assert [FRI_SETS[k] for k in range(1, 6)] == [
        (150, 6, 0, 6), (150, 0, 6, 6), (150, 3, 4, 3), (256, 6, 6, 6), (512, 1, 2, 11)]
    assert FRI_SETS[8] == (2000, 10, 10, 50)


def test_generative_model_without_standardisation():
    X, y, rel = make_fri_ordinal(300, 2, 3, 4, standardize=False, random_state=1)
    weak = X[:, 2:5]
    # a weak feature is one latent shifted by a constant from U(1, 2)
    shifts = weak - weak[:, :1]
    assert np.allclose(shifts, shifts[0])
    offsets = weak.mean(axis=0) - X[:, :2].mean()  # rough: latents have mean ~0
    assert np.all((offsets > 0.7) & (offsets < 2.3))
    # the classes cut 0.3 * (sum of the latents): the strong features and one weak copy
    # (its constant shift does not change the order)
    score = LATENT_COEF * (X[:, 0] + X[:, 1] + weak[:, 0])
    by_class = [score[y == k] for k in range(3)]
    assert by_class[0].max() < by_class[1].min() and by_class[1].max() < by_class[2].min()
    # irrelevant features are independent of y
    assert max(abs(np.corrcoef(X[:, j], y)[0, 1]) for j in range(5, 9)) < 0.2


def test_groups_of_weak_features_are_identical_after_standardisation():
    b = make_fri_ordinal(200, 1, 5, 2, partition=[2, 3], random_state=0, return_X_y=False)
    X = b.data
    assert b.groups.tolist() == [-1, 0, 0, 1, 1, 1, -1, -1]
    np.testing.assert_allclose(X[:, 1], X[:, 2])
    np.testing.assert_allclose(X[:, 3], X[:, 5])
    assert abs(np.corrcoef(X[:, 1], X[:, 3])[0, 1]) < 0.3  # two different latents
    assert b.relevant.tolist() == [True] * 6 + [False] * 2
    assert b.feature_names[:3] == ["strong_0", "weak_0_0", "weak_0_1"]


def test_bunch_and_descr_name_the_source():
    b = make_ordinal_benchmark(3, random_state=0, return_X_y=False)
    assert b.data.shape == (150, 10) and b.target.shape == (150,)
    assert "Set 3" in b.DESCR and "lpfann/fri" in b.DESCR and "squamish_experiments" in b.DESCR
    assert "U(1.0, 2.0)" in b.DESCR and "standardised" in b.DESCR


def test_reproducible_and_seeded():
    a = make_ordinal_benchmark(4, random_state=3)
    b = make_ordinal_benchmark(4, random_state=3)
    c = make_ordinal_benchmark(4, random_state=4)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.allclose(a[0], c[0])


def test_noise_and_classes():
    X, y, _ = make_fri_ordinal(100, 2, 0, 1, n_classes=4, noise=0.5, random_state=0)
    assert np.bincount(y).tolist() == [25, 25, 25, 25]
    assert np.corrcoef(X[:, 0], X[:, 1])[0, 1] < 0.5


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_samples=1), "n_samples"),
    (dict(n_strong=-1), "n_strong"),
    (dict(n_weak=1.5), "n_weak"),
    (dict(n_strong=0, n_weak=0), "positive"),
    (dict(n_weak=1), "n_weak must be 0 or at least 2"),
    (dict(n_weak=4, partition=[2, 1, 1]), "partition"),
    (dict(n_weak=4, partition=[2, 3]), "add up"),
    (dict(n_classes=1), "n_classes"),
    (dict(n_samples=2, n_classes=3), "fewer than n_classes"),
    (dict(noise=-1), "noise"),
    (dict(noise=float("nan")), "noise"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_fri_ordinal(**kwargs)


def test_bad_types():
    with pytest.raises(TypeError, match="partition"):
        make_fri_ordinal(n_weak=4, partition="22")
    with pytest.raises(TypeError, match="standardize"):
        make_fri_ordinal(standardize="yes")
    with pytest.raises(ValueError, match="set_id"):
        make_ordinal_benchmark(9)
    with pytest.raises(ValueError, match="set_id"):
        make_ordinal_benchmark(True)
    with pytest.raises(TypeError, match="make_fri_ordinal"):
        make_ordinal_benchmark(1, n_samples=10)


def test_catalog_entries_load():
    assert [info.kwargs["set_id"] for info in CATALOG] == [1, 2, 3, 4, 5, 8]
    for info in CATALOG:
        assert info.parts == ("relevance",) and info.loader == "make_ordinal_benchmark"
        bunch = make_ordinal_benchmark(**info.kwargs)
        n, s, w, i = FRI_SETS[info.kwargs["set_id"]]
        assert bunch.data.shape == (n, s + w + i)
        assert f"n = {n}" in info.paper_shape
