"""Partitions of the sensitive-feature space into cells (Section 6.1).

The plug-in estimator of the Hilbert-space-valued conditional expectation
:math:`E_S\\varphi(X)` averages :math:`\\varphi(X_u)` over the estimation points
whose sensitive value falls in the same cell as :math:`S`. This module maps
sensitive values to cell indices; :class:`~lupikit.oblivious.ObliviousKernel`
does the averaging.

Three kinds of partition are supported:

``"discrete"``
    one cell per distinct value (per distinct row when ``S`` has several
    columns), learned from the estimation sample;
``"grid"``
    an equal-width grid with ``n_bins`` cells per dimension over the
    estimation sample's range (or a given ``grid_range``); values beyond the
    range fall into the outermost cells;
callable
    ``partition(S) -> cell ids`` (a 1-D integer array, one id per row).

Cells are numbered ``0 .. n_cells - 1`` in the order of the estimation
sample's occupied cells; the extra index ``n_cells`` stands for "a cell in
which no estimation point fell" (see ``empty_cell`` in
:class:`~lupikit.oblivious.ObliviousKernel`).
"""

import numpy as np
from sklearn.utils._param_validation import (
    InvalidParameterError,
    StrOptions,
    validate_parameter_constraints,
)

from .._validation import POSITIVE_INT, check_grid_range

__all__ = ["CellPartition"]

_KINDS = ("discrete", "grid")


def _check_grid_range_param(grid_range, owner):
    """``check_grid_range`` raising sklearn's InvalidParameterError.

    The pair check is not expressible as a constraint; re-raising it as
    :class:`~sklearn.utils._param_validation.InvalidParameterError` keeps one
    exception type for every bad hyperparameter.
    """
    if grid_range is None:
        return None
    try:
        return check_grid_range(grid_range)
    except ValueError as exc:
        raise InvalidParameterError(f"The 'grid_range' parameter of {owner}: {exc}") from None


def auto_kind(S, n_bins):
    """The kind ``partition=None`` chooses for the sample ``S`` (2-D, float).

    ``"discrete"`` when every column is integer-valued with at most ``n_bins``
    distinct values (group labels such as 0/1), ``"grid"`` otherwise.
    """
    is_int = np.all(S == np.round(S))
    few = all(np.unique(S[:, j]).size <= n_bins for j in range(S.shape[1]))
    return "discrete" if (is_int and few) else "grid"


