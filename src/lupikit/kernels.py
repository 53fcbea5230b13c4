"""Kernel functions, named the same way in every part of lupikit.

A thin layer over :func:`sklearn.metrics.pairwise.pairwise_kernels`: every
estimator accepts ``kernel`` in ``{"linear", "rbf", "poly"}`` (plus the other
names scikit-learn knows, such as ``"sigmoid"``, ``"laplacian"``) or a
callable ``k(X, Y) -> ndarray``, with ``gamma`` resolved as in
:class:`sklearn.svm.SVC` (``"scale"`` or ``"auto"`` or a positive float).
"""

import numbers

import numpy as np
from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels

__all__ = ["KERNEL_NAMES", "resolve_gamma", "kernel_matrix", "check_kernel"]

#: Kernel names understood by :func:`kernel_matrix`.
KERNEL_NAMES = tuple(sorted(PAIRWISE_KERNEL_FUNCTIONS))

_USES_GAMMA = {"rbf", "poly", "sigmoid", "laplacian", "chi2"}


def check_kernel(kernel):
    """Validate a kernel specification.

    Parameters
    ----------
    kernel : str or callable
        A name from :data:`KERNEL_NAMES` or a callable ``k(X, Y)``.

    Returns
    -------
    kernel : str or callable
        The validated kernel.

    Examples
    --------
    >>> from lupikit.kernels import check_kernel
    >>> check_kernel("rbf")
    'rbf'
    """
    if callable(kernel):
        return kernel
    if not isinstance(kernel, str) or kernel not in PAIRWISE_KERNEL_FUNCTIONS:
        raise ValueError(
            f"kernel={kernel!r} is not a known kernel; use one of "
            f"{list(KERNEL_NAMES)} or a callable k(X, Y)."
        )
    return kernel


def resolve_gamma(gamma, X):
    """Return the numeric kernel width, as :class:`sklearn.svm.SVC` does.

    Parameters
    ----------
    gamma : {"scale", "auto"} or float
        ``"scale"`` gives ``1 / (n_features * X.var())``, ``"auto"`` gives
        ``1 / n_features``; a float must be positive.
    X : ndarray of shape (n_samples, n_features)
        Training data the width is computed from.

    Returns
    -------
    gamma : float

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.kernels import resolve_gamma
    >>> resolve_gamma("auto", np.zeros((3, 4)))
    0.25
    """
    X = np.asarray(X)
    n_features = X.shape[1] if X.ndim == 2 else 1
    if isinstance(gamma, str):
        if gamma == "scale":
            var = float(X.var())
            return 1.0 / (n_features * var) if var > 0 else 1.0
        if gamma == "auto":
            return 1.0 / n_features
        raise ValueError(f"gamma={gamma!r} must be 'scale', 'auto' or a positive float.")
    if not isinstance(gamma, numbers.Real) or isinstance(gamma, bool) or gamma <= 0:
        raise ValueError(f"gamma={gamma!r} must be 'scale', 'auto' or a positive float.")
    return float(gamma)


def kernel_matrix(X, Y=None, *, kernel="rbf", gamma=None, degree=3, coef0=1.0):
    """Kernel matrix ``K[i, j] = k(X[i], Y[j])``.

    Parameters
    ----------
    X : ndarray of shape (n_samples_X, n_features)
    Y : ndarray of shape (n_samples_Y, n_features), default=None
        If None, ``Y = X``.
    kernel : str or callable, default="rbf"
        Kernel name (see :data:`KERNEL_NAMES`) or callable ``k(X, Y)``.
    gamma : float, default=None
        Kernel width for kernels that use one; must already be numeric (see
        :func:`resolve_gamma`). None uses scikit-learn's default
        ``1 / n_features``.
    degree : int, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=1.0
        Independent term of the polynomial and sigmoid kernels.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.kernels import kernel_matrix
    >>> kernel_matrix(np.zeros((2, 1)), kernel="rbf", gamma=1.0)
    array([[1., 1.],
           [1., 1.]])
    """
    kernel = check_kernel(kernel)
    if callable(kernel):
        K = kernel(X, X if Y is None else Y)
        return np.asarray(K, dtype=np.float64)
    params = {}
    if kernel in _USES_GAMMA and gamma is not None:
        params["gamma"] = gamma
    if kernel == "poly":
        params["degree"] = degree
    if kernel in ("poly", "sigmoid"):
        params["coef0"] = coef0
    return pairwise_kernels(X, Y, metric=kernel, **params)
