"""A positive control for ordinal LUPI: label noise that the privileged features explain.

In :func:`make_lupi_ordinal` the privileged features are the clean signals
and the regular ones a noisy view of them, so the view noise that makes a
training sample hard is independent of ``X*``: no correcting function of
``X*`` can predict it. :func:`make_lupi_ordinal_noise` is the opposite case,
where a LUPI model should win: the regular features carry the clean signal,
and the label is shifted by a bounded noise that is (up to a small residual)
a linear function of the privileged features. ``X*`` then says which training
labels were pushed across a threshold and in which direction, which is what
the correcting functions of the ordinal LUPI model describe.
"""

import numpy as np
from sklearn.utils import check_random_state

from ._ordinal import _int, _nonneg, bin_target

__all__ = ["make_lupi_ordinal_noise"]


def make_lupi_ordinal_noise(n_samples=300, n_signal=3, n_irrelevant=7, *, n_privileged_irrelevant=3,
                            n_bins=3, label_noise=0.5, margin=0.5, slack_noise=0.05, random_state=None):
    r"""Ordinal LUPI data whose privileged features carry the slack of the true rule.

    Generative model::

        S (n_signal)                      clean signal,  z = sum_k s_k S_k
        y = equal-frequency bins of z + label_noise * eps   (cut points c_1 < ... < c_{l-1})
        X  = [S, N]                       regular: the clean signal and irrelevant columns
        X* = [chi + slack_noise * e, xi + slack_noise * e', M]

    where ``chi`` and ``xi`` are the slacks that the true rule (score ``z / margin``,
    thresholds ``c_j / margin``) needs at sample ``i`` in the explicit ordinal LP:
    ``chi = max(0, 1 + (z - c_y) / margin)`` below its bin's upper threshold
    and ``xi = max(0, 1 - (z - c_{y-1}) / margin)`` above its lower one (0 where
    the bin has no such threshold). The label noise pushes samples across the
    thresholds; ``X*`` says, up to a small noise, by how much -- a linear
    function of ``X*``, which the correcting functions of the ordinal LUPI model
    can represent. The best rule from ``X`` alone bins ``z``.

    Parameters
    ----------
    n_samples : int, default=300
    n_signal : int, default=3
        Relevant regular features (at least 1).
    n_irrelevant : int, default=7
        Irrelevant regular features.
    n_privileged_irrelevant : int, default=3
        Irrelevant privileged columns.
    n_bins : int, default=3
    label_noise : float, default=0.5
        Scale of the Gaussian noise on the latent score before binning (``z`` has
        variance ``n_signal``).
    margin : float, default=0.5
        Width, in units of ``z``, of the true rule's margin.
    slack_noise : float, default=0.05
        Noise added to the slacks in ``X*``.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_signal + n_irrelevant)
    X_star : ndarray of shape (n_samples, 2 + n_privileged_irrelevant)
    y : ndarray of int of shape (n_samples,)
        Noisy ordinal labels ``0 .. n_bins - 1``.
    y_clean : ndarray of int of shape (n_samples,)
        The bins of ``z`` at the same cut points (the labels without noise).
    relevance_privileged : ndarray of int
        1 for the two slack columns, 0 for the irrelevant privileged columns.

    Examples
    --------
    >>> from lupikit.datasets import make_lupi_ordinal_noise
    >>> X, Xs, y, y_clean, rs = make_lupi_ordinal_noise(n_samples=40, random_state=0)
    >>> X.shape, Xs.shape, rs.tolist(), sorted(set(y.tolist()))
    ((40, 10), (40, 5), [1, 1, 0, 0, 0], [0, 1, 2])
    """
    n_samples = _int(n_samples, "n_samples", 2)
    n_signal = _int(n_signal, "n_signal", 1)
    n_irrelevant = _int(n_irrelevant, "n_irrelevant", 0)
    n_pi = _int(n_privileged_irrelevant, "n_privileged_irrelevant", 0)
    n_bins = _int(n_bins, "n_bins", 2)
    label_noise = _nonneg(label_noise, "label_noise")
    slack_noise = _nonneg(slack_noise, "slack_noise")
    margin = _nonneg(margin, "margin")
    if margin == 0:
        raise ValueError("margin must be positive.")
    rng = check_random_state(random_state)
    S = rng.standard_normal((n_samples, n_signal))
    z = S @ rng.choice([-1.0, 1.0], size=n_signal)
    noisy = z + label_noise * rng.standard_normal(n_samples)
    y = bin_target(noisy, n_bins)
    # the cut points of the noisy score, and the clean labels at them
    cuts = np.array([(noisy[y == k].max() + noisy[y == k + 1].min()) / 2 for k in range(n_bins - 1)])
    y_clean = np.searchsorted(cuts, z, side="left").astype(int)
    upper = np.where(y < n_bins - 1, cuts[np.minimum(y, n_bins - 2)], np.inf)
    lower = np.where(y > 0, cuts[np.maximum(y - 1, 0)], -np.inf)
    chi = np.maximum(0.0, 1.0 + (z - upper) / margin)
    xi = np.maximum(0.0, 1.0 - (z - lower) / margin)
    slacks = np.c_[chi, xi] + slack_noise * rng.standard_normal((n_samples, 2))
    X = np.hstack([S, rng.standard_normal((n_samples, n_irrelevant))])
    X_star = np.hstack([slacks, rng.standard_normal((n_samples, n_pi))])
    relevance_priv = np.array([1, 1] + [0] * n_pi, dtype=int)
    return X, X_star, y, y_clean, relevance_priv
