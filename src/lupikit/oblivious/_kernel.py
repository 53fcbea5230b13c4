"""The oblivious kernel: inner products of oblivious features (Appendix E).

With the plug-in estimate of the conditional mean embedding (Section 6.1) the
oblivious feature of a point :math:`(x, s)` is

.. math::

    Z(x, s) = \\varphi(x) - \\hat\\mu_{c(s)} + \\hat\\mu, \\qquad
    \\hat\\mu_a = \\frac{1}{|I_a|}\\sum_{u \\in I_a} \\varphi(x_u), \\quad
    \\hat\\mu = \\frac1m \\sum_{u=1}^m \\varphi(x_u),

where :math:`x_1, \\dots, x_m` is the estimation sample, :math:`c(s)` the cell
of :math:`s` and :math:`I_a` the estimation points in cell :math:`a`
(Eq. 9). Writing :math:`D_a = \\hat\\mu - \\hat\\mu_a = \\sum_u V_{ua}\\varphi(x_u)`,

.. math::

    \\langle Z_i, Z_j\\rangle = k(x_i, x_j) + P_{i, b_j} + P_{j, b_i}
    + G_{b_i b_j},\\qquad P = K(X, X_{est})\\,V,\\quad G = V^\\top K_{est} V,

which is Algorithm 1 of the paper written with two matrix products instead of
loops. The pairwise terms are added to :math:`K` by one BLAS ``dgemm`` with
one-hot cell indicators, so no ``n x n x cells`` tensor is ever built.
"""

import numpy as np
from scipy.linalg import blas
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from .._validation import (
    KERNEL_PARAMS,
    POSITIVE_INT,
    check_kernel_output,
    check_sensitive_features,
)
from ..kernels import kernel_matrix, resolve_gamma
from ._partition import CellPartition, _check_grid_range_param

#: how each method that needs sensitive features takes them
_CALLS = {
    "fit": "fit(X, y, sensitive_features=...)",
    "predict": "predict(X, sensitive_features=...)",
    "decision_function": "decision_function(X, sensitive_features=...)",
    "score": "score(X, y, sensitive_features=...)",
}


def check_sensitive_for(sensitive_features, n_samples, owner, method, call=None):
    """:func:`~lupikit._validation.check_sensitive_features` for the method
    ``method`` of ``owner`` (a class name): a missing ``S`` is reported in
    the words of that method, with how to pass it.

    Parameters
    ----------
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_s) or None
    n_samples : int
    owner : str
        Name of the class (or function) whose method needs ``S``.
    method : str
        Name of the method (``"fit"``, ``"predict"``, ...; for a function, its name).
    call : str, default=None
        How the method takes ``S`` (e.g. ``"gram(X, sensitive_features)"``);
        None uses the estimators' signatures of ``_CALLS``.

    Returns
    -------
    S : ndarray of shape (n_samples, n_s)
    """
    if sensitive_features is None:
        where = owner if method == owner else f"{owner}.{method}"
        msg = (f"sensitive_features is required by {where} but was None; pass it as "
               f"{call or _CALLS.get(method, method + '(X, sensitive_features=...)')}")
        if method in _CALLS:
            msg += (f". With metadata routing, meta-estimators pass it on once requested by "
                    f"set_{method}_request(sensitive_features=True)")
        if method in ("predict", "decision_function"):
            msg += (f" (Pipeline.{method} does; GridSearchCV.{method} passes no metadata: "
                    f"call search.best_estimator_.{method}(X, sensitive_features=...))")
        raise ValueError(msg + ".")
    return check_sensitive_features(sensitive_features, n_samples)

__all__ = ["ObliviousKernel"]

_USES_GAMMA = {"rbf", "poly", "sigmoid", "laplacian", "chi2"}
# kernel blocks against the estimation sample hold at most this many entries
_BLOCK_ENTRIES = 2**19


def _add_outer(K, A, B):
    """Return ``K + A @ B.T`` computed in place in ``K`` by BLAS dgemm."""
    K = np.asarray(K, dtype=np.float64)
    if K.flags.c_contiguous:
        # K.T is Fortran-ordered: update K.T += B @ A.T, i.e. K += A @ B.T
        out = blas.dgemm(1.0, B, A, beta=1.0, c=K.T, trans_b=True, overwrite_c=True)
        return out.T
    if K.flags.f_contiguous:
        return blas.dgemm(1.0, A, B, beta=1.0, c=K, trans_b=True, overwrite_c=True)
    return K + A @ B.T


