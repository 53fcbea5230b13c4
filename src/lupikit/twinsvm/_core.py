"""Linear algebra of the twin-SVM duals, in kernel form.

One twin-SVM plane is proximal to its *own* class ``O`` (``m_o`` points) and
pushes the *other* class ``N`` (``m_n`` points) to one side. With a feature
map ``phi`` (the identity for the linear kernel), the plane is
``f(x) = <w, phi(x)> + b`` and the quadratic part of every primal is

.. math::

    \\tfrac{\\rho}{2}\\|w\\|^2 + \\tfrac12\\|\\Phi_O w + e b\\|^2 ,

(``rho`` is ``reg``). For a multiplier vector ``lam`` on the other class the
problem ``min_{w,b} rho/2 |w|^2 + 1/2 |Phi_O w + eb|^2 + lam'(Phi_N w + eb)``
has the closed-form minimiser ``w = Phi_O' a + Phi_N' c`` with

.. math::

    c = -\\lambda/\\rho,\\quad \\eta = \\Phi_O w + eb = -M^{-1}K_{ON}\\lambda
    + \\rho\\, b\\, M^{-1}e,\\quad a = -\\eta/\\rho,\\quad M = \\rho I + K_{OO},

``b = v'lam`` with ``v = (K_{NO} M^{-1} e - e)/(rho s)``, ``s = e'M^{-1}e``,
and minimum ``-lam'Q lam / 2`` with

.. math::

    Q = \\tfrac1\\rho\\bigl(K_{NN} - K_{NO}M^{-1}K_{ON}\\bigr) + \\rho s\\, v v^\\top .

``Q`` equals ``G S^{-1} G'`` of the paper (``G = [Phi_N e]``,
``S = diag(rho I, 0) + H'H``, ``H = [Phi_O e]``) but only needs kernel values
and one Cholesky factorisation of the ``m_o x m_o`` matrix ``M``, which is
positive definite for ``rho > 0``: this is the small regularisation that keeps
the twin-SVM matrices invertible (``rho -> 0`` is the original TWSVM of
Jayadeva et al., whose ``H'H`` is singular in kernel form).
"""

import numpy as np
from scipy.linalg import blas, cho_solve, lapack

__all__ = ["PlaneGram"]


class PlaneGram:
    """``Q`` and the primal recovery map of one twin-SVM plane.

    Parameters
    ----------
    K_oo, K_on, K_nn : ndarrays
        Kernel blocks (own/own, own/other, other/other).
    reg : float
        Weight ``rho > 0`` of ``||w||^2``.
    """

    def __init__(self, K_oo, K_on, K_nn, reg):
        reg = float(reg)
        m_o = K_oo.shape[0]
        M = np.array(K_oo, dtype=np.float64, order="F")
        M.flat[:: m_o + 1] += reg
        L, info = lapack.dpotrf(M, lower=1, clean=0, overwrite_a=1)
        if info != 0:
            raise np.linalg.LinAlgError(
                "rho I + K_OO is not positive definite (is the kernel PSD?)")
        self._cho = (L, True)
        self._K_on = K_on
        # Z = K_no L^{-T} (one triangular solve, BLAS trsm on a Fortran copy),
        # so that K_no M^{-1} K_on = Z Z' (a symmetric rank-k update, syrk)
        Z = np.array(np.asarray(K_on, dtype=np.float64).T, order="F")
        Z = blas.dtrsm(1.0, L, Z, side=1, lower=1, trans_a=1, overwrite_b=1)
        self.r = cho_solve(self._cho, np.ones(m_o), check_finite=False)  # M^{-1} e
        self.s = float(self.r.sum())
        self.v = (np.asarray(K_on).T @ self.r - 1.0) / (reg * self.s)
        # lower triangle of (K_nn - Z Z') / rho, then + rho s v v', then mirrored:
        # Q is exactly symmetric and only one triangle is ever computed
        C = np.array(K_nn, dtype=np.float64, order="F")
        C = blas.dsyrk(-1.0 / reg, Z, beta=1.0 / reg, c=C, trans=0, lower=1, overwrite_c=1)
        C = blas.dger(reg * self.s, self.v, self.v, a=C, overwrite_a=1)
        _mirror_lower(C)
        self.Q = C.T  # C-contiguous (rows of Q are read by SMO); Q is symmetric
        self.reg = reg

    def recover(self, lam):
        """Coefficients ``(a, c, b)`` of ``w = Phi_O'a + Phi_N'c`` and ``b``."""
        lam = np.asarray(lam, dtype=np.float64)
        b = float(self.v @ lam)
        eta = -cho_solve(self._cho, self._K_on @ lam, check_finite=False) + self.reg * b * self.r
        return -eta / self.reg, -lam / self.reg, b


def _mirror_lower(C, block=128):
    """Copy the lower triangle of the square Fortran-ordered ``C`` onto its
    upper triangle, in place, block column by block column."""
    n = C.shape[0]
    for j0 in range(0, n, block):
        j1 = min(n, j0 + block)
        D = C[j0:j1, j0:j1]
        D[np.triu_indices(j1 - j0, 1)] = D.T[np.triu_indices(j1 - j0, 1)]
        C[j0:j1, j1:] = C[j1:, j0:j1].T
    return C


def split_kernel(K, own, other):
    """Blocks ``K_oo, K_on, K_nn`` of a kernel matrix for index arrays.

    Contiguous ranges (the classes after sorting) give views, not copies.
    """
    own, other = np.asarray(own), np.asarray(other)
    if _is_range(own) and _is_range(other):
        o, n_ = slice(own[0], own[-1] + 1), slice(other[0], other[-1] + 1)
        return K[o, o], K[o, n_], K[n_, n_]
    return K[np.ix_(own, own)], K[np.ix_(own, other)], K[np.ix_(other, other)]


def _is_range(idx):
    return idx.size > 0 and idx[-1] - idx[0] + 1 == idx.size and bool(np.all(np.diff(idx) == 1))