class CellPartition:
    """Assign sensitive values to the cells of a partition.

    Parameters
    ----------
    partition : {"discrete", "grid"}, callable or None, default=None
        Kind of partition. None chooses ``"discrete"`` when every column of the
        estimation sample is integer-valued with at most ``n_bins`` distinct
        values (group labels such as 0/1), and ``"grid"`` otherwise.
    n_bins : int, default=16
        Cells per dimension of the grid.
    grid_range : tuple (low, high) or None, default=None
        Range of the grid, the same for every dimension; None uses the
        estimation sample's minimum and maximum per dimension.
    handle_unknown : {"error", "empty"}, default="error"
        Discrete partition only: what to do with a value never seen in the
        estimation sample. ``"error"`` raises a ValueError naming it,
        ``"empty"`` treats it as an empty cell.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        From :meth:`fit`, for an invalid parameter (a :class:`ValueError`
        naming it).

    Attributes
    ----------
    kind_ : str
        ``"discrete"``, ``"grid"`` or ``"callable"``.
    n_cells_ : int
        Number of occupied cells in the estimation sample.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.oblivious import CellPartition
    >>> cp = CellPartition("grid", n_bins=4).fit(np.array([[0.0], [1.0], [4.0]]))
    >>> cp.transform(np.array([[0.5], [3.9], [9.0], [-1.0]]))
    array([0, 2, 2, 0])
    """

    _parameter_constraints = {
        "partition": [StrOptions(set(_KINDS)), callable, None],
        "n_bins": [POSITIVE_INT],
        "grid_range": ["array-like", None],
        "handle_unknown": [StrOptions({"error", "empty"})],
    }

    def __init__(self, partition=None, *, n_bins=16, grid_range=None, handle_unknown="error"):
        self.partition = partition
        self.n_bins = n_bins
        self.grid_range = grid_range
        self.handle_unknown = handle_unknown

    # ------------------------------------------------------------------
    def _check_params(self):
        # CellPartition is no BaseEstimator: validate with sklearn's function
        params = {name: getattr(self, name) for name in self._parameter_constraints}
        validate_parameter_constraints(
            self._parameter_constraints, params, caller_name=type(self).__name__
        )
        return _check_grid_range_param(self.grid_range, type(self).__name__)

    def fit(self, S):
        """Learn the cells from the estimation sample.

        Parameters
        ----------
        S : array-like of shape (m, n_s)
            Sensitive features of the estimation sample (2-D, numeric).

        Returns
        -------
        self : CellPartition
        """
        grid_range = self._check_params()
        S = np.asarray(S, dtype=float)
        if callable(self.partition):
            self.kind_ = "callable"
            ids = self._call(S)
            self.categories_ = np.unique(ids)
        else:
            kind = self.partition
            if kind is None:
                kind = auto_kind(S, self.n_bins)
            self.kind_ = kind
            if kind == "discrete":
                self.categories_ = np.unique(S, axis=0)
            else:
                if self.grid_range is None:
                    self.low_ = S.min(axis=0)
                    self.high_ = S.max(axis=0)
                else:
                    self.low_ = np.full(S.shape[1], grid_range[0])
                    self.high_ = np.full(S.shape[1], grid_range[1])
                self.categories_ = np.unique(self._grid_ids(S))
        self.n_cells_ = len(self.categories_)
        self.n_features_in_ = S.shape[1]
        return self

    def _call(self, S):
        ids = np.asarray(self.partition(S))
        if ids.ndim != 1 or ids.shape[0] != S.shape[0]:
            raise ValueError(
                "partition(S) must return a 1-D array with one cell id per row "
                f"of S ({S.shape[0]}), got shape {ids.shape}."
            )
        if ids.dtype.kind not in "iu":
            if ids.dtype.kind == "f" and np.all(ids == np.round(ids)):
                ids = ids.astype(np.int64)
            else:
                raise TypeError(
                    f"partition(S) must return integer cell ids, got dtype {ids.dtype}."
                )
        return ids.astype(np.int64)

    def _grid_ids(self, S):
        width = self.high_ - self.low_
        safe = np.where(width > 0, width, 1.0)
        idx = np.floor((S - self.low_) / safe * self.n_bins).astype(np.int64)
        idx = np.clip(idx, 0, self.n_bins - 1)
        idx[:, width <= 0] = 0
        # flat id in base n_bins
        flat = np.zeros(S.shape[0], dtype=np.int64)
        for j in range(S.shape[1]):
            flat = flat * self.n_bins + idx[:, j]
        return flat

    def transform(self, S):
        """Cell index of each row of ``S``: ``0 .. n_cells_ - 1``, or
        ``n_cells_`` for a cell without estimation points."""
        S = np.asarray(S, dtype=float)
        if S.shape[1] != self.n_features_in_:
            raise ValueError(
                f"sensitive_features has {S.shape[1]} columns but the partition "
                f"was fitted with {self.n_features_in_}."
            )
        if self.kind_ == "discrete":
            return self._match_rows(S)
        ids = self._call(S) if self.kind_ == "callable" else self._grid_ids(S)
        pos = np.searchsorted(self.categories_, ids)
        pos_c = np.minimum(pos, self.n_cells_ - 1)
        found = self.categories_[pos_c] == ids
        return np.where(found, pos_c, self.n_cells_)

    def _match_rows(self, S):
        cats = self.categories_
        if cats.shape[1] == 1:
            keys, S1 = cats[:, 0], S[:, 0]
            pos = np.minimum(np.searchsorted(keys, S1), len(keys) - 1)
            found = keys[pos] == S1
        else:
            # several columns: compare rows through a structured view
            both = np.vstack([cats, S])
            _, inv = np.unique(both, axis=0, return_inverse=True)
            inv = inv.ravel()
            lookup = np.full(inv.max() + 1, -1, dtype=np.int64)
            lookup[inv[: len(cats)]] = np.arange(len(cats))
            pos = lookup[inv[len(cats):]]
            found = pos >= 0
        if not np.all(found):
            if self.handle_unknown == "error":
                bad = np.unique(S[~found], axis=0)
                shown = bad[:5].tolist() if bad.shape[1] > 1 else bad[:5, 0].tolist()
                raise ValueError(
                    f"sensitive_features contains value(s) {shown} never seen in "
                    "the estimation sample, so their conditional mean cannot be "
                    "estimated; pass handle_unknown='empty' to treat them as an "
                    "empty cell."
                )
        return np.where(found, pos, self.n_cells_).astype(np.int64)
