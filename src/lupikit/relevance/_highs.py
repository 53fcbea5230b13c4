"""The HiGHS adapter of Part III: model building, silent instances, optimality certificates.

The bottom layer of :mod:`lupikit.relevance`'s solver: it knows HiGHS'
Python classes and nothing of the relevance LPs. The LP layout
(:mod:`._lp`), the dual path (:mod:`._dual_path`) and the LUPI certifier
(:mod:`._lupi_dual`) build on it.
"""

import os
import sys
import threading

import numpy as np

__all__ = []


def _highs_api():
    """HiGHS' own Python classes: ``highspy`` (a dependency), else scipy's copy."""
    try:
        import highspy

        return highspy.Highs, highspy.HighsLp, highspy.MatrixFormat, highspy.HighsModelStatus
    except ImportError:  # pragma: no cover - highspy is a declared dependency
        pass
    try:  # pragma: no cover
        from scipy.optimize._highspy import _core

        return _core._Highs, _core.HighsLp, _core.MatrixFormat, _core.HighsModelStatus
    except (ImportError, AttributeError):  # pragma: no cover - old scipy
        return None


_BANNER_SHOWN = []
_BANNER_LOCK = threading.Lock()


def _new_highs(Highs):
    """A silent HiGHS instance (the first one of a process prints a banner to
    file descriptor 1, which is redirected to /dev/null while it is built)."""
    with _BANNER_LOCK:  # threads: only one may redirect file descriptor 1
        if _BANNER_SHOWN:
            h = Highs()
        else:
            h = _first_highs(Highs)
            _BANNER_SHOWN.append(True)
    h.setOptionValue("output_flag", False)
    return h


def _first_highs(Highs):
    """The process's first HiGHS instance, built with file descriptor 1 silenced."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError, AttributeError):  # pragma: no cover - no real fd 1
        return Highs()
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            return Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _optimal(A, b, c, bounds, x, y, tol=1e-7):
    """Whether ``x`` solves ``min c.x s.t. A x <= b, bounds`` by its own certificate.

    ``x`` must be feasible and the row multipliers ``y`` (HiGHS' row duals,
    clipped to their sign, ``y <= 0``) must give a Lagrangian lower bound
    ``b.y + min over the bounds of (c - A^T y).x`` that meets ``c.x``: weak
    duality then proves ``x`` optimal to ``tol`` (relative). Reduced costs
    that a free or unbounded column would need to be 0 may be off by ``tol``
    relative to the largest cost or multiplier (HiGHS' own dual feasibility
    tolerance is 1e-7): the check catches wrong vertices, not rounding.
    """
    lo, hi = bounds[:, 0], bounds[:, 1]
    if np.any(A @ x - b > tol * np.maximum(1.0, np.abs(b))):
        return False
    if np.any(x < lo - tol * np.maximum(1.0, np.abs(lo))) or np.any(
            x > hi + tol * np.maximum(1.0, np.abs(hi))):
        return False
    y = np.minimum(y, 0.0)
    d = c - A.T @ y
    pos, neg = d > 0, d < 0
    scale = max(1.0, np.abs(c).max(), np.abs(y).max())  # of the reduced costs' terms
    if np.any(np.abs(d[(pos & ~np.isfinite(lo)) | (neg & ~np.isfinite(hi))])
              > tol * scale):
        return False
    lower = y @ b + d[pos & np.isfinite(lo)] @ lo[pos & np.isfinite(lo)] + (
        d[neg & np.isfinite(hi)] @ hi[neg & np.isfinite(hi)])
    return bool(c @ x - lower <= tol * max(1.0, abs(c @ x)))


def _highs_lp(api, A, cost, col_lower, col_upper, row_lower, row_upper):
    """A ``HighsLp`` of ``min cost.x`` with ``row_lower <= A x <= row_upper`` and column
    bounds, from a CSC matrix ``A`` (its arrays are passed as they are)."""
    _, HighsLp, MatrixFormat, _ = api
    m, n = A.shape
    model = HighsLp()
    model.num_col_ = n
    model.num_row_ = m
    model.a_matrix_.num_col_ = n
    model.a_matrix_.num_row_ = m
    model.a_matrix_.format_ = MatrixFormat.kColwise
    model.a_matrix_.start_ = A.indptr
    model.a_matrix_.index_ = A.indices
    model.a_matrix_.value_ = A.data
    model.col_cost_ = np.asarray(cost, dtype=float)
    model.col_lower_ = np.asarray(col_lower, dtype=float)
    model.col_upper_ = np.asarray(col_upper, dtype=float)
    model.row_lower_ = np.asarray(row_lower, dtype=float)
    model.row_upper_ = np.asarray(row_upper, dtype=float)
    return model


def _dual_simplex(api, model, A):
    """A silent HiGHS instance holding ``model`` (matrix ``A``), set for dual simplex
    restarts after changes of row bounds; HiGHS' scaling is off when the columns
    of ``A`` are already on one scale (standardised features next to unit entries:
    scaling then only costs time)."""
    h = _new_highs(api[0])
    h.setOptionValue("simplex_strategy", 1)
    if _well_scaled(A):
        h.setOptionValue("simplex_scale_strategy", 0)
    h.passModel(model)
    return h


def _well_scaled(A, ratio=100.0):
    """True if the largest absolute entries of all non-empty columns lie within ``ratio``."""
    col_max = np.maximum.reduceat(np.abs(A.data), A.indptr[:-1][np.diff(A.indptr) > 0])
    col_max = col_max[col_max > 0]
    return col_max.size > 0 and col_max.max() <= ratio * col_max.min()
