"""Validation of the sample-aligned side information used across lupikit.

Two kinds of side information travel next to ``X``:

- *privileged features* ``X*`` (LUPI), available at training time only;
- *sensitive features* ``S`` (fairness), possibly needed at prediction time.

Both must have one row per sample of ``X``. The helpers here turn them into
validated 2-D float arrays, or raise a :class:`ValueError` / :class:`TypeError`
naming the argument and what was wrong.

Hyperparameters are validated by scikit-learn's own system: each estimator
declares ``_parameter_constraints`` and wraps ``fit`` in ``_fit_context``, so a
bad value raises :class:`sklearn.utils._param_validation.InvalidParameterError`
(a ``ValueError``) naming the parameter. The constraints shared by several
parts are defined here once (all of them reject NaN and infinity where a
finite number is meant), together with checks that scikit-learn's system does
not cover (a kernel callable's output, a grid range, a non-empty grid).
"""

import numbers
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array

__all__ = [
    "check_privileged_features",
    "check_sensitive_features",
    "check_side_features",
    "check_n_samples_match",
    "check_kernel_output",
    "check_grid_range",
    "check_nonempty_grid",
    "POSITIVE",
    "NON_NEGATIVE",
    "POSITIVE_INT",
    "NON_NEGATIVE_INT",
    "UNIT_OPEN",
    "UNIT_CLOSED",
    "FINITE",
    "GAMMA",
    "KERNEL",
    "KERNEL_PARAMS",
]

#: A finite number > 0 (C, gamma, tol, ...): NaN and inf are rejected.
POSITIVE = Interval(Real, 0, np.inf, closed="neither")
#: A finite number >= 0.
NON_NEGATIVE = Interval(Real, 0, np.inf, closed="left")
#: An integer >= 1.
POSITIVE_INT = Interval(Integral, 1, None, closed="left")
#: An integer >= 0.
NON_NEGATIVE_INT = Interval(Integral, 0, None, closed="left")
#: A number strictly between 0 and 1.
UNIT_OPEN = Interval(Real, 0, 1, closed="neither")
#: A number in [0, 1].
UNIT_CLOSED = Interval(Real, 0, 1, closed="both")
#: Any finite real number (coef0, offsets).
FINITE = Interval(Real, -np.inf, np.inf, closed="neither")
#: A kernel width: a finite positive float or one of SVC's rules.
GAMMA = [POSITIVE, StrOptions({"scale", "auto"})]
#: A kernel: a name of scikit-learn's pairwise kernels or a callable k(X, Y).
KERNEL = [StrOptions({"linear", "rbf", "poly", "sigmoid", "laplacian", "cosine", "chi2",
                      "polynomial", "additive_chi2"}), callable]
#: The constraints of ``kernel``, ``gamma``, ``degree`` and ``coef0``.
KERNEL_PARAMS = {
    "kernel": KERNEL,
    "gamma": GAMMA,
    "degree": [Interval(Integral, 0, None, closed="left")],
    "coef0": [FINITE],
}


def check_kernel_output(K, n_rows, n_cols, name="kernel"):
    """Check what a kernel callable returned: a finite ``(n_rows, n_cols)`` array.

    Parameters
    ----------
    K : array-like
        The kernel callable's output.
    n_rows, n_cols : int
        Expected shape (rows of ``X``, rows of ``Y``).
    name : str, default="kernel"
        The parameter the callable was passed as (for the message).

    Returns
    -------
    K : ndarray of shape (n_rows, n_cols)

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit._validation import check_kernel_output
    >>> check_kernel_output(np.eye(2), 2, 2).shape
    (2, 2)
    """
    K = np.asarray(K, dtype=np.float64) if not hasattr(K, "toarray") else K.toarray()
    if K.shape != (n_rows, n_cols):
        raise ValueError(f"{name} returned an array of shape {K.shape}; expected "
                         f"({n_rows}, {n_cols}) (rows of X by rows of Y).")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"{name} returned non-finite values (NaN or inf).")
    return K


def check_grid_range(grid_range, name="grid_range"):
    """Validate a ``(low, high)`` pair of finite numbers with ``low < high``.

    Returns
    -------
    (low, high) : tuple of float

    Examples
    --------
    >>> from lupikit._validation import check_grid_range
    >>> check_grid_range((-3, 3))
    (-3.0, 3.0)
    """
    try:
        low, high = grid_range
        low, high = float(low), float(high)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={grid_range!r} must be a pair (low, high) of numbers.") from None
    if not (np.isfinite(low) and np.isfinite(high)) or not low < high:
        raise ValueError(f"{name}={grid_range!r} must be finite with low < high.")
    return low, high


def check_nonempty_grid(grid, name, constraint=POSITIVE):
    """Validate a non-empty 1-D grid of values each satisfying ``constraint``.

    Returns
    -------
    grid : ndarray of float

    Examples
    --------
    >>> from lupikit._validation import check_nonempty_grid
    >>> check_nonempty_grid([0.1, 1.0], "C_grid").tolist()
    [0.1, 1.0]
    """
    values = np.atleast_1d(np.asarray(grid, dtype=object))
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{name}={grid!r} must be a non-empty list of numbers.")
    for v in values:
        if isinstance(v, bool) or not constraint.is_satisfied_by(v):
            raise ValueError(f"{name}={grid!r}: every value must be {constraint}; got {v!r}.")
    return values.astype(np.float64)


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
