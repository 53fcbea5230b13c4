"""The positive-control generator for ordinal LUPI (lupikit.datasets.make_lupi_ordinal_noise)."""

import numpy as np
import pytest

from lupikit.datasets import make_lupi_ordinal_noise


def test_shapes_labels_and_reproducibility():
    X, Xs, y, yc, rs = make_lupi_ordinal_noise(n_samples=200, n_signal=2, n_irrelevant=3,
                                               n_privileged_irrelevant=1, n_bins=4, random_state=1)
    assert X.shape == (200, 5) and Xs.shape == (200, 3) and rs.tolist() == [1, 1, 0]
    assert sorted(set(y.tolist())) == [0, 1, 2, 3] and set(yc.tolist()) <= {0, 1, 2, 3}
    again = make_lupi_ordinal_noise(n_samples=200, n_signal=2, n_irrelevant=3,
                                    n_privileged_irrelevant=1, n_bins=4, random_state=1)
    assert all(np.array_equal(a, b) for a, b in zip((X, Xs, y, yc), again))


def test_the_privileged_slacks_are_those_of_the_true_rule():
    X, Xs, y, yc, _ = make_lupi_ordinal_noise(n_samples=500, slack_noise=0.0, random_state=0)
    # without slack noise the slacks are non-negative, and zero where the label is clean and far
    # from the thresholds; a sample whose noisy label differs from its clean one needs slack
    assert np.all(Xs[:, :2] >= 0)
    flipped = y != yc
    assert flipped.any() and np.all(Xs[flipped, :2].max(axis=1) > 1.0 - 1e-12)
    # the noise moves labels by at most a level or two, and most labels are clean
    assert np.mean(flipped) < 0.5


def test_bad_arguments():
    with pytest.raises(ValueError, match="margin"):
        make_lupi_ordinal_noise(margin=0.0)
    with pytest.raises(ValueError, match="n_signal"):
        make_lupi_ordinal_noise(n_signal=0)