def _checked_kernel(kernel, A, B=None, *, gamma, degree, coef0):
    """``kernel_matrix``; a callable kernel's output is checked (shape, finite)."""
    K = kernel_matrix(A, B, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0)
    if callable(kernel):
        K = check_kernel_output(K, A.shape[0], A.shape[0] if B is None else B.shape[0])
    return K


#: Constraints of the parameters ObliviousKernel shares with ObliviousRidge/SVC.
OBLIVIOUS_KERNEL_PARAMS = {
    **KERNEL_PARAMS,
    "n_bins": [POSITIVE_INT],
    "partition": [StrOptions({"discrete", "grid"}), callable, None],
    "grid_range": ["array-like", None],
    "empty_cell": [StrOptions({"zero", "mean"})],
    "handle_unknown": [StrOptions({"error", "empty"})],
}


def _one_hot(cells, n_cols):
    E = np.zeros((cells.shape[0], n_cols))
    E[np.arange(cells.shape[0]), cells] = 1.0
    return E


class ObliviousKernel(BaseEstimator):
    """Kernel between oblivious features, estimated by the plug-in method.

    ``fit`` estimates the conditional means :math:`\\hat\\mu_a` of
    :math:`\\varphi(X)` in each cell of the sensitive space and the overall
    mean :math:`\\hat\\mu` from an *estimation sample*; ``gram`` and ``cross``
    then return inner products of the oblivious features
    :math:`Z = \\varphi(X) - \\hat E_S\\varphi(X) + \\hat E\\varphi(X)`
    (Grünewälder & Khaleghi, 2021, Eq. 9, Algorithm 1).

    Parameters
    ----------
    kernel : str or callable, default="rbf"
        Kernel name understood by :func:`lupikit.kernels.kernel_matrix` or a
        callable ``k(X, Y)``.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel width, resolved on the estimation sample as in
        :class:`sklearn.svm.SVC`. ``rbf`` is :math:`\\exp(-\\gamma\\|x-y\\|^2)`:
        the paper's "RBF with sigma = 1" is ``gamma=1.0``.
    degree : int, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=1.0
        Independent term of the polynomial and sigmoid kernels.
    n_bins : int, default=16
        Grid cells per dimension of a continuous ``S``.
    partition : {"discrete", "grid"}, callable or None, default=None
        How ``S`` is cut into cells; see :class:`CellPartition`. None picks
        ``"discrete"`` for integer-valued ``S`` with at most ``n_bins`` values
        per column, ``"grid"`` otherwise.
    grid_range : tuple (low, high) or None, default=None
        Range of the grid (the paper uses ``(-5, 5)``); None uses the
        estimation sample's range. Values outside fall into the outermost cells.
    empty_cell : {"zero", "mean"}, default="zero"
        Conditional mean used for a cell containing no estimation point.
        ``"zero"`` is the paper's convention (the empirical conditional
        expectation of an empty cell is 0, i.e. a sum over an empty index set
        is 0 in Algorithm 1), so :math:`Z = \\varphi(x) + \\hat\\mu`; ``"mean"``
        uses the overall mean, so :math:`Z = \\varphi(x)`.
    handle_unknown : {"error", "empty"}, default="error"
        Discrete partitions only: a sensitive value never seen in the
        estimation sample raises a ValueError naming it (``"error"``) or is
        treated as an empty cell (``"empty"``).

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        From :meth:`fit`, for an invalid parameter (NaN and infinity included);
        a :class:`ValueError` naming the parameter.

    Attributes
    ----------
    X_est_ : ndarray of shape (m, n_features)
        Estimation sample (a copy: changing the caller's array afterwards does
        not change the kernel).
    n_features_in_ : int
        Number of features of ``X``.
    partition_ : CellPartition
        The fitted partition.
    n_cells_ : int
        Number of occupied cells (``n_cells`` in the shapes below).
    cell_counts_ : ndarray of shape (n_cells,)
        Estimation points per cell, :math:`|I_a|`.
    gamma_ : float or None
        Resolved kernel width.
    coef_matrix_ : ndarray of shape (m, n_cells + 1)
        :math:`V`, with :math:`D_a = \\hat\\mu - \\hat\\mu_a = \\sum_u V_{ua}
        \\varphi(x_u)`; the last column is the empty cell.
    offset_gram_ : ndarray of shape (n_cells + 1, n_cells + 1)
        :math:`G_{ab} = \\langle D_a, D_b\\rangle`.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.oblivious import ObliviousKernel
    >>> rng = np.random.default_rng(0)
    >>> S = rng.integers(0, 2, size=200)
    >>> X = (S + rng.normal(size=200))[:, None]
    >>> ok = ObliviousKernel(kernel="rbf", gamma=1.0).fit(X[:100], S[:100])
    >>> O = ok.gram(X[100:], S[100:])
    >>> O.shape
    (100, 100)
    >>> bool(np.linalg.eigvalsh(O).min() > -1e-10)
    True
    """

    _parameter_constraints = dict(OBLIVIOUS_KERNEL_PARAMS)

    def __init__(
        self,
        kernel="rbf",
        *,
        gamma="scale",
        degree=3,
        coef0=1.0,
        n_bins=16,
        partition=None,
        grid_range=None,
        empty_cell="zero",
        handle_unknown="error",
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_bins = n_bins
        self.partition = partition
        self.grid_range = grid_range
        self.empty_cell = empty_cell
        self.handle_unknown = handle_unknown

    # ------------------------------------------------------------------
    def _k(self, A, B=None):
        return _checked_kernel(
            self.kernel, A, B, gamma=self.gamma_, degree=self.degree, coef0=self.coef0
        )

    def _kv(self, X, X_est, V):
        """``K(X, X_est) @ V`` in row blocks, so memory stays O(block x m)."""
        m = X_est.shape[0]
        step = max(256, _BLOCK_ENTRIES // max(m, 1))
        if X.shape[0] <= step:
            return self._k(X, X_est) @ V
        out = np.empty((X.shape[0], V.shape[1]))
        for start in range(0, X.shape[0], step):
            out[start:start + step] = self._k(X[start:start + step], X_est) @ V
        return out

    def _check_X(self, X, name="X"):
        X = check_array(X, dtype=np.float64, input_name=name)
        if hasattr(self, "n_features_in_") and X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"{name} has {X.shape[1]} features, but the oblivious kernel was "
                f"fitted with {self.n_features_in_}."
            )
        return X

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, sensitive_features):
        """Estimate the conditional and overall mean embeddings.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
            Non-sensitive features of the estimation sample.
        sensitive_features : array-like of shape (m,) or (m, n_s)
            Sensitive features of the estimation sample (numeric).

        Returns
        -------
        self : ObliviousKernel
        """
        _check_grid_range_param(self.grid_range, type(self).__name__)
        for attr in ("n_features_in_",):
            if hasattr(self, attr):
                delattr(self, attr)
        # a copy: the estimation sample is kept and must not follow the caller's array
        X = check_array(X, dtype=np.float64, input_name="X", copy=True)
        S = check_sensitive_for(sensitive_features, X.shape[0], type(self).__name__, "fit",
                                "fit(X, sensitive_features)")
        if isinstance(self.kernel, str) and self.kernel in _USES_GAMMA:
            self.gamma_ = resolve_gamma(self.gamma, X)
        else:
            self.gamma_ = None
        self.partition_ = CellPartition(
            self.partition,
            n_bins=self.n_bins,
            grid_range=self.grid_range,
            handle_unknown=self.handle_unknown,
        ).fit(S)
        cells = self.partition_.transform(S)
        L = self.partition_.n_cells_
        m = X.shape[0]
        counts = np.bincount(cells, minlength=L + 1)[:L]
        V = np.empty((m, L + 1))
        V[:, :L] = 1.0 / m
        V[np.arange(m), cells] -= 1.0 / counts[cells]
        V[:, L] = 1.0 / m if self.empty_cell == "zero" else 0.0
        KV = self._kv(X, X, V)
        G = V.T @ KV
        self.offset_gram_ = 0.5 * (G + G.T)
        self.coef_matrix_ = V
        self.cell_counts_ = counts
        self.n_cells_ = L
        self.X_est_ = X
        self.n_features_in_ = X.shape[1]
        return self

    # ------------------------------------------------------------------
    def cells(self, sensitive_features):
        """Cell index of each sensitive value (``n_cells_`` = empty cell).

        Parameters
        ----------
        sensitive_features : array-like of shape (n,) or (n, n_s)

        Returns
        -------
        cells : ndarray of shape (n,) of int
        """
        check_is_fitted(self, "coef_matrix_")
        S = np.asarray(sensitive_features)
        n = S.shape[0] if S.ndim else 0
        S = check_sensitive_for(sensitive_features, n, type(self).__name__, "cells",
                                "cells(sensitive_features)")
        return self.partition_.transform(S)

    def _prepare(self, X, S, name="X", method="gram", projections=True):
        """Checked ``X``, its cells and (``projections``) ``P = K(X, X_est) V``."""
        check_is_fitted(self, "coef_matrix_")
        X = self._check_X(X, name)
        call = (f"{method}(X, sensitive_features)" if method != "cross"
                else "cross(X_new, S_new, X, S=None)")
        S = check_sensitive_for(S, X.shape[0], type(self).__name__, method, call)
        cells = self.partition_.transform(S)
        P = self._kv(X, self.X_est_, self.coef_matrix_) if projections else None
        return X, cells, P

    def gram(self, X, sensitive_features):
        """Oblivious kernel matrix :math:`O_{ij} = \\langle Z_i, Z_j\\rangle`.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        sensitive_features : array-like of shape (n,) or (n, n_s)

        Returns
        -------
        O : ndarray of shape (n, n)
            Symmetric positive semi-definite (up to rounding).
        """
        X, b, P = self._prepare(X, sensitive_features)
        E = _one_hot(b, self.n_cells_ + 1)
        Q = P + 0.5 * self.offset_gram_[b]
        K = self._k(X)
        return _add_outer(K, np.hstack([Q, E]), np.hstack([E, Q]))

    def cross(self, X_new, S_new, X, S=None):
        """Cross inner products :math:`\\langle Z(x^{new}_r, s^{new}_r), Z_j\\rangle`.

        Parameters
        ----------
        X_new : array-like of shape (m, n_features)
        S_new : array-like of shape (m,) or (m, n_s)
            Sensitive features of the new points.
        X : array-like of shape (n, n_features)
            Points on the right (e.g. the training points).
        S : array-like of shape (n,) or (n, n_s), default=None
            Their sensitive features. If None the right-hand features are the
            plain :math:`\\varphi(X_j)` instead of :math:`Z_j` and the result is
            :math:`\\langle Z^{new}_r, \\varphi(X_j)\\rangle` (used by M-ORR).

        Returns
        -------
        C : ndarray of shape (m, n)
            ``cross(X, S, X, S)`` equals ``gram(X, S)``.
        """
        # with S None only the new points' cells enter, not their projections
        Xn, bn, Pn = self._prepare(X_new, S_new, "X_new", method="cross", projections=S is not None)
        X = self._check_X(X)
        K = self._k(Xn, X)
        L1 = self.n_cells_ + 1
        En = _one_hot(bn, L1)
        if S is None:
            P = self._kv(X, self.X_est_, self.coef_matrix_)
            return _add_outer(K, En, P)
        X, b, P = self._prepare(X, S, method="cross")
        E = _one_hot(b, L1)
        A = np.hstack([Pn + self.offset_gram_[bn], En])
        B = np.hstack([E, P])
        return _add_outer(K, A, B)

    def diag(self, X, sensitive_features):
        """Squared norms :math:`\\|Z_i\\|^2` without forming the Gram matrix.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        sensitive_features : array-like of shape (n,) or (n, n_s)

        Returns
        -------
        d : ndarray of shape (n,)
        """
        X, b, P = self._prepare(X, sensitive_features, method="diag")
        idx = np.arange(X.shape[0])
        kdiag = np.empty(X.shape[0])
        step = 256
        for start in range(0, X.shape[0], step):
            blk = X[start:start + step]
            kdiag[start:start + step] = np.diag(self._k(blk))
        return kdiag + 2.0 * P[idx, b] + self.offset_gram_[b, b]
