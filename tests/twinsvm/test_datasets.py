"""The vendored UCI/KEEL/MNIST loaders used by this part."""

import numpy as np
import pytest

from lupikit.datasets import load_breast_cancer_wisconsin, load_glass, load_haberman, load_mnist_5_8
from lupikit.datasets._uci import downsample_images


def test_shapes_and_class_counts():
    X, y = load_breast_cancer_wisconsin(return_X_y=True)
    assert X.shape == (683, 9) and np.bincount(y)[[2, 4]].tolist() == [444, 239]
    b = load_haberman()
    assert b.data.shape == (306, 3) and np.bincount(b.target)[[1, 2]].tolist() == [225, 81]
    X, y = load_glass(return_X_y=True)
    assert X.shape == (214, 9)
    assert [int((y == t).sum()) for t in (1, 2, 3, 5, 6, 7)] == [70, 76, 17, 13, 9, 29]
    X, y = load_mnist_5_8(return_X_y=True)
    assert X.shape == (1000, 784) and np.bincount(y)[[5, 8]].tolist() == [500, 500]
    assert 0.0 <= X.min() and X.max() <= 1.0


def test_downsampling_preserves_mean_ink():
    X, _ = load_mnist_5_8(return_X_y=True)
    X10, _ = load_mnist_5_8(return_X_y=True, resolution=10)
    assert X10.shape == (1000, 100)
    np.testing.assert_allclose(X10.mean(axis=1), X.mean(axis=1), rtol=1e-10)
    # integer factor: block averages
    img = np.arange(16.0).reshape(1, 4, 4)
    np.testing.assert_allclose(downsample_images(img, 2)[0], [[2.5, 4.5], [10.5, 12.5]])
    with pytest.raises(ValueError, match="resolution"):
        load_mnist_5_8(resolution=0)
