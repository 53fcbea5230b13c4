"""Synthetic data for the LUPI setting."""

import numbers

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["make_lupi_classification"]


def _check_int(value, name, minimum):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def _check_nonneg(value, name):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}.")
    return float(value)


def make_lupi_classification(
    n_samples=1000,
    n_features=10,
    n_privileged=5,
    *,
    noise=1.0,
    label_noise=0.05,
    n_classes=2,
    random_state=None,
):
    """Binary or multi-class data where privileged features explain the label.

    The privileged features ``X*`` are the clean latent signal: the label is a
    (linear) function of ``X*`` with a little label noise. The regular features
    ``X`` are a noisy random mixture of ``X*`` (a corrupted view that is
    available at test time), so a model on ``X`` alone is worse than the
    "upper bound" model on ``X*``, and privileged information has a gap to
    close.

    Generative model::

        X*  ~ N(0, I_{n_privileged})
        X   = X* A + noise * E,     A ~ N(0, 1/n_privileged), E ~ N(0, I)
        y   = argmax_k (X* W)_k  (k = 0..n_classes-1; for 2 classes the sign of X* w)
        with probability label_noise, y is replaced by a uniformly drawn class.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of samples.
    n_features : int, default=10
        Number of regular features (columns of ``X``).
    n_privileged : int, default=5
        Number of privileged features (columns of ``X*``).
    noise : float, default=1.0
        Standard deviation of the Gaussian noise added to the regular view.
        ``noise=0`` makes ``X`` an exact linear image of ``X*``.
    label_noise : float, default=0.05
        Probability that a label is replaced by a random class.
    n_classes : int, default=2
        Number of classes.
    random_state : int, RandomState instance or None, default=None
        Seed for reproducibility.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Regular features.
    X_priv : ndarray of shape (n_samples, n_privileged)
        Privileged features.
    y : ndarray of shape (n_samples,)
        Integer labels in ``0..n_classes-1``.

    Examples
    --------
    >>> from lupikit.datasets import make_lupi_classification
    >>> X, X_priv, y = make_lupi_classification(n_samples=100, random_state=0)
    >>> X.shape, X_priv.shape, y.shape
    ((100, 10), (100, 5), (100,))
    """
    n_samples = _check_int(n_samples, "n_samples", 1)
    n_features = _check_int(n_features, "n_features", 1)
    n_privileged = _check_int(n_privileged, "n_privileged", 1)
    n_classes = _check_int(n_classes, "n_classes", 2)
    noise = _check_nonneg(noise, "noise")
    label_noise = _check_nonneg(label_noise, "label_noise")
    if label_noise > 1:
        raise ValueError(f"label_noise must lie in [0, 1], got {label_noise!r}.")
    rng = check_random_state(random_state)

    X_priv = rng.standard_normal((n_samples, n_privileged))
    A = rng.standard_normal((n_privileged, n_features)) / np.sqrt(n_privileged)
    X = X_priv @ A + noise * rng.standard_normal((n_samples, n_features))
    if n_classes == 2:
        w = rng.standard_normal(n_privileged)
        y = (X_priv @ w > 0).astype(int)
    else:
        W = rng.standard_normal((n_privileged, n_classes))
        y = np.argmax(X_priv @ W, axis=1)
    flip = rng.random_sample(n_samples) < label_noise
    y[flip] = rng.randint(0, n_classes, size=int(flip.sum()))
    return X, X_priv, y
