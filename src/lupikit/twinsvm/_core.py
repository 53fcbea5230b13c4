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
from scipy.linalg import cho_factor, cho_solve, solve_triangular

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
        M = K_oo + reg * np.eye(m_o)
        self._cho = cho_factor(M, lower=True, check_finite=False)
        self._K_on = K_on
        # W = L^{-1} K_on, so that K_no M^{-1} K_on = W'W (one triangular solve;
        # only the lower triangle of the factor is read)
        W = solve_triangular(self._cho[0], K_on, lower=True, check_finite=False)
        self.r = cho_solve(self._cho, np.ones(m_o), check_finite=False)  # M^{-1} e
        self.s = float(self.r.sum())
        self.v = (K_on.T @ self.r - 1.0) / (reg * self.s)
        Q = K_nn - W.T @ W
        Q /= reg
        Q += (reg * self.s) * np.outer(self.v, self.v)
        self.Q = 0.5 * (Q + Q.T)
        self.reg = reg

    def recover(self, lam):
        """Coefficients ``(a, c, b)`` of ``w = Phi_O'a + Phi_N'c`` and ``b``."""
        lam = np.asarray(lam, dtype=np.float64)
        b = float(self.v @ lam)
        eta = -cho_solve(self._cho, self._K_on @ lam, check_finite=False) + self.reg * b * self.r
        return -eta / self.reg, -lam / self.reg, b


def split_kernel(K, own, other):
    """Blocks ``K_oo, K_on, K_nn`` of a kernel matrix for index arrays."""
    return K[np.ix_(own, own)], K[np.ix_(own, other)], K[np.ix_(other, other)]
