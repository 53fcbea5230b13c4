"""Synthetic data generators.

- :func:`make_lupi_classification`: the LUPI setting (privileged features
  that explain the label);
- :func:`make_additive_dependence`, :func:`make_student_grades`,
  :func:`make_oblivious_regression`: the data of Grünewälder & Khaleghi
  (2021), Figure 2 and Sections 7.1 and 7.2 (Part IV).
"""

import numbers

import numpy as np
from scipy import stats
from sklearn.utils import check_random_state

__all__ = [
    "make_lupi_classification",
    "make_additive_dependence",
    "make_student_grades",
    "make_oblivious_regression",
]


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


def make_additive_dependence(n_samples, setting="square", random_state=None):
    """The data of Figure 2: ``X = S + U`` with ``S`` and ``U`` independent.

    Parameters
    ----------
    n_samples : int
    setting : {"square", "sin"}, default="square"
        ``"square"``: S ~ U[0, 1], U ~ U[-1/2, 1/2] (used with h(x) = x^2);
        ``"sin"``: S ~ U[0, 2 pi], U ~ U[0, pi/2] (used with h(x) = sin x).
    random_state : int, RandomState or None

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
    S : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from lupikit.datasets import make_additive_dependence
    >>> X, S = make_additive_dependence(5, random_state=0)
    >>> X.shape, S.shape
    ((5, 1), (5,))
    """
    rng = check_random_state(random_state)
    if setting == "square":
        S = rng.uniform(0.0, 1.0, n_samples)
        U = rng.uniform(-0.5, 0.5, n_samples)
    elif setting == "sin":
        S = rng.uniform(0.0, 2 * np.pi, n_samples)
        U = rng.uniform(0.0, np.pi / 2, n_samples)
    else:
        raise ValueError(f"setting={setting!r} must be 'square' or 'sin'.")
    return (S + U)[:, None], S


def make_student_grades(n_samples, *, threshold=2.0, boost_prob=0.9, mu=2.5, sigma=0.5,
                        random_state=None):
    """The student-grades simulation of Section 7.1.

    ``S ~ Bernoulli(1/2)``; the original grade ``X0`` is a normal
    ``N(mu, sigma^2)`` truncated to ``[1, 4]``; the observed grade is
    ``X = X0 - B`` for ``S = 0`` and ``X0 + B`` for ``S = 1`` with
    ``B ~ Bernoulli(boost_prob)``. The observed label is
    ``Y = Y0 * 1{X + S >= threshold}`` with ``Y0 ~ Bernoulli(X0 / 4)``, the
    fair label is ``Y* = Y0 * 1{X0 >= threshold}``: the same noisy decision
    applied to the unmodified grade (Eq. 13; the extracted text of the paper
    lost the factor, the authors' public script has it). The paper does not
    state ``mu``, ``sigma`` and the law of ``Y0``; the defaults follow the
    authors' public script (which uses ``threshold=2.5``; the paper's text
    says 2, our default).

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
    S : ndarray of shape (n_samples,)
    y : ndarray of shape (n_samples,) of {0, 1}
        Observed (biased) labels.
    y_true : ndarray of shape (n_samples,) of {0, 1}
        Fair ground-truth labels (same ``Y0`` as ``y``).

    Examples
    --------
    >>> from lupikit.datasets import make_student_grades
    >>> X, S, y, y_true = make_student_grades(100, random_state=0)
    >>> sorted(set(y.tolist()) | set(y_true.tolist()))
    [0, 1]
    """
    rng = check_random_state(random_state)
    S = rng.binomial(1, 0.5, n_samples)
    a, b = (1.0 - mu) / sigma, (4.0 - mu) / sigma
    X0 = stats.truncnorm.rvs(a, b, loc=mu, scale=sigma, size=n_samples, random_state=rng)
    B = rng.binomial(1, boost_prob, n_samples)
    X = np.where(S == 0, X0 - B, X0 + B)
    Y0 = rng.binomial(1, X0 / 4.0)
    y = Y0 * (X + S >= threshold)
    y_true = (Y0 * (X0 >= threshold)).astype(int)
    return X[:, None], S.astype(float), y.astype(int), y_true


def make_oblivious_regression(n_samples, gamma, *, experiment=1, noise_var=0.1,
                              random_state=None):
    """The ridge-regression data of Section 7.2.

    ``S, U ~ U[-5, 5]`` independent, ``X = gamma U + (1 - gamma) S``;
    Experiment 1: ``Y = X^2 + eps``; Experiment 2: ``Y = X^2 + S^2 + eps``,
    with ``eps ~ N(0, noise_var)``.

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
    S : ndarray of shape (n_samples,)
    y : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from lupikit.datasets import make_oblivious_regression
    >>> X, S, y = make_oblivious_regression(4, 0.0, random_state=0)
    >>> bool(abs(X[:, 0] - S).max() == 0)
    True
    """
    if experiment not in (1, 2):
        raise ValueError(f"experiment={experiment!r} must be 1 or 2.")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma={gamma!r} must lie in [0, 1].")
    rng = check_random_state(random_state)
    S = rng.uniform(-5.0, 5.0, n_samples)
    U = rng.uniform(-5.0, 5.0, n_samples)
    X = gamma * U + (1.0 - gamma) * S
    y = X**2 + rng.normal(scale=np.sqrt(noise_var), size=n_samples)
    if experiment == 2:
        y = y + S**2
    return X[:, None], S, y
