"""Part IV's test reference: Algorithm 1 of the oblivious-kernels paper, written with Python loops.

Used by ``tests/oblivious/test_kernel.py`` and ``tests/oblivious/test_properties.py``
(``tests/`` is on pytest's pythonpath).
"""

import numpy as np


def algorithm1_loop(kk, X, S_cells, X_est, S_est_cells, Xr=None, Sr_cells=None):
    """Literal Algorithm 1 / Appendix E.2 with Python loops (test reference).

    ``kk(x, y)`` is a scalar kernel. Computes <Z_i, Z_j> with
    Z = phi(x) - E_n(phi|cell) + E_n(phi), empty cells having conditional
    mean 0 (a sum over an empty index set is 0). Rows: (X, S_cells);
    columns: (Xr, Sr_cells).
    """
    if Xr is None:
        Xr, Sr_cells = X, S_cells
    m = len(X_est)
    idx = {}
    for u in range(m):
        idx.setdefault(S_est_cells[u], []).append(u)
    Mbar = 0.0
    for u in range(m):
        for v in range(m):
            Mbar += kk(X_est[u], X_est[v]) / m**2
    tau, o = {}, {}
    for a, Ia in idx.items():
        tau[a] = sum(kk(X_est[u], X_est[v]) for u in Ia for v in range(m)) / (m * len(Ia))
        for b, Ib in idx.items():
            o[a, b] = sum(kk(X_est[u], X_est[v]) for u in Ia for v in Ib) / (len(Ia) * len(Ib))

    def stats_of(x):
        rho = sum(kk(x, X_est[u]) for u in range(m)) / m
        xi = {a: sum(kk(x, X_est[u]) for u in Ia) / len(Ia) for a, Ia in idx.items()}
        return rho, xi

    left = [stats_of(x) for x in X]
    right = [stats_of(x) for x in Xr]
    out = np.empty((len(X), len(Xr)))
    for i in range(len(X)):
        rho_i, xi_i = left[i]
        a = S_cells[i]
        for j in range(len(Xr)):
            rho_j, xi_j = right[j]
            b = Sr_cells[j]
            out[i, j] = (
                kk(X[i], Xr[j]) - xi_i.get(b, 0.0) - xi_j.get(a, 0.0) + o.get((a, b), 0.0)
                + Mbar + rho_i + rho_j - tau.get(a, 0.0) - tau.get(b, 0.0)
            )
    return out
