"""Validation of the sample-aligned side information used across lupikit.

Two kinds of side information travel next to ``X``:

- *privileged features* ``X*`` (LUPI), available at training time only;
- *sensitive features* ``S`` (fairness), possibly needed at prediction time.

Both must have one row per sample of ``X``. The helpers here turn them into
validated 2-D float arrays, or raise a :class:`ValueError` / :class:`TypeError`
naming the argument and what was wrong.
"""

import numbers

import numpy as np
from sklearn.utils.validation import check_array

__all__ = [
    "check_privileged_features",
    "check_sensitive_features",
    "check_side_features",
    "check_n_samples_match",
]


def check_n_samples_match(X, other, name):
    """Raise a ValueError unless ``other`` has as many rows as ``X``.

    Parameters
    ----------
    X : array-like of shape (n_samples, ...)
        Reference array.
    other : array-like
        Array that must be sample-aligned with ``X``.
    name : str
        Name of ``other`` used in the error message.
    """
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    m = other.shape[0] if hasattr(other, "shape") else len(other)
    if n != m:
        raise ValueError(
            f"{name} has {m} rows but X has {n} samples; {name} must be "
            "sample-aligned with X (one row per sample)."
        )


def check_side_features(
    features,
    n_samples,
    *,
    name,
    required=True,
    allow_1d=False,
    dtype="numeric",
    allow_nan=False,
):
    """Validate sample-aligned side features and return a 2-D array.

    Parameters
    ----------
    features : array-like of shape (n_samples, n_side) or None
        The side features to validate.
    n_samples : int
        Number of rows ``features`` must have (the number of samples of ``X``).
    name : str
        Argument name used in error messages (e.g. ``"privileged_features"``).
    required : bool, default=True
        If True, ``None`` raises a ValueError; otherwise ``None`` is returned
        unchanged.
    allow_1d : bool, default=False
        If True a 1-D array is read as a single column.
    dtype : {"numeric", None}, default="numeric"
        ``"numeric"`` converts to float64 and rejects non-numeric values with a
        TypeError; ``None`` keeps the values as they are (e.g. category labels
        given as strings).
    allow_nan : bool, default=False
        If True, NaN (a missing value) is accepted in numeric features; infinity
        never is.

    Returns
    -------
    features : ndarray of shape (n_samples, n_side) or None
        Validated features.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit._validation import check_side_features
    >>> check_side_features(np.arange(3), 3, name="sensitive_features",
    ...                     allow_1d=True).shape
    (3, 1)
    """
    if features is None:
        if required:
            raise ValueError(
                f"{name} is required by this estimator but was None; pass it "
                f"as fit(X, y, {name}=...)."
            )
        return None
    if not isinstance(n_samples, numbers.Integral):
        raise TypeError(f"n_samples must be an integer, got {n_samples!r}.")

    if dtype == "numeric":
        raw = np.asarray(features) if not hasattr(features, "dtype") else features
        kind = getattr(getattr(raw, "dtype", None), "kind", None)
        if kind in ("U", "S") or (
            kind == "O" and not _all_numeric_objects(np.asarray(raw))
        ):
            raise TypeError(
                f"{name} must be numeric; got values of dtype "
                f"{np.asarray(raw).dtype}. Encode categories as numbers first."
            )
    arr = np.asarray(features) if dtype is None else features
    if getattr(arr, "ndim", np.ndim(arr)) == 1:
        if not allow_1d:
            raise ValueError(
                f"{name} must be 2-D of shape (n_samples, n_features), got a "
                "1-D array; use .reshape(-1, 1) for a single feature."
            )
        arr = np.asarray(arr).reshape(-1, 1)
    try:
        arr = check_array(
            arr,
            dtype="numeric" if dtype == "numeric" else None,
            ensure_all_finite=("allow-nan" if allow_nan else True) if dtype == "numeric" else False,
            input_name=name,
        )
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from exc
    if dtype == "numeric":
        arr = arr.astype(np.float64, copy=False)
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {arr.shape[0]} rows but X has {n_samples} samples; "
            f"{name} must be sample-aligned with X (one row per sample)."
        )
    return arr


def _all_numeric_objects(arr):
    try:
        arr.astype(np.float64)
    except (TypeError, ValueError):
        return False
    return True


def check_privileged_features(privileged_features, n_samples, *, required=True, allow_nan=False):
    """Validate privileged features ``X*`` aligned with ``X``.

    Parameters
    ----------
    privileged_features : array-like of shape (n_samples, n_privileged) or None
        Privileged features, available at training time only.
    n_samples : int
        Number of samples in ``X``.
    required : bool, default=True
        Whether ``None`` is an error.
    allow_nan : bool, default=False
        Whether NaN marks a missing value (for estimators that handle them).

    Returns
    -------
    X_star : ndarray of shape (n_samples, n_privileged) or None
        Float64 array, finite (or NaN where ``allow_nan``).

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit._validation import check_privileged_features
    >>> check_privileged_features(np.ones((4, 2)), 4).dtype
    dtype('float64')
    """
    return check_side_features(
        privileged_features,
        n_samples,
        name="privileged_features",
        required=required,
        allow_1d=False,
        allow_nan=allow_nan,
    )


def check_sensitive_features(
    sensitive_features, n_samples, *, required=True, dtype="numeric"
):
    """Validate sensitive features ``S`` aligned with ``X``.

    A 1-D ``S`` is read as one sensitive feature.

    Parameters
    ----------
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_s)
        Sensitive features.
    n_samples : int
        Number of samples in ``X``.
    required : bool, default=True
        Whether ``None`` is an error.
    dtype : {"numeric", None}, default="numeric"
        See :func:`check_side_features`.

    Returns
    -------
    S : ndarray of shape (n_samples, n_s) or None

    Examples
    --------
    >>> from lupikit._validation import check_sensitive_features
    >>> check_sensitive_features([0, 1, 1], 3).ravel()
    array([0., 1., 1.])
    """
    return check_side_features(
        sensitive_features,
        n_samples,
        name="sensitive_features",
        required=required,
        allow_1d=True,
        dtype=dtype,
    )
