"""Projection of oblivious features onto the manifold M = phi[X] (Appendix E.3).

For an oblivious feature :math:`Z` the squared distance to a point
:math:`\\varphi(x)` of the manifold is

.. math::

    \\|Z + h' - \\varphi(x)\\|^2 = \\|Z + h'\\|^2 + k(x, x)
    - 2\\langle Z, \\varphi(x)\\rangle - 2 h'(x),

so minimising over :math:`x` only needs kernel evaluations. We minimise over a
finite set of candidate points (a grid covering a compact :math:`\\mathcal X`,
or a sample), which gives an upper bound of the distance that is exact up to
the grid's resolution. The mean of the distances is the empirical
:math:`d_n(Z + h', M)` of Eq. (5).
"""

import numpy as np
from sklearn.utils.validation import check_array

from ._kernel import ObliviousKernel, check_sensitive_for

__all__ = ["manifold_projection", "manifold_distance"]


def manifold_projection(oblivious_kernel, X, sensitive_features, candidates, *,
                        shift=None, batch_size=2048):
    """Project oblivious features onto the manifold :math:`\\varphi[\\mathcal X]`.

    Parameters
    ----------
    oblivious_kernel : ObliviousKernel
        A fitted oblivious kernel (it defines :math:`Z`).
    X : array-like of shape (n, n_features)
        Points whose oblivious features :math:`Z_i = Z(X_i, S_i)` are projected.
    sensitive_features : array-like of shape (n,) or (n, n_s)
    candidates : array-like of shape (n_candidates, n_features)
        Points of :math:`\\mathcal X` searched for the minimiser.
    shift : tuple (points, weights) or None, default=None
        The translation :math:`h' = \\sum_k w_k \\varphi(p_k)`; None is
        :math:`h' = 0`.
    batch_size : int, default=2048
        Rows of ``X`` processed at once (memory is ``batch_size x n_candidates``).

    Returns
    -------
    W : ndarray of shape (n, n_features)
        The projections :math:`W_i` (the best candidates).
    distances : ndarray of shape (n,)
        :math:`\\min_x \\|Z_i + h' - \\varphi(x)\\|` over the candidates.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.oblivious import ObliviousKernel, manifold_projection
    >>> rng = np.random.default_rng(0)
    >>> S = rng.integers(0, 2, 100); X = (S + rng.normal(size=100))[:, None]
    >>> ok = ObliviousKernel(gamma=1.0, partition=lambda s: np.zeros(len(s), int))
    >>> ok = ok.fit(X, S)  # one cell: Z = phi(X), so the distance is 0
    >>> W, d = manifold_projection(ok, X[:3], S[:3], candidates=X[:3])
    >>> bool(np.allclose(d, 0, atol=1e-6))
    True
    """
    if not isinstance(oblivious_kernel, ObliviousKernel):
        raise TypeError("oblivious_kernel must be a fitted ObliviousKernel.")
    X = check_array(X, dtype=np.float64, input_name="X")
    C = check_array(candidates, dtype=np.float64, input_name="candidates")
    S = check_sensitive_for(sensitive_features, X.shape[0], "manifold_projection",
                            "manifold_projection",
                            "manifold_projection(oblivious_kernel, X, sensitive_features, "
                            "candidates)")
    ok = oblivious_kernel
    kcc = np.empty(C.shape[0])
    for start in range(0, C.shape[0], 256):
        blk = C[start:start + 256]
        kcc[start:start + 256] = np.diag(ok._k(blk))
    if shift is not None:
        pts, w = shift
        pts = check_array(pts, dtype=np.float64, input_name="shift points")
        w = np.asarray(w, dtype=np.float64).ravel()
        h_c = ok._k(C, pts) @ w
        h_norm = float(w @ ok._k(pts) @ w)
    W = np.empty_like(X)
    dist = np.empty(X.shape[0])
    for start in range(0, X.shape[0], batch_size):
        sl = slice(start, start + batch_size)
        Xb, Sb = X[sl], S[sl]
        znorm = ok.diag(Xb, Sb)
        inner = ok.cross(Xb, Sb, C)  # <Z_i, phi(c_j)>
        d2 = znorm[:, None] + kcc[None, :] - 2.0 * inner
        if shift is not None:
            zh = ok.cross(Xb, Sb, pts) @ w
            d2 += (h_norm + 2.0 * zh)[:, None] - 2.0 * h_c[None, :]
        j = np.argmin(d2, axis=1)
        W[sl] = C[j]
        dist[sl] = np.sqrt(np.maximum(d2[np.arange(len(j)), j], 0.0))
    return W, dist


def manifold_distance(oblivious_kernel, X, sensitive_features, candidates, *, shift=None):
    """Empirical distance :math:`d_n(Z + h', M) = \\frac1n\\sum_i \\min_{x}
    \\|Z_i + h' - \\varphi(x)\\|` (Eq. 5).

    Parameters are those of :func:`manifold_projection`.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.oblivious import ObliviousKernel, manifold_distance
    >>> rng = np.random.default_rng(0)
    >>> S = rng.integers(0, 2, 200); X = (2 * S + rng.normal(size=200))[:, None]
    >>> ok = ObliviousKernel(gamma=1.0).fit(X[:100], S[:100])
    >>> grid = np.linspace(-4, 6, 201)[:, None]
    >>> 0 < manifold_distance(ok, X[100:], S[100:], grid) < 2
    True
    """
    return float(np.mean(
        manifold_projection(oblivious_kernel, X, sensitive_features, candidates, shift=shift)[1]
    ))
